/**
 * Normalization of what every source delivers into one article shape: canonical URL,
 * language, published time, source, entities. Pure functions, no I/O.
 */

/** Query parameters that only track the click and never change the article. */
const TRACKING_PARAM = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|ref_src|_ga)$/i

/** The canonical form of an article URL, or undefined when it is not an http(s) URL. */
export function canonicalUrl(raw: string, base?: string): string | undefined {
  let url: URL
  try {
    url = base ? new URL(raw.trim(), base) : new URL(raw.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  url.hash = ''
  url.username = ''
  url.password = ''
  url.hostname = url.hostname.toLowerCase().replace(/\.$/, '')
  const kept = [...url.searchParams.entries()].filter(([k]) => !TRACKING_PARAM.test(k))
  kept.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)))
  url.search = new URLSearchParams(kept).toString()
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '')
  return url.toString()
}

/** Control characters other than tab, newline and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/** Whitespace collapsed, control characters dropped, trimmed. */
export function cleanText(raw: string | undefined | null): string {
  if (!raw) return ''
  return raw.replace(CONTROL, '').replace(/\s+/g, ' ').trim()
}

/** Text of an HTML fragment (feed descriptions carry markup): tags dropped, entities decoded. */
export function htmlToText(html: string | undefined | null): string {
  if (!html) return ''
  const noTags = html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')
  return cleanText(decodeEntities(noTags))
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' '
    }
    return NAMED[name.toLowerCase()] ?? whole
  })
}

/** An ISO 8601 UTC timestamp with milliseconds, or null when the input is not a date. */
export function isoTime(raw: string | number | undefined | null): string | null {
  if (raw === undefined || raw === null || raw === '') return null
  const date = new Date(raw)
  const ms = date.getTime()
  if (Number.isNaN(ms)) return null
  return date.toISOString()
}

/**
 * Frequent short words of the languages news sources publish in most; the language whose words
 * cover the most tokens wins. A guess for sources that do not say, good on article-length text
 * and weak on a headline alone; `und` when nothing matches.
 */
const STOPWORDS: Record<string, string[]> = {
  en: ['the', 'and', 'of', 'to', 'in', 'is', 'that', 'for', 'on', 'with', 'was', 'said', 'by', 'it'],
  de: ['der', 'die', 'und', 'das', 'ist', 'nicht', 'mit', 'den', 'von', 'ein', 'eine', 'auf', 'sich', 'für'],
  fr: ['le', 'la', 'les', 'et', 'des', 'est', 'une', 'dans', 'que', 'pour', 'pas', 'sur', 'du', 'au'],
  es: ['el', 'los', 'las', 'del', 'que', 'por', 'una', 'con', 'para', 'es', 'se', 'su', 'al', 'y'],
  it: ['il', 'di', 'che', 'della', 'per', 'una', 'sono', 'non', 'con', 'gli', 'del', 'nel', 'è', 'le'],
  pt: ['não', 'uma', 'para', 'com', 'os', 'do', 'da', 'que', 'em', 'por', 'mais', 'foi', 'ao', 'dos'],
  nl: ['de', 'het', 'een', 'van', 'en', 'niet', 'dat', 'op', 'te', 'zijn', 'voor', 'met', 'ook', 'werd'],
}
const STOP_INDEX = new Map<string, string[]>()
for (const [lang, words] of Object.entries(STOPWORDS)) {
  for (const w of words) STOP_INDEX.set(w, [...(STOP_INDEX.get(w) ?? []), lang])
}

export const UNKNOWN_LANGUAGE = 'und'

/** A BCP 47 primary language subtag: the source's own when it gives one, else a guess. */
export function language(declared: string | undefined | null, text: string): string {
  const given = declared?.trim().toLowerCase().split(/[-_]/)[0]
  if (given && /^[a-z]{2,3}$/.test(given)) return given
  const scores = new Map<string, number>()
  for (const word of text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .slice(0, 400)) {
    for (const lang of STOP_INDEX.get(word) ?? []) scores.set(lang, (scores.get(lang) ?? 0) + 1)
  }
  let best = UNKNOWN_LANGUAGE
  let bestScore = 1
  for (const [lang, score] of scores) {
    if (score > bestScore) {
      best = lang
      bestScore = score
    }
  }
  return best
}

/** Entities as a sorted, de-duplicated list of trimmed names. */
export function entityList(raw: (string | undefined | null)[]): string[] {
  const set = new Set<string>()
  for (const e of raw) {
    const name = cleanText(e)
    if (name !== '' && name.length <= 200) set.add(name)
  }
  return [...set].sort()
}

/** What a parser hands on: one article as its source described it, before normalization. */
export interface RawArticle {
  url: string
  title?: string | null
  body?: string | null
  publishedAt?: string | number | null
  language?: string | null
  sourceName?: string | null
  entities?: (string | null | undefined)[]
}

export interface NormalizedArticle {
  canonicalUrl: string
  title: string
  body: string
  language: string
  publishedAt: string | null
  sourceName: string
  entities: string[]
}

/** Titles and bodies are cut here, so one giant item cannot take the database or the index. */
export const MAX_TITLE_CHARS = 1_000
export const MAX_BODY_CHARS = 100_000

export type NormalizeResult = { ok: true; article: NormalizedArticle } | { ok: false; error: string }

export function normalizeArticle(raw: RawArticle): NormalizeResult {
  const url = canonicalUrl(raw.url)
  if (!url) return { ok: false, error: 'no http(s) URL' }
  const title = cleanText(raw.title).slice(0, MAX_TITLE_CHARS)
  const body = cleanText(raw.body).slice(0, MAX_BODY_CHARS)
  if (title === '' && body === '') return { ok: false, error: 'neither title nor text' }
  return {
    ok: true,
    article: {
      canonicalUrl: url,
      title: title || body.slice(0, 120),
      body,
      language: language(raw.language, `${title} ${body}`),
      publishedAt: isoTime(raw.publishedAt),
      sourceName: cleanText(raw.sourceName) || new URL(url).hostname,
      entities: entityList(raw.entities ?? []),
    },
  }
}

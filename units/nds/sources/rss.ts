/** RSS 2.0 and Atom feeds, through @extractus/feed-extractor (fast-xml-parser: no entity expansion). */
import { extractFromXml } from '@extractus/feed-extractor'
import { htmlToText, type RawArticle } from '../rules/normalize.ts'

type Raw = Record<string, unknown>

const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  if (v && typeof v === 'object' && '#text' in v) return text((v as Raw)['#text'])
  return undefined
}

/** RSS `<category>` text and Atom `<category term="…">`, as a list. */
function categories(raw: Raw): string[] {
  const c = raw.category
  const list = Array.isArray(c) ? c : c === undefined ? [] : [c]
  return list
    .map((item) =>
      item && typeof item === 'object' && '@_term' in item ? text((item as Raw)['@_term']) : text(item),
    )
    .filter((s): s is string => s !== undefined)
}

/** The full text a feed carries: `content:encoded` (RSS) or `<content>` (Atom), else the summary. */
function fullText(raw: Raw): string | undefined {
  return text(raw['content:encoded']) ?? text(raw.content)
}

export interface ParsedFeed {
  title: string
  language: string | undefined
  articles: RawArticle[]
}

/** Parse a feed document; throws when the XML is not well-formed or is not RSS, Atom or RDF. */
export function parseFeed(xml: string, feedUrl: string): ParsedFeed {
  const feed = extractFromXml(xml, {
    descriptionMaxLen: 0,
    baseUrl: feedUrl,
    getExtraEntryFields: (entry) => ({ raw: entry }),
  })
  const language = feed.language || undefined
  const sourceName = feed.title || new URL(feedUrl).hostname
  const articles = (feed.entries ?? []).map((entry): RawArticle => {
    const raw = (entry.raw ?? {}) as Raw
    return {
      url: entry.link ?? '',
      title: htmlToText(entry.title),
      body: htmlToText(fullText(raw) ?? entry.description),
      publishedAt: entry.published || null,
      language,
      sourceName,
      entities: categories(raw),
    }
  })
  return { title: sourceName, language, articles }
}

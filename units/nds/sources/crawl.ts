/**
 * crawl_news: article pages fetched politely (robots.txt honoured, one request per host per
 * interval) and their main text extracted with Mozilla Readability on a linkedom DOM.
 */
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import type { RawArticle } from '../rules/normalize.ts'
import { decodeText, type FetchLimits, fetchDocument, SourceError } from './fetch.ts'
import { allowAll, disallowAll, parseRobots, type Robots } from './robots.ts'

/** Readability's own threshold is 500; short news items are often shorter. */
const MIN_ARTICLE_CHARS = 200

export interface CrawlOptions extends FetchLimits {
  /** Milliseconds between two requests to one host. */
  hostIntervalMs: number
  maxPages: number
}

/** One politeness state per crawl: robots.txt per origin and the time of the last request per host. */
export function createCrawler(options: CrawlOptions) {
  const robots = new Map<string, Promise<Robots>>()
  const nextSlot = new Map<string, number>()

  const waitTurn = async (host: string) => {
    const now = Date.now()
    const slot = Math.max(now, nextSlot.get(host) ?? 0)
    nextSlot.set(host, slot + options.hostIntervalMs)
    if (slot > now) await Bun.sleep(slot - now)
  }

  const robotsFor = (origin: string): Promise<Robots> => {
    let found = robots.get(origin)
    if (!found) {
      found = (async () => {
        await waitTurn(new URL(origin).host)
        try {
          const doc = await fetchDocument(`${origin}/robots.txt`, options, {}, [404, 410, 401, 403])
          if (doc.status >= 400) return allowAll
          return parseRobots(decodeText(doc.bytes, doc.contentType))
        } catch {
          return disallowAll
        }
      })()
      robots.set(origin, found)
    }
    return found
  }

  /** Fetch one page: its article (when it has one) and the same-host links it names. */
  async function page(url: string): Promise<{ article?: RawArticle; links: string[] }> {
    const target = new URL(url)
    if (!(await robotsFor(target.origin)).allowed(target.pathname + target.search)) {
      throw new SourceError('disallowed by robots.txt')
    }
    await waitTurn(target.host)
    const doc = await fetchDocument(url, options, { accept: 'text/html,application/xhtml+xml' })
    if (!/html|xml/i.test(doc.contentType) && doc.contentType !== '')
      throw new SourceError(`not an HTML page (${doc.contentType})`)
    return extractPage(decodeText(doc.bytes, doc.contentType), doc.url)
  }

  return { page }
}

export function extractPage(html: string, url: string): { article?: RawArticle; links: string[] } {
  const { document } = parseHTML(html)
  const base = new URL(url)
  const links = new Set<string>()
  for (const a of document.querySelectorAll('a[href]')) {
    try {
      const href = new URL(a.getAttribute('href') ?? '', base)
      href.hash = ''
      if (href.host === base.host && href.toString() !== base.toString()) links.add(href.toString())
    } catch {
      // not a URL
    }
  }
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content') ?? undefined
  const published =
    meta('meta[property="article:published_time"]') ??
    meta('meta[name="date"]') ??
    document.querySelector('time[datetime]')?.getAttribute('datetime') ??
    undefined
  const lang = document.documentElement?.getAttribute('lang') ?? undefined
  const siteName = meta('meta[property="og:site_name"]')
  const keywords = meta('meta[name="keywords"]')
  const parsed = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
    charThreshold: MIN_ARTICLE_CHARS,
  }).parse()
  const body = parsed?.textContent ?? ''
  if (!parsed || body.trim().length < MIN_ARTICLE_CHARS) return { links: [...links] }
  return {
    article: {
      url,
      title: parsed.title,
      body,
      publishedAt: parsed.publishedTime ?? published,
      language: parsed.lang ?? lang,
      sourceName: parsed.siteName ?? siteName ?? base.hostname,
      entities: keywords ? keywords.split(',') : [],
    },
    links: [...links],
  }
}

/**
 * Ingest use cases: a request becomes a durable job (422 when no source location is known), and
 * the worker runs the job: fetch each document, parse it with the source's real parser,
 * normalize, and store what changed (new article, new version, or nothing).
 */
import { unprocessable } from '../../../common/errors.ts'
import type { Caller } from '../auth.ts'
import type { IngestRequestBody, Mode, Source } from '../model.ts'
import { signature } from '../rules/minhash.ts'
import { normalizeArticle, type RawArticle } from '../rules/normalize.ts'
import { decodeText, type FetchLimits, fetchDocument } from '../sources/fetch.ts'
import { NEWSAPI_PAGE_SIZE, newsApiUrl, parseNewsApiPage } from '../sources/news-api.ts'
import { contentHash, type JobRow, type JobState, type PreparedArticle } from '../store.ts'
import type { NdsDeps, NdsSettings } from './deps.ts'
import { presentJob } from './present.ts'

/** Per-item errors kept on a job; the count of all of them is in counts.errors. */
export const MAX_JOB_ERRORS = 100
/** Articles per write transaction (FTS5 writes a segment per commit: larger batches ingest faster). */
const BATCH = 500
const DEFAULT_NEWSAPI_PAGES = 1
const HOUR_MS = 3_600_000

/**
 * Parsers loaded when a job of their source first runs: linkedom with Readability, fflate and the
 * feed parser would cost every start of NDS time and resident memory before any job needs them.
 */
const parsers = {
  crawl: () => import('../sources/crawl.ts'),
  gdelt: () => import('../sources/gdelt.ts'),
  rss: () => import('../sources/rss.ts'),
}

export interface ResolvedRequest {
  urls: string[]
  from?: string
  to?: string
  window_hours?: number
  query?: string
  news_sources?: string
  language?: string
  country?: string
  max_pages?: number
  [key: string]: unknown
}

const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

const missing = (source: Source, what: string) =>
  unprocessable('source_location_missing', `${source} has no source location: ${what}.`, { source })

/** The job's request with every location resolved from the body or the configuration. */
export function resolveRequest(
  s: NdsSettings,
  source: Source,
  mode: Mode,
  body: IngestRequestBody,
  now: number,
): ResolvedRequest {
  const to = body.to ?? new Date(now).toISOString()
  const window = mode === 'backfill' ? { from: body.from, to } : {}
  if (mode === 'backfill') {
    if (!body.from)
      throw unprocessable('date_range_missing', 'A backfill needs "from" (and optionally "to").')
    if (Date.parse(body.from) > Date.parse(to))
      throw unprocessable('date_range_invalid', '"from" is after "to".')
  }
  let urls: string[]
  switch (source) {
    case 'rss':
      urls = body.urls ?? s.rssFeeds
      if (urls.length === 0) throw missing(source, 'set NDS_RSS_FEEDS or send "urls" (feed URLs)')
      break
    case 'news_api': {
      const base = body.urls?.[0] ?? s.newsApiUrl
      if (!base) throw missing(source, 'set NDS_NEWSAPI_URL or send "urls" (the NewsAPI base URL)')
      if (!s.newsApiKey) throw missing(source, 'set NDS_NEWSAPI_KEY (the NewsAPI key)')
      if (mode === 'backfill' && !body.query && !body.news_sources)
        throw unprocessable('query_missing', 'A news_api backfill needs "query" or "news_sources".')
      urls = [base]
      break
    }
    case 'event_db': {
      const base = body.urls ?? (s.eventDbUrl ? [s.eventDbUrl] : [])
      if (base.length === 0)
        throw missing(source, 'set NDS_EVENT_DB_URL or send "urls" (export files or the export root)')
      urls = base
      break
    }
    case 'crawl_news':
      urls = body.urls ?? s.crawlSeeds
      if (urls.length === 0)
        throw missing(source, 'set NDS_CRAWL_SEEDS or send "urls" (article or index pages)')
      break
  }
  const bad = urls.filter((u) => !isHttpUrl(u))
  if (bad.length > 0)
    throw unprocessable('invalid_url', 'Every location must be an http(s) URL.', {
      invalid: bad.slice(0, 10),
    })
  return {
    ...body,
    ...window,
    urls,
    window_hours: mode === 'current-events' ? (body.window_hours ?? s.currentWindowHours) : undefined,
  }
}

export async function createIngestJob(
  deps: NdsDeps,
  caller: Caller,
  source: Source,
  mode: Mode,
  body: IngestRequestBody | undefined,
) {
  const request = resolveRequest(deps.settings, source, mode, body ?? {}, deps.now())
  const job = await deps.store.insertJob({ accountId: caller.accountId, source, mode, request })
  deps.kickJobs()
  return presentJob(job)
}

// ---- execution

interface Tally {
  counts: Record<string, number>
  errors: { item: string; error: string }[]
}

function addError(t: Tally, item: string, error: string) {
  t.counts.errors = (t.counts.errors ?? 0) + 1
  if (t.errors.length < MAX_JOB_ERRORS)
    t.errors.push({ item: item.slice(0, 500), error: error.slice(0, 500) })
}
const bump = (t: Tally, key: string, n = 1) => {
  t.counts[key] = (t.counts[key] ?? 0) + n
}

/** Stores articles in batches: normalize, window, skip the unchanged, embed, fingerprint, apply. */
function createSink(deps: NdsDeps, job: JobRow, tally: Tally) {
  const req = job.request as ResolvedRequest
  const fromMs = req.from ? Date.parse(req.from) : undefined
  const toMs = req.to ? Date.parse(req.to) : undefined
  const windowFrom = req.window_hours ? deps.now() - req.window_hours * HOUR_MS : undefined
  const inWindow = (published: string | null) => {
    if (published === null) return job.mode !== 'backfill'
    const at = Date.parse(published)
    if (fromMs !== undefined && at < fromMs) return false
    if (toMs !== undefined && at > toMs) return false
    if (windowFrom !== undefined && at < windowFrom) return false
    return true
  }
  let pending: RawArticle[] = []

  const flush = async () => {
    const batch = pending
    pending = []
    const prepared: PreparedArticle[] = []
    for (const raw of batch) {
      const n = normalizeArticle(raw)
      if (!n.ok) {
        bump(tally, 'rejected')
        deps.metrics.ingested.inc({ source: job.source, outcome: 'rejected' })
        addError(tally, raw.url || '(no url)', n.error)
        continue
      }
      if (!inWindow(n.article.publishedAt)) {
        bump(tally, 'out_of_window')
        continue
      }
      prepared.push({
        ...n.article,
        source: job.source,
        contentHash: contentHash(n.article),
        minhash: new Uint32Array(),
      })
    }
    const known = await deps.store.knownHashes(prepared.map((p) => p.canonicalUrl))
    const changed: PreparedArticle[] = []
    const seen = new Set<string>()
    for (const p of prepared) {
      if (known.get(p.canonicalUrl) === p.contentHash || seen.has(`${p.canonicalUrl} ${p.contentHash}`)) {
        bump(tally, 'unchanged')
        deps.metrics.ingested.inc({ source: job.source, outcome: 'unchanged' })
        continue
      }
      seen.add(`${p.canonicalUrl} ${p.contentHash}`)
      changed.push(p)
    }
    let vectors: Float32Array[] = []
    try {
      vectors = await deps.embedder.embed(changed.map((p) => `${p.title}\n${p.body}`))
    } catch (err) {
      addError(tally, 'embedding', (err as Error).message)
    }
    // the job's counts so far are stored with the batch: after a crash they say what was stored
    const outcomes = await deps.store.applyArticles(
      changed.map((p, i) => ({ ...p, minhash: signature(`${p.title} ${p.body}`), vector: vectors[i] })),
      job.jobId,
      tally.counts,
    )
    for (const outcome of outcomes) {
      bump(tally, outcome)
      deps.metrics.ingested.inc({ source: job.source, outcome })
    }
  }

  return {
    async add(items: RawArticle[]) {
      bump(tally, 'fetched', items.length)
      for (const item of items) {
        pending.push(item)
        if (pending.length >= BATCH) await flush()
      }
    },
    flush,
  }
}

/** Run one document step; a failure is recorded against the document and the job goes on. */
async function step(tally: Tally, item: string, work: () => Promise<void>) {
  bump(tally, 'documents')
  try {
    await work()
  } catch (err) {
    bump(tally, 'documents_failed')
    addError(tally, item, (err as Error).message)
  }
}

export async function executeJob(deps: NdsDeps, job: JobRow): Promise<void> {
  // A resumed job (a crash left it running) re-reads its documents: what the interrupted attempt
  // stored is found unchanged, and its created/updated counts, stored with each batch, carry over.
  const before = job.attempts > 1 ? job.counts : {}
  const tally: Tally = {
    counts: {
      fetched: 0,
      created: before.created ?? 0,
      updated: before.updated ?? 0,
      unchanged: 0,
      rejected: 0,
      errors: 0,
    },
    errors: [],
  }
  const sink = createSink(deps, job, tally)
  const s = deps.settings
  const limits: FetchLimits = { timeoutMs: s.fetchTimeoutMs, maxBytes: s.fetchMaxBytes }
  const req = job.request as ResolvedRequest
  const source = job.source as Source

  if (source === 'rss') {
    const { parseFeed } = await parsers.rss()
    for (const url of req.urls) {
      await step(tally, url, async () => {
        const doc = await fetchDocument(url, limits, {
          accept: 'application/rss+xml, application/atom+xml, application/xml, text/xml',
        })
        await sink.add(parseFeed(decodeText(doc.bytes, doc.contentType), doc.url).articles)
      })
    }
  } else if (source === 'news_api') {
    const base = req.urls[0] as string
    const pages = req.max_pages ?? DEFAULT_NEWSAPI_PAGES
    const query = {
      mode: job.mode === 'backfill' ? ('backfill' as const) : ('current-events' as const),
      query: req.query,
      sources: req.news_sources,
      language: req.language,
      country: req.country ?? s.newsApiCountry,
      from: req.from,
      to: req.to,
    }
    for (let page = 1; page <= pages; page++) {
      const url = newsApiUrl(base, query, page)
      let more = false
      await step(tally, url.replace(/apiKey=[^&]*/i, 'apiKey=…'), async () => {
        const doc = await fetchDocument(
          url,
          limits,
          { 'X-Api-Key': s.newsApiKey ?? '' },
          [400, 401, 426, 429, 500],
        )
        const parsed = parseNewsApiPage(decodeText(doc.bytes, doc.contentType), req.language)
        for (const r of parsed.rejected) addError(tally, `${url}#${r.index}`, r.error)
        bump(tally, 'rejected', parsed.rejected.length)
        await sink.add(parsed.articles)
        more = page * NEWSAPI_PAGE_SIZE < parsed.totalResults && parsed.articles.length > 0
      })
      if (!more) break
    }
  } else if (source === 'event_db') {
    const { eventsText, parseEvents } = await parsers.gdelt()
    const files = await eventFiles(job, req, limits, tally, s)
    for (const url of files) {
      await step(tally, url, async () => {
        const doc = await fetchDocument(url, limits)
        const parsed = parseEvents(eventsText(doc.bytes))
        for (const r of parsed.rejected) addError(tally, `${url}:${r.line}`, r.error)
        bump(tally, 'rejected_events', parsed.rejected.length)
        bump(tally, 'events', await deps.store.insertEvents(parsed.events))
        await sink.add(parsed.articles)
      })
    }
  } else {
    const { createCrawler } = await parsers.crawl()
    const crawler = createCrawler({
      ...limits,
      hostIntervalMs: s.crawlHostIntervalMs,
      maxPages: req.max_pages ?? s.crawlMaxPages,
    })
    const maxPages = req.max_pages ?? s.crawlMaxPages
    const queue = [...req.urls]
    const visited = new Set<string>()
    const seeds = new Set(req.urls)
    while (queue.length > 0 && visited.size < maxPages) {
      const url = queue.shift() as string
      if (visited.has(url)) continue
      visited.add(url)
      await step(tally, url, async () => {
        const page = await crawler.page(url)
        if (page.article) await sink.add([page.article])
        else bump(tally, 'pages_without_article')
        // Seeds are followed one level: an index page names the articles to fetch.
        if (seeds.has(url)) for (const link of page.links) if (!visited.has(link)) queue.push(link)
      })
    }
  }
  await sink.flush().catch((err) => addError(tally, 'store', (err as Error).message))
  const documents = tally.counts.documents ?? 0
  const failedDocs = tally.counts.documents_failed ?? 0
  const state: JobState =
    documents > 0 && failedDocs === documents
      ? 'failed'
      : (tally.counts.errors ?? 0) > 0
        ? 'partially_failed'
        : 'succeeded'
  await deps.store.finishJob(job.jobId, state, tally.counts, tally.errors)
  deps.log.info({ job_id: job.jobId, source, state, counts: tally.counts }, 'ingest job finished')
}

/** The export files a GDELT job reads: given files, a backfill range, or the latest export. */
async function eventFiles(
  job: JobRow,
  req: ResolvedRequest,
  limits: FetchLimits,
  tally: Tally,
  s: NdsSettings,
): Promise<string[]> {
  const looksLikeFile = (u: string) =>
    /\.(csv|zip|tsv|txt)$/i.test(new URL(u).pathname) && !/lastupdate\.txt$/i.test(u)
  if (req.urls.every(looksLikeFile)) return req.urls
  const { exportUrls, latestExportUrl } = await parsers.gdelt()
  const root = (req.urls[0] as string).replace(/\/lastupdate\.txt$/i, '')
  if (job.mode === 'backfill' && req.from) {
    return exportUrls(root, new Date(req.from), new Date(req.to ?? Date.now()), s.backfillMaxFiles)
  }
  const latest: string[] = []
  await step(tally, `${root}/lastupdate.txt`, async () => {
    const doc = await fetchDocument(`${root}/lastupdate.txt`, limits)
    const url = latestExportUrl(decodeText(doc.bytes))
    if (!url) throw new Error('lastupdate.txt names no export file')
    latest.push(url)
  })
  return latest
}

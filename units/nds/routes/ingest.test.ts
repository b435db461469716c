import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bootNds, createKey, FIXTURES, fixtureServer, waitForJob } from '../testing.ts'

const fixtures = fixtureServer()
let unit = await bootNds({ NDS_NEWSAPI_KEY: 'newsapi-test-key' })
let auth: Record<string, string>
let accountId: string

beforeAll(async () => {
  unit.startWorker()
  ;({ auth, accountId } = await createKey(unit))
})
afterAll(async () => {
  fixtures.stop()
  await unit.dispose()
})

const ingest = async (path: string, body: unknown) => {
  const res = await unit.send('POST', path, body, auth)
  const job = await res.json()
  if (res.status !== 202) throw new Error(`${path}: ${res.status} ${JSON.stringify(job)}`)
  return waitForJob(unit, job.job_id, auth)
}
const F = (path: string) => `${fixtures.url}/${path}`
const everything = { from: '2026-10-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }

const articleByUrl = async (url: string) => {
  const res = await unit.send('POST', '/v1/search/filter', { limit: 100 }, auth)
  const hit = (await res.json()).results.find((r: { canonical_url: string }) => r.canonical_url === url)
  return hit ? (await unit.request(`/v1/articles/${hit.article_id}`, { headers: auth })).json() : undefined
}

describe('rss', () => {
  test('RSS 2.0: normalized articles (canonical URL, language, time, source, entities); a link-less item is an error', async () => {
    const job = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/world.xml')], ...everything })
    expect(job.state).toBe('partially_failed')
    expect(job.counts).toMatchObject({ fetched: 5, created: 4, rejected: 1, documents: 1 })
    expect(job.errors[0].error).toContain('no http(s) URL')
    const a = await articleByUrl('https://world.example/2026/11/port-strike')
    expect(a).toMatchObject({
      title: 'Harbour cranes idle as port strike enters second week',
      language: 'en',
      published_at: '2026-11-02T08:15:00.000Z',
      source: 'rss',
      source_name: 'Example World News',
      entities: ['Labour', 'Rotterdam'],
      version: 1,
    })
    expect(a.body).toContain('diverting vessels to Antwerp')
  })

  test('unchanged redelivery writes nothing; a changed item becomes version 2', async () => {
    const again = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/world.xml')], ...everything })
    expect(again.counts).toMatchObject({ created: 0, updated: 0, unchanged: 4 })
    const changed = await ingest('/v1/ingest/rss/backfill', {
      urls: [F('rss/world-updated.xml')],
      ...everything,
    })
    expect(changed.counts).toMatchObject({ created: 0, updated: 1, unchanged: 3 })
    const a = await articleByUrl('https://world.example/2026/11/port-strike')
    expect(a.version).toBe(2)
    const versions = await (
      await unit.request(`/v1/articles/${a.article_id}/versions`, { headers: auth })
    ).json()
    expect(versions.versions.map((v: { version: number }) => v.version)).toEqual([1, 2])
    expect(versions.versions[1].body).toContain('invited the union back')
    expect(versions.versions[0].body).not.toContain('invited the union back')
    expect(versions.versions[1].job_id).toBe(changed.job_id)
  })

  test('Atom feed; a near-duplicate from another source joins the same cluster', async () => {
    const job = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/wire.atom')], ...everything })
    expect(job.state).toBe('succeeded')
    expect(job.counts.created).toBe(2)
    const wire = await articleByUrl('https://wire.example/stories/port-strike-rotterdam')
    expect(wire.entities).toEqual(['Labour'])
    const cluster = await (
      await unit.request(`/v1/articles/${wire.article_id}/dedupe-cluster`, { headers: auth })
    ).json()
    const urls = cluster.members.map((m: { canonical_url: string }) => m.canonical_url).sort()
    expect(urls).toEqual([
      'https://wire.example/stories/port-strike-rotterdam',
      'https://world.example/2026/11/port-strike',
    ])
    for (const m of cluster.members) expect(m.similarity).toBeGreaterThanOrEqual(0.5)
    const chip = await articleByUrl('https://wire.example/stories/chip-campus-dresden')
    const alone = await (
      await unit.request(`/v1/articles/${chip.article_id}/dedupe-cluster`, { headers: auth })
    ).json()
    expect(alone.members.length).toBe(1)
    expect(alone.representative_article_id).toBe(chip.article_id)
  })

  test('an ISO-8859-1 feed reads as Latin-1', async () => {
    const job = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/latin1.xml')], ...everything })
    expect(job.state).toBe('succeeded')
    const a = await articleByUrl('https://geneve.example/escalade')
    expect(a.title).toBe("Fête de l'Escalade : la vieille ville célèbre")
    expect(a.language).toBe('fr')
  })

  test('bad XML, a truncated file, a missing feed: failed documents with reasons, no 5xx', async () => {
    const job = await ingest('/v1/ingest/rss/backfill', {
      urls: [F('rss/broken.xml'), F('rss/truncated.xml'), F('rss/nope.xml')],
      ...everything,
    })
    expect(job.state).toBe('failed')
    expect(job.counts).toMatchObject({ documents: 3, documents_failed: 3 })
    expect(job.errors.map((e: { error: string }) => e.error).join(' | ')).toContain('HTTP 404')
  })

  test('a giant item is cut to the body limit; an oversize document is refused', async () => {
    const big = 'word '.repeat(60_000)
    fixtures.route(
      '/rss/giant.xml',
      () =>
        new Response(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>Giant</title><item><title>Giant item</title><link>https://giant.example/1</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate><description>${big}</description></item></channel></rss>`,
          { headers: { 'content-type': 'application/rss+xml' } },
        ),
    )
    const job = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/giant.xml')], ...everything })
    expect(job.counts.created).toBe(1)
    const a = await articleByUrl('https://giant.example/1')
    expect(a.body.length).toBe(100_000)

    const small = await unit.restart({ NDS_FETCH_MAX_BYTES: '2048' })
    unit = small
    unit.startWorker()
    const refused = await ingest('/v1/ingest/rss/backfill', { urls: [F('rss/giant.xml')], ...everything })
    expect(refused.state).toBe('failed')
    expect(refused.errors[0].error).toContain('exceeds the limit')
    unit = await unit.restart({ NDS_FETCH_MAX_BYTES: '52428800' })
    unit.startWorker()
  })

  test('current-events keeps the recent window only', async () => {
    const job = await ingest('/v1/ingest/rss/current-events', { urls: [F('rss/world.xml')], window_hours: 1 })
    expect(job.state).toBe('partially_failed')
    expect(job.counts.out_of_window).toBe(4)
  })
})

describe('news_api', () => {
  test('backfill reads /v2/everything with the X-Api-Key header; bad items are per-item errors', async () => {
    fixtures.route(
      '/v2/everything',
      () =>
        new Response(readFileSync(join(FIXTURES, 'newsapi/everything.json')), {
          headers: { 'content-type': 'application/json' },
        }),
    )
    const job = await ingest('/v1/ingest/news_api/backfill', {
      urls: [fixtures.url],
      query: 'rotterdam',
      ...everything,
    })
    expect(job.counts).toMatchObject({ created: 2, rejected: 1 })
    const req = fixtures.requests.find((r) => r.path.startsWith('/v2/everything'))
    expect(req?.headers.get('x-api-key')).toBe('newsapi-test-key')
    expect(req?.path).toContain('q=rotterdam')
    expect(req?.path).toContain('from=2026-10-01')
    const a = await articleByUrl('https://times.example/energy/north-sea-wind-auction')
    expect(a.source_name).toBe('Example Times')
    expect(a.body).not.toContain('[+1830 chars]')
  })

  test('current-events reads /v2/top-headlines; NewsAPI errors are reported', async () => {
    fixtures.route(
      '/v2/top-headlines',
      () =>
        new Response(readFileSync(join(FIXTURES, 'newsapi/top-headlines.json')), {
          headers: { 'content-type': 'application/json' },
        }),
    )
    const job = await ingest('/v1/ingest/news_api/current-events', {
      urls: [fixtures.url],
      window_hours: 8760,
    })
    expect(job.counts.created).toBe(1)
    fixtures.route(
      '/v2/top-headlines',
      () =>
        new Response(readFileSync(join(FIXTURES, 'newsapi/error-apikey.json')), {
          status: 401,
          headers: { 'content-type': 'application/json' },
        }),
    )
    const failed = await ingest('/v1/ingest/news_api/current-events', { urls: [fixtures.url] })
    expect(failed.state).toBe('failed')
    expect(failed.errors[0].error).toContain('apiKeyInvalid')
  })

  test('backfill without a query is refused', async () => {
    const res = await unit.send(
      'POST',
      '/v1/ingest/news_api/backfill',
      { urls: [fixtures.url], ...everything },
      auth,
    )
    expect(res.status).toBe(422)
    expect((await res.json()).error.code).toBe('query_missing')
  })
})

describe('event_db (GDELT 2.0)', () => {
  test('a zipped export: 61-column events stored, source URLs become articles, a bad line is an error', async () => {
    const job = await ingest('/v1/ingest/event_db', { urls: [F('gdelt/20261102101500.export.CSV.zip')] })
    expect(job.state).toBe('partially_failed')
    expect(job.counts).toMatchObject({ events: 4, rejected_events: 1, created: 3 })
    const a = await articleByUrl('https://harbour.example/news/strike-day-8')
    expect(a.title).toBe('NETHERLANDS protests toward LABOR UNION in Rotterdam, Zuid-Holland, Netherlands')
    expect(a.entities).toContain('LABOR UNION')
    expect(a.published_at).toBe('2026-11-02T10:15:00.000Z')
  })

  test('the plain file redelivered changes nothing; current-events follows lastupdate.txt', async () => {
    const plain = await ingest('/v1/ingest/event_db', { urls: [F('gdelt/20261102101500.export.CSV')] })
    expect(plain.counts).toMatchObject({ events: 0, unchanged: 3 })
    const latest = await ingest('/v1/ingest/event_db/current-events', {
      urls: [`${fixtures.url}/gdelt`],
      window_hours: 8760,
    })
    expect(fixtures.requests.some((r) => r.path === '/gdelt/lastupdate.txt')).toBe(true)
    expect(latest.counts.documents).toBe(2)
    expect(latest.counts.unchanged).toBe(3)
  })

  test('backfill enumerates the 15-minute export files of the range', async () => {
    const job = await ingest('/v1/ingest/event_db/backfill', {
      urls: [`${fixtures.url}/gdelt`],
      from: '2026-11-02T10:00:00Z',
      to: '2026-11-02T10:20:00Z',
    })
    const asked = fixtures.requests.map((r) => r.path).filter((p) => p.startsWith('/gdelt/2026110210'))
    expect(asked).toEqual(
      expect.arrayContaining([
        '/gdelt/20261102100000.export.CSV.zip',
        '/gdelt/20261102101500.export.CSV.zip',
      ]),
    )
    expect(job.counts.documents).toBe(2)
    expect(job.counts.documents_failed).toBe(1)
  })
})

describe('crawl_news', () => {
  test('site crawl: two articles, robots honoured, off-site links ignored', async () => {
    const job = await ingest('/v1/ingest/crawl_news', { urls: [F('crawl/index.html')] })
    const paths = fixtures.requests.map((r) => r.path)
    expect(paths).toContain('/robots.txt')
    expect(paths).not.toContain('/crawl/private/draft.html')
    expect(paths).not.toContain('/offsite')
    expect(job.errors.some((e: { error: string }) => e.error === 'disallowed by robots.txt')).toBe(true)
    expect(job.counts.created).toBe(2)
    const ferry = await articleByUrl(F('crawl/news/ferry-line.html'))
    expect(ferry).toMatchObject({
      title: 'New ferry line links the islands',
      source_name: 'Example Newsroom',
      published_at: '2026-11-02T06:30:00.000Z',
      language: 'en',
      entities: ['Ferries', 'Islands', 'Transport'],
    })
    expect(ferry.body).toContain('electric ferry')
    expect(ferry.body).not.toContain('Copyright')
    const library = await articleByUrl(F('crawl/news/library-reopens.html'))
    expect(library.published_at).toBe('2026-11-01T09:00:00.000Z')
  })
})

describe('refusals', () => {
  test('no location anywhere: 422 naming what is missing', async () => {
    for (const [path, names] of [
      ['/v1/ingest/rss/current-events', 'NDS_RSS_FEEDS'],
      ['/v1/ingest/event_db', 'NDS_EVENT_DB_URL'],
      ['/v1/ingest/crawl_news/current-events', 'NDS_CRAWL_SEEDS'],
      ['/v1/ingest/news_api/current-events', 'NDS_NEWSAPI_URL'],
    ] as const) {
      const res = await unit.send('POST', path, {}, auth)
      expect(res.status).toBe(422)
      const body = await res.json()
      expect(body.error.code).toBe('source_location_missing')
      expect(body.error.message).toContain(names)
    }
    const noBody = await unit.request('/v1/ingest/rss/current-events', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
    })
    expect(noBody.status).toBe(422)
  })

  test('bad requests: rss has no direct route, a backfill needs from, URLs must be http(s), unknown fields 400', async () => {
    expect(
      (await unit.send('POST', '/v1/ingest/rss', { urls: [F('rss/world.xml')] }, auth)).status,
    ).toBeGreaterThanOrEqual(400)
    const noFrom = await unit.send('POST', '/v1/ingest/rss/backfill', { urls: [F('rss/world.xml')] }, auth)
    expect((await noFrom.json()).error.code).toBe('date_range_missing')
    const ftp = await unit.send(
      'POST',
      '/v1/ingest/rss/current-events',
      { urls: ['ftp://x.example/feed'] },
      auth,
    )
    expect(ftp.status).toBe(422)
    expect((await ftp.json()).error.code).toBe('invalid_url')
    expect((await unit.send('POST', '/v1/ingest/rss/current-events', { urls: 'x' }, auth)).status).toBe(400)
    expect((await unit.send('POST', '/v1/ingest/rss/current-events', { window_hours: 0 }, auth)).status).toBe(
      400,
    )
  })

  test("another account's job is 404, as is an unknown id of any shape", async () => {
    const job = await (
      await unit.send('POST', '/v1/ingest/rss/current-events', { urls: [F('rss/world.xml')] }, auth)
    ).json()
    const other = await createKey(unit, 'other')
    expect((await unit.request(`/v1/jobs/${job.job_id}`, { headers: other.auth })).status).toBe(404)
    expect((await unit.request(`/v1/jobs/${job.job_id}`, { headers: auth })).status).toBe(200)
    for (const id of ['nope', '123', '00000000-0000-0000-0000-000000000000', "'; DROP TABLE x;--"]) {
      expect((await unit.request(`/v1/jobs/${encodeURIComponent(id)}`, { headers: auth })).status).toBe(404)
      expect((await unit.request(`/v1/articles/${encodeURIComponent(id)}`, { headers: auth })).status).toBe(
        404,
      )
    }
    expect(accountId).not.toBe(other.accountId)
  })
})

import { afterAll, describe, expect, test } from 'bun:test'
import { STATUS_MAX_AGE_MS } from '../../../db/snapshot.ts'
import { writeElsewhere } from '../../../db/testing.ts'
import { bootNds, createKey, sqlOf } from '../testing.ts'

const unit = await bootNds()
afterAll(() => unit.dispose())

describe('nds public reads', () => {
  test('liveness, readiness (503 until the worker runs), info with runtime_config', async () => {
    expect(await (await unit.request('/v1/health/live')).json()).toEqual({ status: 'ok', service: 'nds' })
    const before = await unit.request('/v1/health/ready')
    expect(before.status).toBe(503)
    expect((await before.json()).checks.ingest_worker.ok).toBe(false)
    unit.startWorker()
    const after = await unit.request('/v1/health/ready')
    expect(after.status).toBe(200)
    expect((await after.json()).status).toBe('ready')
    const info = await (await unit.request('/v1/health/info')).json()
    expect(info).toMatchObject({
      service: 'nds',
      environment: 'test',
      version_label: '2026-04-01',
      api_surface: '/v1',
    })
    expect(info.runtime_config).toEqual({
      public_base_url: null,
      public_host: null,
      public_scheme: null,
      force_https_redirect: false,
      trusted_hosts: [],
      billing_provider: 'paddle',
    })
    expect(info.dependency_targets.payment_provider).toBe('https://sandbox-api.paddle.com')
    expect(info.runtime_counts.articles).toBe(0)
  })

  test('runtime_config reflects the configuration, and no secret appears in info', async () => {
    const other = await bootNds({
      NDS_PUBLIC_BASE_URL: 'https://news.example.com',
      NDS_FORCE_HTTPS_REDIRECT: 'true',
      NDS_TRUSTED_HOSTS: 'news.example.com,localhost',
      NDS_NEWSAPI_URL: 'https://user:pw@newsapi.example/v2?apiKey=zzz',
      NDS_NEWSAPI_KEY: 'newsapi-secret-value',
      NDS_PADDLE_API_KEY: 'pdl_secret_value',
    })
    try {
      const text = await (await other.request('/v1/health/info')).text()
      expect(text).not.toContain('secret')
      expect(text).not.toContain('pw@')
      expect(text).not.toContain('zzz')
      const info = JSON.parse(text)
      expect(info.runtime_config).toMatchObject({
        public_base_url: 'https://news.example.com',
        public_host: 'news.example.com',
        public_scheme: 'https',
        force_https_redirect: true,
        trusted_hosts: ['news.example.com', 'localhost'],
      })
      expect(info.dependency_targets.news_api).toBe('https://newsapi.example')
    } finally {
      await other.dispose()
    }
  })

  test('platform metadata, external API contract and release notices are public', async () => {
    const meta = await (await unit.request('/v1/platform/metadata')).json()
    expect(meta).toMatchObject({ tool_key: 'news-data', version_label: '2026-04-01' })
    expect(meta.sources).toEqual(['rss', 'news_api', 'event_db', 'crawl_news'])
    const contract = await (await unit.request('/v1/external-api-contract')).json()
    expect(contract.families.map((f: { family: string }) => f.family)).toContain('news.search')
    expect(contract.public_reads).toContain('/v1/platform/metadata')
    const notices = await (await unit.request('/v1/release-notices')).json()
    expect(notices.notices.length).toBeGreaterThan(0)
    expect((await unit.request('/v1/fabric/metadata')).status).toBe(404)
  })

  test('metrics and the OpenAPI document', async () => {
    const metrics = await (await unit.request('/metrics')).text()
    expect(metrics).toContain('svc_nds_articles')
    const doc = await (await unit.request('/openapi.json')).json()
    expect(doc.paths['/v1/search/filter'].post.security).toEqual([{ apiKey: [] }])
    expect(doc.paths['/v1/health/info'].get.security).toBeUndefined()
  })

  test('/docs (Swagger UI) and /redoc pages, with their assets served locally', async () => {
    for (const path of ['/docs', '/redoc']) {
      const page = await unit.request(path)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toContain('text/html')
      const html = await page.text()
      expect(html).toContain('/openapi.json')
      const asset = /src="([^"]+)"/.exec(html)?.[1] ?? ''
      expect(asset.startsWith(`${path}/assets/`)).toBe(true)
      expect((await unit.request(asset)).status).toBe(200)
    }
  })
})

describe('API keys', () => {
  test('everything else needs a key: none 401, unknown 401, a real one passes', async () => {
    const none = await unit.send('POST', '/v1/search/filter', { query: 'x' })
    expect(none.status).toBe(401)
    expect((await none.json()).error.code).toBe('unauthorized')
    const bad = await unit.send(
      'POST',
      '/v1/search/filter',
      { query: 'x' },
      { authorization: 'Bearer nds_nope' },
    )
    expect(bad.status).toBe(401)
    expect((await bad.json()).error.code).toBe('unauthorized')
    const { auth } = await createKey(unit)
    expect((await unit.send('POST', '/v1/search/filter', { query: 'x' }, auth)).status).toBe(200)
    // refused before the body is looked at
    expect((await unit.send('POST', '/v1/search/filter', { nope: 1 })).status).toBe(401)
  })

  test('a key in the query string is refused on every route', async () => {
    const { key } = await createKey(unit, 'query-key')
    for (const path of ['/v1/health/info', '/metrics', '/openapi.json']) {
      const res = await unit.request(`${path}?access_token=${key}`)
      expect(res.status).toBe(400)
      expect((await res.json()).error.code).toBe('credentials_in_query')
    }
    // on a guarded route the missing header is refused first
    expect((await unit.request(`/v1/jobs/x?access_token=${key}`)).status).toBe(401)
  })

  test('keys are stored hashed', async () => {
    const { key } = await createKey(unit, 'hash-check')
    const rows = await sqlOf(unit).all<{ key_hash: string }>('SELECT key_hash FROM api_keys')
    expect(rows.length).toBeGreaterThan(0)
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/)
      expect(r.key_hash).not.toBe(key)
    }
    const dump = JSON.stringify(await sqlOf(unit).all('SELECT * FROM api_keys'))
    expect(dump).not.toContain(key)
  })
})

describe('nds /v1/health/info: a snapshot of bounded age', () => {
  test("NDS's own writes show at once; a write behind its back within STATUS_MAX_AGE_MS", async () => {
    const u = await bootNds()
    try {
      const { accountId } = await createKey(u)
      const queued = async () =>
        (await (await u.request('/v1/health/info')).json()).runtime_counts.jobs_queued
      const job = (id: string) =>
        `INSERT INTO ingest_jobs (job_id, account_id, source, mode, state, request, attempts, counts, errors, created_at)
         VALUES ('${id}', '${accountId}', 'rss', 'current', 'queued', '{}', 0, '{}', '[]', '2026-01-01T00:00:00Z')`
      expect(await queued()).toBe(0)
      await sqlOf(u).run(job('own'))
      const taken = performance.now()
      expect(await queued()).toBe(1)

      await writeElsewhere(u.storage, job('elsewhere'))
      const seen = await queued()
      if (performance.now() - taken < STATUS_MAX_AGE_MS) expect(seen).toBe(1)
      await Bun.sleep(STATUS_MAX_AGE_MS + 20)
      expect(await queued()).toBe(2)
    } finally {
      await u.dispose()
    }
  })
})

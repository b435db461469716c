import { afterAll, describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { SWAGGER_UI } from '../common/docs-pages.ts'
import { defineUnit } from '../runtime/unit.ts'
import { credentialsFor } from '../tools/fuzz-credentials.ts'
import { prs } from '../units/prs/index.ts'
import { httpUnits } from '../units/registry.ts'
import { CHROMIUM, launchChromium } from './chromium.ts'
import { bootForTest } from './harness.ts'

if (!CHROMIUM)
  console.warn('docs page browser test skipped: no Chromium installed (apt-get install chromium)')

const u = bootForTest(prs)
/** A unit whose document is not at /openapi.json (as WTA's is at /api/v1/openapi.json). */
const elsewhere = bootForTest(
  defineUnit({
    kind: 'http',
    name: 'docstest',
    title: 'Docs page test unit',
    description: 'A unit with one route, its document under /api/v1.',
    port: 1,
    liveness: '/ping',
    env: {},
    migrations: [],
    openapiPath: '/api/v1/openapi.json',
    // A unit's own list of pages (NDS adds /redoc): here Swagger UI moved to /reference.
    docsPages: [{ ...SWAGGER_UI, path: '/reference' }],
    build: () => ({
      routes: new Elysia().get('/ping', () => ({ ok: true }), {
        response: { 200: t.Object({ ok: t.Boolean() }) },
      }),
    }),
  }),
)
afterAll(async () => {
  await u.dispose()
  await elsewhere.dispose()
})

const assetsOf = (html: string) => [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] ?? '')

describe('GET /docs', () => {
  test('is an HTML page that loads the unit own document and only same-origin assets', async () => {
    const res = await u.request('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    const html = await res.text()
    expect(html).toContain('data-spec-url="/openapi.json"')
    const assets = assetsOf(html)
    expect(assets.length).toBe(3)
    for (const a of assets) expect(a).toMatch(/^\/docs\/assets\/[a-z-]+\.(js|css)\?v=/)
  })

  test('serves each asset with its content type and a long cache header', async () => {
    const html = await (await u.request('/docs')).text()
    for (const a of assetsOf(html)) {
      const res = await u.request(a)
      expect({ a, status: res.status }).toEqual({ a, status: 200 })
      expect(res.headers.get('content-type')).toMatch(a.includes('.css') ? /^text\/css/ : /^text\/javascript/)
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100)
    }
  })

  test('an unknown asset is a 404 envelope, and the pages stay out of the OpenAPI document', async () => {
    for (const path of [
      '/docs/assets/nope.js',
      '/docs/assets/..%2Fpackage.json',
      '/docs/assets/constructor',
    ]) {
      const res = await u.request(path)
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
      expect((await res.json()).error.code).toBe('asset_not_found')
    }
    const doc = await (await u.request('/openapi.json')).json()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/docs'))).toEqual([])
  })

  test('a unit whose document lives elsewhere has its page load that path', async () => {
    const html = await (await elsewhere.request('/reference')).text()
    expect(html).toContain('data-spec-url="/api/v1/openapi.json"')
    expect((await elsewhere.request('/api/v1/openapi.json')).status).toBe(200)
  })

  test("a unit's own list of pages replaces the default: its page and assets are served, /docs is not", async () => {
    const html = await (await elsewhere.request('/reference')).text()
    for (const asset of assetsOf(html)) {
      expect(asset.startsWith('/reference/assets/')).toBe(true)
      expect((await elsewhere.request(asset)).status).toBe(200)
    }
    expect((await elsewhere.request('/docs')).status).toBe(404)
  })
})

test.skipIf(!CHROMIUM)(
  'Chromium opens /docs on a listening unit and sees every operation of its document',
  async () => {
    u.app.listen({ port: 0, hostname: '127.0.0.1' })
    const base = `http://127.0.0.1:${u.app.server?.port}`
    const browser = await launchChromium()
    try {
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, object> }
      const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item))
      const page = await browser.newPage()
      const offOrigin: string[] = []
      page.on('request', (r) => {
        if (!r.url().startsWith(base) && !r.url().startsWith('data:')) offOrigin.push(r.url())
      })
      await page.goto(`${base}/docs`)
      await page.locator('.opblock').first().waitFor({ timeout: 20_000 })
      expect(await page.locator('.opblock').count()).toBe(operations.length)
      const paths = await page.locator('.opblock-summary-path').allTextContents()
      expect(paths.map((p) => p.replace(/\u200b/g, ''))).toContain('/api/v1/contracts/registry')
      expect(await page.locator('.info .title').textContent()).toContain('PRS')
      expect(offOrigin).toEqual([])
    } finally {
      await browser.close()
      await u.app.stop(true)
    }
  },
  60_000,
)

describe.each(Object.entries(httpUnits))('%s', (name, entry) => {
  test('serves /docs rendering its own OpenAPI document, without credentials', async () => {
    const unit = await entry.load()
    const setup = await credentialsFor(name)
    const unitUnderTest = bootForTest(unit, setup.env)
    try {
      const page = await unitUnderTest.request('/docs')
      expect(page.status).toBe(200)
      expect(await page.text()).toContain(`data-spec-url="${unit.openapiPath ?? '/openapi.json'}"`)
      expect((await unitUnderTest.request('/docs/assets/swagger-ui.css')).status).toBe(200)
    } finally {
      setup.stop()
      await unitUnderTest.dispose()
    }
  })
})

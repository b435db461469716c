import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { Value } from '@sinclair/typebox/value'
import { hmacSha256Hex } from '../../common/hash.ts'
import { createLogger } from '../../common/logger.ts'
import { STATUS_MAX_AGE_MS } from '../../db/snapshot.ts'
import {
  bootForTest,
  bootForTestAsync,
  type FakePeer,
  fakePeer,
  json,
  type TestUnit,
} from '../../test/harness.ts'
import { web } from './index.ts'
import { HealthResponse, ReadyResponse, StatusDocument, VersionDocument } from './model.ts'
import { contactIntakes } from './tables.ts'

const SECRET = 'not-a-cloudflare-test-secret'
const GOOD = { name: 'Ada Lovelace', email: 'ada@example.com', interest: 'support', message: 'Hello there.' }

let siteverify: FakePeer
let unit: TestUnit<unknown> | undefined

beforeAll(() => {
  siteverify = fakePeer((req) => {
    const token = new URLSearchParams(req.body).get('response')
    return token === 'good-token' || token === 'XXXX.DUMMY.TOKEN.XXXX'
      ? json({ success: true, 'error-codes': [], hostname: 'localhost' })
      : json({ success: false, 'error-codes': ['invalid-input-response'] })
  })
})
afterAll(() => siteverify.stop())
afterEach(async () => {
  await unit?.dispose()
  unit = undefined
})

async function boot(env: Record<string, string | undefined> = {}) {
  unit = await bootForTestAsync(web, {
    TURNSTILE_SECRET_KEY: SECRET,
    TURNSTILE_VERIFY_URL: siteverify.url,
    ...env,
  })
  return unit
}

const contact = (u: TestUnit<unknown>, body: Record<string, unknown>) =>
  u.send('POST', '/api/contact', { 'cf-turnstile-response': 'good-token', ...body })

/** The stored intakes, read through the unit's own storage (the file, or the server). */
async function intakeRows(u: TestUnit<unknown>) {
  const rows = await u.storage.db
    .select({
      intake_id: contactIntakes.intakeId,
      name: contactIntakes.name,
      email: contactIntakes.email,
      interest: contactIntakes.interest,
      message: contactIntakes.message,
      optional: contactIntakes.optional,
      delivery: contactIntakes.delivery,
    })
    .from(contactIntakes)
  return rows
}

describe('self-description routes', () => {
  test('GET /health has exactly the spec fields and reflects configuration', async () => {
    const u = await boot({
      CONTACT_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      CONTACT_WEBHOOK_SECRET: 'x'.repeat(20),
    })
    const res = await u.request('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    const body = await res.json()
    expect(Value.Check(HealthResponse, body)).toBe(true)
    expect(Object.keys(body).sort()).toEqual(
      [
        'ok',
        'status',
        'tool_key',
        'legacy_slugs',
        'runtime_kind',
        'public_base_url',
        'request_path',
        'checks',
        'checked_at',
      ].sort(),
    )
    expect(body.request_path).toBe('/health')
    expect(body.checks).toEqual({
      pages_function_runtime: true,
      turnstile_secret_configured: true,
      contact_webhook_configured: true,
    })
    expect(body.checked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  test('GET /ready is 200 when ready and 503 with the reasons when the secret is missing (production)', async () => {
    const ready = await (await boot()).request('/ready')
    expect(ready.status).toBe(200)
    const body = await ready.json()
    expect(Value.Check(ReadyResponse, body)).toBe(true)
    expect(body.ready).toBe(true)
    expect(body.checks).toEqual({
      public_routes_expected: true,
      contact_intake_surface_present: true,
      turnstile_secret_configured: true,
      contact_webhook_configured: false,
    })
    await unit?.dispose()
    const notReady = await (
      await boot({
        SVC_ENV: 'production',
        PUBLIC_BASE_URL: 'https://example.com',
        TURNSTILE_SECRET_KEY: undefined,
      })
    ).request('/ready')
    expect(notReady.status).toBe(503)
    const nb = await notReady.json()
    expect(nb.ready).toBe(false)
    expect(nb.checks.turnstile_secret_configured).toBe(false)
    expect(nb.notes.join(' ')).toContain('TURNSTILE_SECRET_KEY')
  })

  test('GET /ready asks the database at most once per STATUS_MAX_AGE_MS: a failing one is 503 within it', async () => {
    const u = await boot()
    expect((await u.request('/ready')).status).toBe(200)
    const asked = performance.now()
    await u.storage.close()
    const soon = await u.request('/ready')
    // Within the bound the last answer stands: the database is not asked per request.
    if (performance.now() - asked < STATUS_MAX_AGE_MS) expect(soon.status).toBe(200)
    await Bun.sleep(STATUS_MAX_AGE_MS + 20)
    const res = await u.request('/ready')
    expect(res.status).toBe(503)
    const body = await res.json()
    expect(body.checks.contact_intake_surface_present).toBe(false)
    expect(body.notes.join(' ')).toContain('the intake database is not answering')
  })

  test('GET /ready reports a public directory without the pages', async () => {
    const res = await (await boot({ WEB_PUBLIC_DIR: import.meta.dir })).request('/ready')
    expect(res.status).toBe(503)
    expect((await res.json()).checks.public_routes_expected).toBe(false)
  })

  test('GET /version.json and /status.json', async () => {
    const u = await boot()
    const version = await (await u.request('/version.json')).json()
    expect(Value.Check(VersionDocument, version)).toBe(true)
    expect(version.version).toBe(u.ctx.version)
    expect(version.update.image_tag).toMatch(/^sha-/)
    await contact(u, GOOD)
    const status = await (await u.request('/status.json')).json()
    expect(Value.Check(StatusDocument, status)).toBe(true)
    expect(status.status).toBe('operational')
    expect(status.contact_intake.intakes_stored).toBe(1)
    expect(status.contact_intake.delivery_mode).toBe('mailto')
  })

  test('there is no dynamic /version endpoint', async () => {
    const res = await (await boot()).request('/version')
    expect(res.status).toBe(404)
    expect((await res.json()).error.code).toBe('not_found')
  })

  test('the contract file is the schema the route enforces', async () => {
    const u = await boot()
    const contract = await (await u.request('/contracts/contact-intake.contract.json')).json()
    expect(contract.required_fields).toEqual(['name', 'email', 'interest', 'message'])
    expect(contract.challenge.field).toBe('cf-turnstile-response')
    expect(contract.honeypot.field).toBe('website')
    // A body that violates the published schema's limit is refused by the route.
    const max = contract.request_schema.properties.name.maxLength
    const res = await contact(u, { ...GOOD, name: 'x'.repeat(max + 1) })
    expect(res.status).toBe(400)
    for (const e of contract.errors) expect(typeof e.status).toBe('number')
  })
})

describe('POST /api/contact', () => {
  test('JSON intake is verified, stored before the answer, and answered with mailto', async () => {
    const u = await boot()
    const res = await contact(u, { ...GOOD, company: 'Analytical Engines', source_page: '/contact.html' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({
      ok: true,
      intake_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      delivery: 'mailto',
      message: expect.any(String),
    })
    const rows = await intakeRows(u)
    expect(rows).toHaveLength(1)
    expect(rows[0]?.intake_id).toBe(body.intake_id)
    expect(rows[0]?.optional).toEqual({
      company: 'Analytical Engines',
      source_page: '/contact.html',
    })
    const sent = siteverify.requests.at(-1)
    const form = new URLSearchParams(sent?.body)
    expect(form.get('secret')).toBe(SECRET)
    expect(form.get('response')).toBe('good-token')
  })

  test('multipart and urlencoded forms are accepted', async () => {
    const u = await boot()
    const fd = new FormData()
    for (const [k, v] of Object.entries({ ...GOOD, 'cf-turnstile-response': 'good-token' })) fd.set(k, v)
    const multipart = await u.request('/api/contact', { method: 'POST', body: fd })
    expect(multipart.status).toBe(200)
    const urlencoded = await u.request('/api/contact', {
      method: 'POST',
      body: new URLSearchParams({ ...GOOD, 'cf-turnstile-response': 'good-token' }),
    })
    expect(urlencoded.status).toBe(200)
    expect(await intakeRows(u)).toHaveLength(2)
  })

  test('mailto_fallback when CONTACT_MAILTO is set and no webhook', async () => {
    const u = await boot({ CONTACT_MAILTO: 'hello@example.com' })
    const body = await (await contact(u, GOOD)).json()
    expect(body.delivery).toBe('mailto_fallback')
    expect(body.message).toContain('hello@example.com')
  })

  test.each([
    ['missing fields', { name: 'Ada' }, 'validation_failed'],
    ['blank name', { ...GOOD, name: '   ' }, 'validation_failed'],
    ['bad e-mail', { ...GOOD, email: 'ada-at-example' }, 'validation_failed'],
    ['message too long', { ...GOOD, message: 'm'.repeat(5001) }, 'validation_failed'],
    ['wrong type', { ...GOOD, interest: 42 }, 'validation_failed'],
  ])('%s is a 400 envelope and stores nothing', async (_, body, code) => {
    const u = await boot()
    const res = await contact(u, body)
    expect(res.status).toBe(400)
    const b = await res.json()
    expect(b.error.code).toBe(code)
    expect(typeof b.error.message).toBe('string')
    expect(await intakeRows(u)).toHaveLength(0)
  })

  test('missing token is 401 and siteverify is not called', async () => {
    const u = await boot()
    const before = siteverify.requests.length
    const res = await u.send('POST', '/api/contact', GOOD)
    expect(res.status).toBe(401)
    expect((await res.json()).error.code).toBe('turnstile_token_missing')
    expect(siteverify.requests.length).toBe(before)
  })

  test('a rejected token is 401 with the siteverify error codes kept', async () => {
    const u = await boot()
    const res = await contact(u, { ...GOOD, 'cf-turnstile-response': 'bad-token' })
    expect(res.status).toBe(401)
    const body = await res.json()
    expect(body.error.code).toBe('turnstile_verification_failed')
    expect(body.error.details.error_codes).toEqual(['invalid-input-response'])
    expect(await intakeRows(u)).toHaveLength(0)
  })

  test('the honeypot refuses with 422 before any verification', async () => {
    const u = await boot()
    const before = siteverify.requests.length
    const res = await contact(u, { ...GOOD, website: 'http://spam.example' })
    expect(res.status).toBe(422)
    expect((await res.json()).error.code).toBe('honeypot_triggered')
    expect(siteverify.requests.length).toBe(before)
    expect(await intakeRows(u)).toHaveLength(0)
  })

  test('fails closed with 503 when siteverify is unreachable or slow', async () => {
    const down = await boot({ TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify' })
    const res = await contact(down, GOOD)
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe('turnstile_unavailable')
    await unit?.dispose()
    const slow = fakePeer(async () => {
      await Bun.sleep(500)
      return json({ success: true })
    })
    try {
      const u = await boot({ TURNSTILE_VERIFY_URL: slow.url, TURNSTILE_TIMEOUT_MS: '100' })
      const r = await contact(u, GOOD)
      expect(r.status).toBe(503)
      expect(await intakeRows(u)).toHaveLength(0)
    } finally {
      slow.stop()
    }
  })

  test('an answer that is not siteverify JSON is a refusal, never a pass', async () => {
    const odd = fakePeer(() => new Response('<html>ok</html>', { headers: { 'content-type': 'text/html' } }))
    try {
      const res = await contact(await boot({ TURNSTILE_VERIFY_URL: odd.url }), GOOD)
      expect(res.status).toBe(503)
    } finally {
      odd.stop()
    }
  })

  test('outside production (here: test) no secret means the always-pass test secret', async () => {
    const u = await boot({ TURNSTILE_SECRET_KEY: undefined })
    expect((await contact(u, GOOD)).status).toBe(200)
    expect((await (await u.request('/ready')).json()).notes.join(' ')).toContain('always-pass test secret')
  })

  test('Cloudflare test secrets are answered locally outside production', async () => {
    const pass = await contact(
      await boot({ TURNSTILE_SECRET_KEY: '1x0000000000000000000000000000000AA' }),
      GOOD,
    )
    expect(pass.status).toBe(200)
    await unit?.dispose()
    const fail = await contact(
      await boot({ TURNSTILE_SECRET_KEY: '2x0000000000000000000000000000000AA' }),
      GOOD,
    )
    expect(fail.status).toBe(401)
    expect((await fail.json()).error.details.error_codes).toEqual(['invalid-input-response'])
  })

  test.each([
    ['text/plain', 'hello'],
    ['application/xml', '<a/>'],
  ])('content type %s is a 415 envelope', async (type, body) => {
    const res = await (await boot()).request('/api/contact', {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    })
    expect(res.status).toBe(415)
    expect((await res.json()).error.code).toBe('unsupported_media_type')
  })

  test('malformed JSON is a 400 envelope', async () => {
    const res = await (await boot()).request('/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":',
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('malformed_body')
  })

  test('an oversize body is a 413 envelope', async () => {
    const res = await (await boot({ SVC_MAX_BODY_BYTES: '2048' })).request('/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
      body: JSON.stringify({ ...GOOD, message: 'm'.repeat(4900) }),
    })
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('payload_too_large')
  })

  test('intakes survive a restart', async () => {
    const u = await boot()
    const { intake_id } = await (await contact(u, GOOD)).json()
    const again = await u.restart()
    unit = again
    const status = await (await again.request('/status.json')).json()
    expect(status.contact_intake.intakes_stored).toBe(1)
    expect(((await intakeRows(again)) as { intake_id: string }[])[0]?.intake_id).toBe(intake_id)
  })
})

describe('webhook delivery', () => {
  const HOOK_SECRET = 'contact-webhook-secret-0123456789'

  test('forwards a signed payload with platform_event and marks it delivered', async () => {
    const eis = fakePeer(() => json({ ok: true }))
    try {
      const u = await boot({ CONTACT_WEBHOOK_URL: `${eis.url}/hook`, CONTACT_WEBHOOK_SECRET: HOOK_SECRET })
      const res = await contact(u, { ...GOOD, locale: 'en-GB' })
      const { intake_id, delivery } = await res.json()
      expect(delivery).toBe('webhook')
      await (u.background[0] as unknown as { runOnce(): Promise<number> }).runOnce()
      expect(eis.requests).toHaveLength(1)
      const sent = eis.requests[0]!
      expect(sent.headers.get('x-signature')).toBe(hmacSha256Hex(HOOK_SECRET, sent.body))
      const payload = JSON.parse(sent.body)
      expect(Object.keys(payload).sort()).toEqual([
        'contact',
        'interest',
        'platform_event',
        'profiling',
        'site',
      ])
      expect(payload.contact).toEqual({ name: GOOD.name, email: GOOD.email, message: GOOD.message })
      expect(payload.interest).toBe('support')
      expect(payload.profiling.locale).toBe('en-GB')
      expect(payload.platform_event.intake_id).toBe(intake_id)
      const status = await (await u.request('/status.json')).json()
      expect(status.contact_intake.deliveries_delivered).toBe(1)
      expect(status.contact_intake.deliveries_pending).toBe(0)
    } finally {
      eis.stop()
    }
  })

  test('a failed delivery stays in the outbox, survives a restart, and is retried byte-identically', async () => {
    const eis = fakePeer(() => json({ error: 'down' }, 502))
    try {
      const env = {
        CONTACT_WEBHOOK_URL: `${eis.url}/hook`,
        CONTACT_WEBHOOK_SECRET: HOOK_SECRET,
        CONTACT_OUTBOX_POLL_MS: '50',
      }
      const u = await boot(env)
      await contact(u, GOOD)
      const outbox = () => unit?.background[0] as unknown as { runOnce(): Promise<number> }
      await outbox().runOnce()
      const status = await (await u.request('/status.json')).json()
      expect(status.contact_intake.deliveries_pending).toBe(1)
      expect(status.contact_intake.last_delivery_error).toContain('bad_status')
      unit = await u.restart()
      eis.respond(() => json({ ok: true }))
      // The retry is scheduled with backoff; wait for it to come due.
      const deadline = Date.now() + 5000
      while (eis.requests.length < 2 && Date.now() < deadline) {
        await Bun.sleep(100)
        await outbox().runOnce()
      }
      expect(eis.requests.length).toBe(2)
      expect(eis.requests[1]?.body).toBe(eis.requests[0]?.body)
      const after = await (await unit.request('/status.json')).json()
      expect(after.contact_intake.deliveries_delivered).toBe(1)
    } finally {
      eis.stop()
    }
  })
})

describe('configuration', () => {
  test('webhook URL without secret is refused at start', () => {
    expect(() => bootForTest(web, { CONTACT_WEBHOOK_URL: 'http://127.0.0.1:1/hook' })).toThrow(
      /CONTACT_WEBHOOK_SECRET/,
    )
  })

  test('production refuses test secrets and a missing PUBLIC_BASE_URL, naming each variable', () => {
    let message = ''
    try {
      bootForTest(web, { SVC_ENV: 'production', TURNSTILE_SECRET_KEY: '1x0000000000000000000000000000000AA' })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('PUBLIC_BASE_URL')
    expect(message).toContain('TURNSTILE_SECRET_KEY')
    expect(message).not.toContain('1x0000')
  })
})

describe('public site', () => {
  test('serves the pages with the dev token outside production and a 404 page for browsers', async () => {
    const u = await boot()
    const page = await u.request('/contact.html')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html).toContain('action="/api/contact"')
    expect(html).toContain('content="XXXX.DUMMY.TOKEN.XXXX"')
    expect((await u.request('/')).status).toBe(200)
    expect((await u.request('/assets/site.css')).headers.get('content-type')).toContain('text/css')
    const missing = await u.request('/nope.html', { headers: { accept: 'text/html' } })
    expect(missing.status).toBe(404)
    expect(await missing.text()).toContain('Page not found')
    const traversal = await u.request('/..%2f..%2fpackage.json')
    expect(traversal.status).toBe(404)
  })

  test('a configured site key replaces the dev token', async () => {
    const html = await (
      await (await boot({ TURNSTILE_SITE_KEY: '0x4AAAA-site-key' })).request('/contact.html')
    ).text()
    expect(html).toContain('content="0x4AAAA-site-key"')
    expect(html).not.toContain('DUMMY')
  })

  test('WEB_PUBLIC_DIR serves a directory and never outside it', async () => {
    const u = await boot({ WEB_PUBLIC_DIR: join(import.meta.dir, 'public') })
    expect((await u.request('/index.html')).status).toBe(200)
    expect((await u.request('/%2e%2e/index.ts')).status).toBe(404)
  })
})

describe('wire conventions', () => {
  test('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const u = await boot()
    const echoed = await u.request('/health', { headers: { 'x-request-id': 'abc-123' } })
    expect(echoed.headers.get('x-request-id')).toBe('abc-123')
    const replaced = await u.request('/health', { headers: { 'x-request-id': 'bad id with spaces!' } })
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('unknown routes and methods are 404 envelopes', async () => {
    const u = await boot()
    const res = await u.request('/api/nothing', { method: 'POST' })
    expect(res.status).toBe(404)
    expect((await res.json()).error.code).toBe('not_found')
  })

  test('GET /metrics is Prometheus text with svc_ names', async () => {
    const u = await boot()
    await u.request('/health')
    const res = await u.request('/metrics')
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
    const text = await res.text()
    expect(text).toContain('svc_http_requests_total')
    expect(text).toContain('svc_contact_outbox_pending')
  })

  test('GET /openapi.json documents every route with the form content types on the contact route', async () => {
    const doc = await (await (await boot()).request('/openapi.json')).json()
    expect(doc.openapi).toBe('3.1.0')
    for (const path of ['/health', '/ready', '/version.json', '/status.json', '/api/contact', '/metrics']) {
      expect(doc.paths[path]).toBeDefined()
    }
    expect(Object.keys(doc.paths['/api/contact'].post.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ])
  })
})

describe('development without a Turnstile secret (quick start)', () => {
  test("uses Cloudflare's always-pass test secret and says so in /ready notes and the start-up log", async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const dev = bootForTest(
      web,
      { SVC_ENV: 'development', TURNSTILE_SECRET_KEY: undefined },
      undefined,
      createLogger('web', 'info', sink),
    )
    try {
      const ready = await dev.request('/ready')
      expect(ready.status).toBe(200)
      const body = await ready.json()
      expect(body.checks.turnstile_secret_configured).toBe(true)
      expect(body.notes.join(' ')).toContain('always-pass test secret')
      expect(lines.join('')).toContain('always-pass test secret')
      expect((await contact(dev, GOOD)).status).toBe(200)
    } finally {
      await dev.dispose()
    }
  })

  test('production without a secret stays strict', async () => {
    const prod = bootForTest(web, {
      SVC_ENV: 'production',
      PUBLIC_BASE_URL: 'https://example.com',
      TURNSTILE_SECRET_KEY: undefined,
    })
    try {
      expect((await prod.request('/ready')).status).toBe(503)
      expect((await (await contact(prod, GOOD)).json()).error.code).toBe('turnstile_not_configured')
    } finally {
      await prod.dispose()
    }
  })
})

import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { documentOf, type TestResponse, wired } from '../test/harness.ts'
import { hmacSha256Hex } from './hash.ts'
import {
  hmacHex,
  paddle,
  rawBodyPlugin,
  rawBodyRouteKeys,
  replayCache,
  signaturePlugin,
  signBody,
  verifySignature,
} from './signature.ts'

const SECRET = 'whsec-current-0123456789'
const OLD_SECRET = 'whsec-previous-0123456789'
const NOW = 1_760_000_000_000

function signedApp(secrets: (string | undefined)[] = [SECRET, OLD_SECRET]) {
  const signatures = signaturePlugin({
    hookSignature: { profile: hmacHex('X-Hub-Signature-256'), secrets },
    paddleSignature: { profile: paddle(), secrets },
  })
  const routes = new Elysia()
    .use(signatures)
    .use(rawBodyPlugin)
    .post('/hook', ({ body, rawBody }) => ({ amount: body.amount, raw: rawBody.text }), {
      signed: 'hookSignature',
      body: t.Object({ amount: t.Integer() }),
      response: t.Object({ amount: t.Integer(), raw: t.String() }),
    })
    .post('/paddle', ({ rawBody }) => ({ bytes: rawBody.bytes.length }), {
      signed: 'paddleSignature',
      body: t.Unknown(),
      response: t.Object({ bytes: t.Integer() }),
    })
    .post('/raw', ({ body, rawBody }) => ({ body, bytes: Array.from(rawBody.bytes) }), {
      rawBody: true,
      body: t.Unknown(),
      response: t.Object({ body: t.Unknown(), bytes: t.Array(t.Integer()) }),
    })
    .post('/plain', ({ body }) => ({ body }), {
      body: t.Unknown(),
      response: t.Object({ body: t.Unknown() }),
    })
  return { app: wired(routes), routes, signatures }
}

const post = (
  app: { handle(r: Request): Promise<Response> },
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<TestResponse> =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }),
  )

const paddleHeader = (secret: string, body: string, ts: number) =>
  `ts=${ts};h1=${hmacSha256Hex(secret, `${ts}:${body}`)}`

describe('verifySignature (pure)', () => {
  const body = '{"amount":5}'
  const hex = hmacSha256Hex(SECRET, body)

  test('hex HMAC: bare, sha256= prefixed and upper case are accepted; any other body is not', () => {
    const p = hmacHex()
    expect(verifySignature(p, [SECRET], body, { 'X-Signature': hex }).ok).toBe(true)
    expect(verifySignature(p, [SECRET], body, { 'x-signature': `sha256=${hex.toUpperCase()}` }).ok).toBe(true)
    expect(verifySignature(p, [SECRET], `${body} `, { 'x-signature': hex })).toMatchObject({
      ok: false,
      code: 'signature_invalid',
    })
    expect(verifySignature(p, [SECRET], body, {})).toMatchObject({ ok: false, code: 'signature_missing' })
    expect(verifySignature(p, [SECRET], body, { 'x-signature': 'abc' })).toMatchObject({
      code: 'signature_invalid',
    })
  })

  test('rotation: a signature by any active secret passes; unset secrets are ignored', () => {
    const byOld = hmacSha256Hex(OLD_SECRET, body)
    expect(
      verifySignature(hmacHex(), [SECRET, undefined, '', OLD_SECRET], body, { 'x-signature': byOld }).ok,
    ).toBe(true)
    expect(verifySignature(hmacHex(), [SECRET], body, { 'x-signature': byOld }).ok).toBe(false)
    expect(verifySignature(hmacHex(), [], body, { 'x-signature': hex }).ok).toBe(false)
  })

  test('Paddle: ts;h1 over "<ts>:<body>", several h1, a tolerance window both ways', () => {
    const ts = NOW / 1000
    const good = paddleHeader(SECRET, body, ts)
    const headers = (value: string) => new Headers({ 'Paddle-Signature': value })
    expect(verifySignature(paddle(), [SECRET], body, headers(good), NOW)).toMatchObject({
      ok: true,
      timestamp: ts,
    })
    // Paddle sends one h1 per secret during a rotation: any one matching is enough.
    const rotated = `ts=${ts};h1=${'0'.repeat(64)};h1=${good.split('h1=')[1]}`
    expect(verifySignature(paddle(), [SECRET], body, headers(rotated), NOW).ok).toBe(true)
    expect(verifySignature(paddle(), [SECRET], body, headers(good), NOW + 301_000)).toMatchObject({
      code: 'signature_expired',
    })
    expect(verifySignature(paddle(), [SECRET], body, headers(good), NOW - 301_000)).toMatchObject({
      code: 'signature_expired',
    })
    expect(verifySignature(paddle(), [SECRET], body, headers(good), NOW + 299_000).ok).toBe(true)
    // The timestamp is signed: moving it into the window breaks the signature.
    const moved = good.replace(`ts=${ts}`, `ts=${ts + 10}`)
    expect(verifySignature(paddle(), [SECRET], body, headers(moved), NOW)).toMatchObject({
      code: 'signature_invalid',
    })
    for (const bad of [`h1=${'a'.repeat(64)}`, `ts=abc;h1=${'a'.repeat(64)}`, `ts=${ts}`, 'garbage']) {
      expect(verifySignature(paddle(), [SECRET], body, headers(bad), NOW)).toMatchObject({
        code: 'signature_invalid',
      })
    }
  })

  test('signBody produces what verifySignature accepts, for both profiles', () => {
    for (const profile of [hmacHex(), hmacHex('X-Hub-Signature-256'), paddle()]) {
      const headers = signBody(profile, SECRET, body, NOW)
      expect(verifySignature(profile, [SECRET], body, headers, NOW).ok).toBe(true)
      expect(verifySignature(profile, [OLD_SECRET], body, headers, NOW).ok).toBe(false)
    }
    expect(signBody(hmacHex(), SECRET, body)).toEqual({ 'x-signature': hex })
  })

  test('the replay cache remembers accepted keys until they expire, and stays bounded', () => {
    const cache = replayCache(1000, 3)
    expect(cache.seen('a', 0)).toBe(false)
    expect(cache.seen('a', 500)).toBe(true)
    expect(cache.seen('a', 1001)).toBe(false)
    for (const k of ['b', 'c', 'd', 'e']) cache.seen(k, 1002)
    expect(cache.size).toBe(3)
  })
})

describe('signed routes', () => {
  const body = '{"amount":5}'

  test('a signed request passes and the handler sees the exact bytes beside the parsed body', async () => {
    const { app } = signedApp()
    const res = await post(app, '/hook', body, signBody(hmacHex('X-Hub-Signature-256'), OLD_SECRET, body))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ amount: 5, raw: body })
  })

  test('refusals are 401 envelopes with distinct codes, before the body is validated', async () => {
    const { app } = signedApp()
    const cases: [Record<string, string>, string][] = [
      [{}, 'signature_missing'],
      [{ 'x-hub-signature-256': `sha256=${hmacSha256Hex('wrong', body)}` }, 'signature_invalid'],
    ]
    for (const [headers, code] of cases) {
      const res = await post(app, '/hook', '{"amount":"not a number"}', headers)
      expect(res.status).toBe(401)
      const text = await res.text()
      expect(JSON.parse(text).error.code).toBe(code)
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain(hmacSha256Hex(SECRET, '{"amount":"not a number"}'))
    }
    // Malformed JSON behind no signature is still a 401: nothing is parsed for an unsigned caller.
    expect((await post(app, '/hook', '{not json')).status).toBe(401)
  })

  test('a valid signature over a bad body gets the usual 400 (checked with the same JSON rules)', async () => {
    const { app } = signedApp()
    const sign = (b: string) => signBody(hmacHex('X-Hub-Signature-256'), SECRET, b)
    const wrongType = await post(app, '/hook', '{"amount":"x"}', sign('{"amount":"x"}'))
    expect(wrongType.status).toBe(400)
    expect((await wrongType.json()).error.code).toBe('validation_failed')
    const surrogate = '{"amount":1,"n":"\\ud800"}'
    const lone = await post(app, '/hook', surrogate, sign(surrogate))
    expect((await lone.json()).error.code).toBe('invalid_unicode')
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`
    expect((await (await post(app, '/hook', deep, sign(deep))).json()).error.code).toBe('body_too_deep')
  })

  test('Paddle: expired and replayed signatures are refused', async () => {
    const { app } = signedApp()
    const now = Math.floor(Date.now() / 1000)
    const fresh = paddleHeader(SECRET, body, now)
    expect((await post(app, '/paddle', body, { 'paddle-signature': fresh })).status).toBe(200)
    const replay = await post(app, '/paddle', body, { 'paddle-signature': fresh })
    expect(replay.status).toBe(401)
    expect((await replay.json()).error.code).toBe('signature_replayed')
    const old = await post(app, '/paddle', body, {
      'paddle-signature': paddleHeader(SECRET, body, now - 600),
    })
    expect((await old.json()).error.code).toBe('signature_expired')
    const future = await post(app, '/paddle', body, {
      'paddle-signature': paddleHeader(SECRET, body, now + 600),
    })
    expect((await future.json()).error.code).toBe('signature_expired')
  })

  test('no secret configured: unsigned is 401, signed is 503 (fails closed)', async () => {
    const { app } = signedApp([undefined, ''])
    expect((await post(app, '/hook', body)).status).toBe(401)
    const res = await post(app, '/hook', body, signBody(hmacHex('X-Hub-Signature-256'), SECRET, body))
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe('signature_not_configured')
  })

  test('rawBody: true keeps the exact bytes, even ones request.text() would rewrite', async () => {
    const { app } = signedApp()
    // A UTF-8 BOM before the JSON: text() drops it, the raw bytes keep it.
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}')])
    const res = await post(app, '/raw', bytes)
    expect(res.status).toBe(200)
    const got = await res.json()
    expect(got.body).toEqual({ a: 1 })
    expect(got.bytes).toEqual(Array.from(bytes))
    const deep = await post(app, '/raw', `${'['.repeat(100)}${']'.repeat(100)}`)
    expect((await deep.json()).error.code).toBe('body_too_deep')
    // The content-type rule still applies to raw routes.
    const text = await app.handle(
      new Request('http://localhost/raw', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
    )
    expect(text.status).toBe(415)
  })

  test('only opted-in routes are left unread by wire; others parse as before', async () => {
    const { app, routes } = signedApp()
    expect(rawBodyRouteKeys(routes).sort()).toEqual(['POST /hook', 'POST /paddle', 'POST /raw'])
    const res = await post(app, '/plain', '{"a":[1]}')
    expect(await res.json()).toEqual({ body: { a: [1] } })
  })

  test('a raw-body route wire was not told about fails loudly instead of verifying nothing', async () => {
    const { routes } = signedApp()
    const app = wired(routes, { rawBody: false })
    const res = await post(app, '/raw', '{"a":1}')
    expect(res.status).toBe(500)
    expect((await res.json()).error.code).toBe('raw_body_unavailable')
  })

  test('the OpenAPI document declares each signed route with its header scheme', async () => {
    const { app, signatures } = signedApp()
    const doc = await documentOf(app, signatures.securitySchemes)
    expect(doc.paths['/hook']?.post?.security).toEqual([{ hookSignature: [] }])
    expect(doc.paths['/paddle']?.post?.security).toEqual([{ paddleSignature: [] }])
    expect(doc.paths['/plain']?.post?.security).toBeUndefined()
    expect(doc.components.securitySchemes).toMatchObject({
      hookSignature: { type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256' },
      paddleSignature: { type: 'apiKey', in: 'header', name: 'Paddle-Signature' },
    })
  })
})

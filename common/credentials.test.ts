import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { documentOf, type TestResponse, wired } from '../test/harness.ts'
import { type Credential, credentials, generateApiKey, hashApiKey } from './credentials.ts'

const INTERNAL = 'internal-token-0123456789'
const PREVIOUS = 'internal-token-previous-99'
const MCP = 'mcp-key-0123456789'
const API_KEY = generateApiKey('nds')
/** The unit's key store: SHA-256 hex → key id. */
const keyStore = new Map([[hashApiKey(API_KEY), 'key-1']])

function app(open: { SVC_API_TOKEN?: string } = {}, lookups: string[] = []) {
  const schemes = {
    internal: { kind: 'bearer', tokens: [INTERNAL, PREVIOUS, undefined], description: 'EIS_INTERNAL_TOKEN' },
    mcp: { kind: 'header', header: 'X-SVC-Key', keys: [MCP] },
    apiKey: {
      kind: 'apiKey',
      lookup: async (hash: string) => {
        lookups.push(hash)
        return keyStore.get(hash)
      },
    },
    svc: { kind: 'bearer', tokens: [open.SVC_API_TOKEN], openWhenUnset: true },
    unset: { kind: 'bearer', tokens: [undefined] },
  } satisfies Record<string, Credential>
  const creds = credentials(schemes)
  const body = t.Object({ n: t.Integer() })
  const Who = t.Object({
    principal: t.Union([t.Object({ scheme: t.String(), subject: t.String() }), t.Null()]),
  })
  const routes = new Elysia()
    .use(creds)
    .post('/internal', ({ principal }) => ({ principal }), { auth: 'internal', body, response: Who })
    .get('/either', ({ principal }) => ({ principal }), { auth: ['internal', 'mcp'], response: Who })
    .get('/keyed', ({ principal }) => ({ principal }), { auth: 'apiKey', response: Who })
    .get('/wta', ({ principal }) => ({ principal }), { auth: 'svc', response: Who })
    .get('/unset', ({ principal }) => ({ principal }), { auth: 'unset', response: Who })
    .get('/open', () => ({ principal: null }), { response: Who })
  return { app: wired(routes), creds }
}

const get = (
  a: { handle(r: Request): Promise<Response> },
  path: string,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<TestResponse> => a.handle(new Request(`http://localhost${path}`, { headers, ...init }))

const bearerOf = (token: string) => ({ authorization: `Bearer ${token}` })

describe('credentials', () => {
  test('a static bearer token (any of the configured ones) is admitted with its scheme as subject', async () => {
    const { app: a } = app()
    for (const token of [INTERNAL, PREVIOUS]) {
      const res = await a.handle(
        new Request('http://localhost/internal', {
          method: 'POST',
          headers: { ...bearerOf(token), 'content-type': 'application/json' },
          body: '{"n":1}',
        }),
      )
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ principal: { scheme: 'internal', subject: 'internal' } })
    }
  })

  test('missing or wrong: 401 unauthorized with WWW-Authenticate, before the body is validated', async () => {
    const { app: a } = app()
    const send = (headers: Record<string, string>) =>
      a.handle(
        new Request('http://localhost/internal', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: '{"n":"not an integer"}',
        }),
      )
    const cases: [Record<string, string>, string][] = [
      [{}, 'Bearer'],
      [bearerOf('nope'), 'Bearer error="invalid_token"'],
      [bearerOf(`${INTERNAL}x`), 'Bearer error="invalid_token"'],
      [bearerOf(INTERNAL.slice(0, -1)), 'Bearer error="invalid_token"'],
      [{ authorization: `Basic ${btoa(`u:${INTERNAL}`)}` }, 'Bearer'],
      [bearerOf('x'.repeat(5000)), 'Bearer error="invalid_token"'],
    ]
    for (const [headers, challenge] of cases) {
      const res = await send(headers)
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe(challenge)
      const text = await res.text()
      expect(JSON.parse(text).error.code).toBe('unauthorized')
      expect(text).not.toContain(INTERNAL)
    }
  })

  test('a token in the access_token query parameter is not accepted', async () => {
    const { app: a } = app()
    expect((await get(a, `/either?access_token=${INTERNAL}`)).status).toBe(401)
  })

  test('header keys: X-SVC-Key; several schemes on one route admit any one of them', async () => {
    const { app: a } = app()
    const byKey = await get(a, '/either', { 'x-svc-key': MCP })
    expect(await byKey.json()).toEqual({ principal: { scheme: 'mcp', subject: 'mcp' } })
    expect((await get(a, '/either', bearerOf(INTERNAL))).status).toBe(200)
    const wrong = await get(a, '/either', { 'x-svc-key': 'wrong' })
    expect(wrong.status).toBe(401)
    expect((await get(a, '/either')).status).toBe(401)
  })

  test('hashed API keys: the unit looks up the SHA-256 hex, never the key; unknown keys are 401', async () => {
    const lookups: string[] = []
    const { app: a } = app({}, lookups)
    const ok = await get(a, '/keyed', bearerOf(API_KEY))
    expect(await ok.json()).toEqual({ principal: { scheme: 'apiKey', subject: 'key-1' } })
    expect(lookups).toEqual([hashApiKey(API_KEY)])
    expect(lookups[0]).toMatch(/^[0-9a-f]{64}$/)
    expect((await get(a, '/keyed', bearerOf(generateApiKey('nds')))).status).toBe(401)
    expect(API_KEY).toMatch(/^nds_[A-Za-z0-9_-]{43}$/)
  })

  test('open when unset: no token configured means open; once set, the token is required', async () => {
    const open = app()
    expect(await (await get(open.app, '/wta')).json()).toEqual({ principal: null })
    const closed = app({ SVC_API_TOKEN: 'wta-token-0123' })
    expect((await get(closed.app, '/wta')).status).toBe(401)
    expect((await get(closed.app, '/wta', bearerOf('wta-token-0123'))).status).toBe(200)
  })

  test('a scheme with nothing configured fails closed: 401 without credentials, 503 with one', async () => {
    const { app: a } = app()
    expect((await get(a, '/unset')).status).toBe(401)
    const res = await get(a, '/unset', bearerOf('anything'))
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe('credentials_not_configured')
  })

  test('the OpenAPI document declares security exactly where it is enforced', async () => {
    for (const env of [{}, { SVC_API_TOKEN: 'wta-token-0123' }]) {
      const { app: a, creds } = app(env)
      const doc = await documentOf(a, creds.securitySchemes)
      expect(doc.components.securitySchemes).toMatchObject({
        internal: { type: 'http', scheme: 'bearer', description: 'EIS_INTERNAL_TOKEN' },
        mcp: { type: 'apiKey', in: 'header', name: 'X-SVC-Key' },
        apiKey: { type: 'http', scheme: 'bearer' },
      })
      // The same rule test/surfaces.test.ts applies to every unit: declared <=> anonymous gets 401.
      for (const [path, item] of Object.entries(
        doc.paths as Record<string, Record<string, { security?: unknown[] }>>,
      )) {
        for (const [method, op] of Object.entries(item)) {
          const init = {
            method: method.toUpperCase(),
            body: '{}',
            headers: { 'content-type': 'application/json' },
          }
          const res = await get(a, path, {}, method === 'get' ? {} : init)
          expect({ path, secured: res.status === 401 }).toEqual({ path, secured: Boolean(op.security) })
        }
      }
      expect(doc.paths['/either']?.get?.security).toEqual([{ internal: [] }, { mcp: [] }])
    }
  })
})

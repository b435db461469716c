import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { SignJWT } from 'jose'
import { documentOf, type TestResponse, wired } from '../test/harness.ts'
import {
  clearSessionCookie,
  issueSession,
  type Role,
  readSession,
  SESSION_COOKIE,
  type SessionOptions,
  sessionConfigProblems,
  sessionOptions,
  sessionPlugin,
  setSessionCookie,
} from './session.ts'

const SECRET = 'session-secret-0123456789abcdef0123'
const OPTS = { secret: SECRET, maxAgeS: 3600, secure: true } satisfies SessionOptions
const HOUR_MS = 3_600_000

function app(opts: SessionOptions = OPTS) {
  const sessions = sessionPlugin(opts)
  const Who = t.Object({ sub: t.String(), role: t.String() })
  const routes = new Elysia()
    .use(sessions)
    .get('/view', ({ session }) => ({ sub: session.sub, role: session.role }), {
      session: 'viewer',
      response: Who,
    })
    .post('/work', ({ session }) => ({ sub: session.sub, role: session.role }), {
      session: 'operator',
      body: t.Object({ n: t.Integer() }),
      response: Who,
    })
    .get('/admin', ({ session }) => ({ sub: session.sub, role: session.role }), {
      session: 'admin',
      response: Who,
    })
    .post(
      '/login',
      async ({ body, cookie }) => {
        setSessionCookie(cookie, opts, await issueSession(opts, { sub: body.sub, role: body.role }))
        return { ok: true }
      },
      {
        body: t.Object({
          sub: t.String(),
          role: t.Union([t.Literal('viewer'), t.Literal('operator'), t.Literal('admin')]),
        }),
      },
    )
    .post('/logout', ({ cookie }) => {
      clearSessionCookie(cookie, opts)
      return { ok: true }
    })
  return { app: wired(routes), sessions }
}

const withCookie = (
  a: { handle(r: Request): Promise<Response> },
  path: string,
  token?: string,
  init: RequestInit = {},
): Promise<TestResponse> =>
  a.handle(
    new Request(`http://localhost${path}`, {
      ...init,
      headers: { ...(token !== undefined && { cookie: `${SESSION_COOKIE}=${token}` }), ...init.headers },
    }),
  )

const code = async (res: TestResponse) => ({ status: res.status, code: (await res.json()).error?.code })

describe('readSession', () => {
  const now = Date.now()

  test('an issued session reads back with its claims', async () => {
    const token = await issueSession(OPTS, { sub: 'op-1', role: 'operator' }, now)
    expect(token.split('.')).toHaveLength(3)
    const check = await readSession(OPTS, token, now + 1000)
    expect(check).toMatchObject({ ok: true, session: { sub: 'op-1', role: 'operator' } })
    if (!check.ok) throw new Error('unreachable')
    expect(check.session.exp - check.session.iat).toBe(3600)
    expect(check.session.auth_time).toBe(check.session.iat)
  })

  test('stale by exp, stale by auth_time, invalid by signature or algorithm', async () => {
    const token = await issueSession(OPTS, { sub: 'op-1', role: 'admin' }, now)
    expect(await readSession(OPTS, token, now + HOUR_MS + 10_000)).toMatchObject({ code: 'session_stale' })
    // Re-issued an hour later, the session keeps its sign-in time, which is now too old.
    const authTime = Math.floor((now - 2 * HOUR_MS) / 1000)
    const reissued = await issueSession(OPTS, { sub: 'op-1', role: 'admin', authTime }, now)
    expect(await readSession(OPTS, reissued, now)).toMatchObject({ code: 'session_stale' })
    expect(await readSession({ ...OPTS, secret: `${SECRET}x` }, token, now)).toMatchObject({
      code: 'session_invalid',
    })
    const [header, payload] = token.split('.')
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`
    expect(await readSession(OPTS, none, now)).toMatchObject({ code: 'session_invalid' })
    const hs512 = await new SignJWT({ role: 'admin', auth_time: Math.floor(now / 1000) })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('op-1')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET))
    expect(await readSession(OPTS, hs512, now)).toMatchObject({ code: 'session_invalid' })
    expect(await readSession(OPTS, `${header}.${payload}.AAAA`, now)).toMatchObject({
      code: 'session_invalid',
    })
    expect(await readSession(OPTS, 'not-a-jws', now)).toMatchObject({ code: 'session_invalid' })
  })

  test('a role outside viewer/operator/admin or a missing claim is invalid', async () => {
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('op-1')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(SECRET))
    const authTime = Math.floor(Date.now() / 1000)
    expect(await readSession(OPTS, await sign({ role: 'root', auth_time: authTime }))).toMatchObject({
      code: 'session_invalid',
    })
    expect(await readSession(OPTS, await sign({ role: 'admin' }))).toMatchObject({ code: 'session_invalid' })
  })

  test('configuration: production needs the secret; elsewhere a per-process secret; Secure except in development', () => {
    expect(sessionConfigProblems({ SVC_ENV: 'production', PWS_SESSION_MAX_AGE_S: 60 })).toHaveLength(1)
    expect(sessionConfigProblems({ SVC_ENV: 'test', PWS_SESSION_MAX_AGE_S: 60 })).toEqual([])
    expect(sessionOptions({ SVC_ENV: 'development', PWS_SESSION_MAX_AGE_S: 60 })).toMatchObject({
      secure: false,
    })
    expect(
      sessionOptions({ SVC_ENV: 'development', PWS_SESSION_MAX_AGE_S: 60 }).secret?.length,
    ).toBeGreaterThan(32)
    expect(
      sessionOptions({ SVC_ENV: 'production', PWS_SESSION_SECRET: SECRET, PWS_SESSION_MAX_AGE_S: 60 }),
    ).toEqual({
      secret: SECRET,
      maxAgeS: 60,
      secure: true,
    })
  })
})

describe('session macro', () => {
  test('login sets pm_session HttpOnly, SameSite=Lax, Secure, Path=/ and the cookie opens the routes', async () => {
    const { app: a } = app()
    const login = await a.handle(
      new Request('http://localhost/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'op-1', role: 'operator' }),
      }),
    )
    const setCookie = login.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[\\w-]+\\.[\\w-]+\\.[\\w-]+;`))
    for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Secure', 'Path=/', 'Max-Age=3600']) {
      expect(setCookie.toLowerCase()).toContain(attribute.toLowerCase())
    }
    const token = setCookie.split(';')[0]?.split('=')[1]
    expect(await (await withCookie(a, '/view', token)).json()).toEqual({ sub: 'op-1', role: 'operator' })
    const logout = await withCookie(a, '/logout', token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(logout.headers.get('set-cookie')).toContain('Max-Age=0')
  })

  test('role matrix: a lower role is 403 naming the required role, an equal or higher one passes', async () => {
    const { app: a } = app()
    const routes: [string, Role][] = [
      ['/view', 'viewer'],
      ['/work', 'operator'],
      ['/admin', 'admin'],
    ]
    const ranks: Role[] = ['viewer', 'operator', 'admin']
    for (const role of ranks) {
      const token = await issueSession(OPTS, { sub: `u-${role}`, role })
      for (const [path, required] of routes) {
        const init =
          path === '/work'
            ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' }
            : {}
        const res = await withCookie(a, path, token, init)
        if (ranks.indexOf(role) >= ranks.indexOf(required)) {
          expect({ path, role, status: res.status }).toEqual({ path, role, status: 200 })
        } else {
          const body = await res.json()
          expect({ path, role, status: res.status, code: body.error.code }).toEqual({
            path,
            role,
            status: 403,
            code: 'insufficient_role',
          })
          expect(body.error.message).toContain(required)
          expect(body.error.details).toEqual({ required_role: required, role })
        }
      }
    }
  })

  test('no cookie, a stale or forged cookie: 401 with distinct codes, before the body is validated', async () => {
    const { app: a } = app()
    const post = (token?: string) =>
      withCookie(a, '/work', token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":"not an integer"}',
      })
    expect(await code(await post())).toEqual({ status: 401, code: 'session_required' })
    const old = await issueSession(OPTS, { sub: 'op-1', role: 'admin' }, Date.now() - 2 * HOUR_MS)
    expect(await code(await post(old))).toEqual({ status: 401, code: 'session_stale' })
    const forged = await issueSession(
      { ...OPTS, secret: 'another-secret-0123456789abcdef0123' },
      {
        sub: 'op-1',
        role: 'admin',
      },
    )
    expect(await code(await post(forged))).toEqual({ status: 401, code: 'session_invalid' })
  })

  test('no secret configured: 401 without a cookie, 503 with one', async () => {
    const { app: a } = app({ ...OPTS, secret: undefined })
    expect((await withCookie(a, '/view')).status).toBe(401)
    expect(await code(await withCookie(a, '/view', 'a.b.c'))).toEqual({
      status: 503,
      code: 'session_not_configured',
    })
  })

  test('the OpenAPI document declares the pm_session cookie scheme on session routes only', async () => {
    const { app: a, sessions } = app()
    const doc = await documentOf(a, sessions.securitySchemes)
    expect(doc.components.securitySchemes).toMatchObject({
      pm_session: { type: 'apiKey', in: 'cookie', name: 'pm_session' },
    })
    expect(doc.paths['/admin']?.get?.security).toEqual([{ pm_session: [] }])
    expect(doc.paths['/login']?.post?.security).toBeUndefined()
  })
})

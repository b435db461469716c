/**
 * The whole app login against a real OpenID provider (oidc-provider, in process): discovery,
 * authorization code with PKCE, the provider's login and consent, the callback, userinfo, and
 * the pm_session PWS issues, with the role taken from the configured claim.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync, type PwsTest } from '../testing.ts'

const ACCOUNTS: Record<string, { name: string; pws_role?: string }> = {
  alice: { name: 'Alice', pws_role: 'admin' },
  bob: { name: 'Bob', pws_role: 'operator' },
  carol: { name: 'Carol' },
}

let server: Server
let issuer = ''
let t: PwsTest

beforeAll(async () => {
  server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'pws',
        client_secret: 'pws-client-secret-0123456789',
        redirect_uris: ['http://localhost/api/v1/auth/oidc/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], profile: ['name', 'pws_role'] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    findAccount: (_ctx: unknown, id: string) =>
      ACCOUNTS[id] ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined,
  })
  server.on('request', provider.callback())
  t = await bootPwsAsync({
    PWS_OIDC_ISSUER: issuer,
    PWS_OIDC_CLIENT_ID: 'pws',
    PWS_OIDC_CLIENT_SECRET: 'pws-client-secret-0123456789',
  })
})
afterAll(async () => {
  await t.u.dispose()
  server.close()
})

/** A browser's cookie jar, for the provider's interaction cookies. */
function jar() {
  const cookies = new Map<string, string>()
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    take(res: Response) {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';')
        const eq = (pair as string).indexOf('=')
        cookies.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1))
      }
    },
  }
}

/** Walk the provider's login and consent as a user would; returns the callback URL. */
async function signInAtProvider(authorizeUrl: string, account: string): Promise<string> {
  const browser = jar()
  let url = authorizeUrl
  for (let step = 0; step < 12; step++) {
    if (url.startsWith('http://localhost/')) return url
    const interaction = /\/interaction\/([^/?]+)$/.exec(new URL(url).pathname)
    let res: Response
    if (interaction) {
      const page = await fetch(url, { headers: { cookie: browser.header() }, redirect: 'manual' })
      browser.take(page)
      const html = await page.text()
      const prompt = html.includes('name="login"') ? 'login' : 'consent'
      const form = new URLSearchParams({
        prompt,
        ...(prompt === 'login' ? { login: account, password: 'x' } : {}),
      })
      res = await fetch(url, {
        method: 'POST',
        headers: { cookie: browser.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      })
    } else {
      res = await fetch(url, { headers: { cookie: browser.header() }, redirect: 'manual' })
    }
    browser.take(res)
    const next = res.headers.get('location')
    if (!next) throw new Error(`provider stopped at ${url} with ${res.status}: ${await res.text()}`)
    url = new URL(next, url).href
  }
  throw new Error('too many redirects at the provider')
}

async function login(account: string, returnTo?: string) {
  const start = await t.u.request(
    `/api/v1/auth/oidc/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`,
  )
  expect(start.status).toBe(302)
  const authorize = new URL(start.headers.get('location') as string)
  expect(authorize.origin).toBe(issuer)
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
  const callback = await signInAtProvider(authorize.href, account)
  const done = await t.u.request(callback.replace('http://localhost', ''))
  return { done, callback }
}

const cookieOf = (res: Response) =>
  (res.headers.getSetCookie().find((c) => c.startsWith('pm_session=')) ?? '').split(';')[0] as string

describe('OIDC app login', () => {
  test('login, callback and userinfo issue pm_session with the role from the claim', async () => {
    const { done } = await login('alice', '/api/v1/owner-facts')
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe('/api/v1/owner-facts')
    const cookie = cookieOf(done)
    expect(cookie).toMatch(/^pm_session=ey/)
    expect(done.headers.getSetCookie().join(';').toLowerCase()).toContain('httponly')
    const mine: Json = await (
      await t.u.request('/api/v1/auth/oidc/session-contract', { headers: { cookie } })
    ).json()
    expect(mine.current_session).toEqual({ state: 'valid', role: 'admin', sub: 'alice' })
    expect((await t.u.request('/api/v1/owner-facts', { headers: { cookie } })).status).toBe(200)
    const status: Json = await (await t.u.request('/api/v1/auth/oidc/status')).json()
    expect(status).toMatchObject({ configured: true, issuer, client_id: 'pws', discovery: { state: 'ok' } })
  })

  test('the role claim maps operator; no claim means viewer, who cannot write', async () => {
    const bob = cookieOf((await login('bob')).done)
    const carol = cookieOf((await login('carol')).done)
    const create = (cookie: string) =>
      t.u.send('POST', '/api/v1/projects', { project_id: 'from-oidc', name: 'x' }, { cookie })
    expect((await create(carol)).status).toBe(403)
    expect((await create(bob)).status).toBe(201)
  })

  test('a callback is answered once; an unknown state is 401; return_to must be a local path', async () => {
    const { callback } = await login('alice')
    const replay = await t.u.request(callback.replace('http://localhost', ''))
    expect(replay.status).toBe(401)
    expect((await replay.json()).error.code).toBe('login_unknown')
    const forged = await t.u.request('/api/v1/auth/oidc/callback?code=abc&state=made-up')
    expect(forged.status).toBe(401)
    const open = await t.u.request('/api/v1/auth/oidc/login?return_to=https://evil.example/')
    expect(open.status).toBe(400)
  })

  test('logout clears pm_session', async () => {
    const res = await t.u.send('POST', '/api/v1/auth/oidc/logout', {})
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie().find((c) => c.startsWith('pm_session='))).toContain('Max-Age=0')
  })

  test('unconfigured, there is no login route and the status says so', async () => {
    const bare = await bootPwsAsync()
    try {
      expect((await bare.u.request('/api/v1/auth/oidc/login')).status).toBe(404)
      expect((await (await bare.u.request('/api/v1/auth/oidc/status')).json()).configured).toBe(false)
    } finally {
      await bare.u.dispose()
    }
  })
})

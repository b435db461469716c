import { afterAll, describe, expect, test } from 'bun:test'
import { bootPwsAsync, sessionCookie } from '../testing.ts'

const t = await bootPwsAsync()
afterAll(() => t.u.dispose())

describe('OIDC and session contract routes', () => {
  test('unconfigured, the OIDC status answers 200 saying so', async () => {
    const res = await t.u.request('/api/v1/auth/oidc/status')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      configured: false,
      issuer: null,
      discovery: { state: 'not_configured' },
      admitted_surface: {
        auth_mode: 'oidc_claim_projection',
        consumer_posture: 'native_oidc_session_consumer',
      },
    })
    const login = await (await t.u.request('/api/v1/settings/app-login')).json()
    expect(login).toMatchObject({
      identity: { configured: false },
      app_login: { surface_key: 'operator_console', available: false },
    })
  })

  test("the session contract reports the caller's own session state", async () => {
    const none = await (await t.u.request('/api/v1/auth/oidc/session-contract')).json()
    expect(none).toMatchObject({
      session_cookie: 'pm_session',
      algorithm: 'HS256',
      max_age_s: 28800,
      roles: ['viewer', 'operator', 'admin'],
      current_session: { state: 'missing', role: null },
    })
    const mine = await (
      await t.u.request('/api/v1/auth/oidc/session-contract', {
        headers: { cookie: await sessionCookie('operator') },
      })
    ).json()
    expect(mine.current_session).toEqual({ state: 'valid', role: 'operator', sub: 'tester' })
    const stale = await (
      await t.u.request('/api/v1/auth/oidc/session-contract', {
        headers: { cookie: await sessionCookie('stale') },
      })
    ).json()
    expect(stale.current_session.state).toBe('stale')
  })
})

describe('owner facts', () => {
  test('401 without a session or with a stale one; any role reads; it never mutates', async () => {
    expect((await t.u.request('/api/v1/owner-facts')).status).toBe(401)
    const stale = await t.u.request('/api/v1/owner-facts', {
      headers: { cookie: await sessionCookie('stale') },
    })
    expect(stale.status).toBe(401)
    expect((await stale.json()).error.code).toBe('session_stale')
    const facts = await (await t.get('/api/v1/owner-facts', 'viewer')).json()
    expect(facts).toMatchObject({
      schema_version: '1',
      read_only: true,
      auth_required: true,
      stale_auth_fails_closed: true,
      source_truth_owner: 'pws',
      manifest: { manifest_key: 'pws', path: '/platform-manifest.json' },
      discovery: { api_surface: '/api/v1', docs_ref: 'docs/units/pws.md' },
    })
    expect(facts.adapters.map((a: { adapter_key: string }) => a.adapter_key)).toEqual([
      'sandbox_project',
      'sandbox_support',
      'sandbox_qa',
      'sandbox_release',
    ])
    expect(facts.adapters[0].supported_modes).toEqual(['dry_run', 'admitted'])
    expect((await t.send('POST', '/api/v1/owner-facts', {})).status).toBe(404)
  })
})

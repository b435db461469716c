import { afterAll, describe, expect, test } from 'bun:test'
import { platformManifest } from '../../../common/contract.ts'
import { pwsContract } from '../manifest.ts'
import { bootPwsAsync } from '../testing.ts'

const t = await bootPwsAsync({
  PWS_GITHUB_URL: 'http://127.0.0.1:9',
  PWS_GITHUB_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
})
afterAll(() => t.u.dispose())

describe('open runtime entry surfaces', () => {
  test('health, readiness (degraded, never failing, when optional settings are missing), version', async () => {
    expect(await (await t.u.request('/healthz')).json()).toMatchObject({ status: 'ok', service: 'pws' })
    const ready = await t.u.request('/readyz')
    expect(ready.status).toBe(200)
    const body = await ready.json()
    expect(body).toMatchObject({
      status: 'degraded',
      checks: { database: true, oidc: 'unconfigured', planning_repo: 'unconfigured', providers: ['github'] },
    })
    expect(body.warnings.join(' ')).toContain('PWS_OIDC_ISSUER')
    const version = await (await t.u.request('/versionz')).json()
    expect(version).toMatchObject({
      service: 'pws',
      api_version: 'v1',
      contract_version: pwsContract().version,
    })
  })

  test('the manifest publishes what the contract declares', async () => {
    const manifest = await (await t.u.request('/platform-manifest.json')).json()
    expect(manifest).toMatchObject(platformManifest(pwsContract()))
    expect(manifest.runtime_contract).toMatchObject({ port: 18082, liveness: '/healthz' })
  })

  test('workspace facts report bindings and webhook posture from configuration and state', async () => {
    await t.project('bound', { primary_repo_ref: { provider: 'github', full_name: 'acme/app' } })
    const facts = await (await t.u.request('/platform-workspace-facts')).json()
    expect(facts).toMatchObject({
      workspace_model: 'single_primary_repo',
      sync_mode: 'webhook_first',
      git_poll_fallback_minutes: 5,
      workspace: { projects: 1, projects_with_primary_repo: 1 },
      planning_binding: { repository_configured: false, binding: 'unbound' },
      webhook_posture: {
        github: { configured: true, signature_verified: true, last_webhook_at: null },
        gitlab: { configured: false },
      },
    })
  })

  test('membership facts publish the operator-console surface; no secret appears', async () => {
    const res = await t.u.request('/platform-membership-facts')
    const text = await res.text()
    expect(JSON.parse(text)).toMatchObject({
      auth_mode: 'oidc_claim_projection',
      admitted_surface: 'operator_console',
      consumer_posture: 'native_oidc_session_consumer',
      role_admin_posture: 'no_identity_provider',
      verify_paths: ['/api/v1/auth/oidc/status', '/api/v1/auth/oidc/session-contract', '/api/v1/owner-facts'],
      operator_console: { auth_mode: 'oidc_claim_projection' },
      oidc_client: { configured: false },
    })
    expect(text).not.toContain('whsec-0123456789abcdef')
  })

  test('contract, presence and compatibility views; metrics in Prometheus format', async () => {
    const contract = await (await t.u.request('/contractz')).json()
    expect(contract).toMatchObject({ unit: 'pws', read_only: true })
    expect(contract.produces.map((f: { family: string }) => f.family)).toContain('project.active_workflow')
    const presence = await (await t.u.request('/platform-presencez')).json()
    expect(presence).toMatchObject({
      unit: 'pws',
      present: true,
      discovery: { manifest: '/platform-manifest.json' },
    })
    const compat = await (await t.u.request('/platform-compatibilityz')).json()
    expect(compat).toMatchObject({ compatibility_mode: 'BACKWARD', api_prefix: '/api/v1' })
    const metrics = await (await t.u.request('/metrics')).text()
    expect(metrics).toContain('svc_pws_contract_info{contract_version="1.0.0"')
    expect(metrics).toContain('svc_pws_projects{unit="pws"} 1')
  })
})

describe('persistence loss', () => {
  test('a dead database: reads and writes answer 503 persistence_unavailable, readiness 503, liveness stays up', async () => {
    const dead = await bootPwsAsync()
    try {
      await dead.project('doomed')
      await dead.u.storage.close()
      const res = await dead.send('POST', '/api/v1/projects/doomed/adapter-sandbox/writes', {}, 'admin')
      expect(res.status).toBeLessThan(500)
      const write = await dead.send('POST', '/api/v1/projects', { project_id: 'after', name: 'x' })
      expect(write.status).toBe(503)
      expect((await write.json()).error.code).toBe('persistence_unavailable')
      // Reads and the writes that open their own transaction answer the same 503, not a 500.
      for (const [method, path, body] of [
        ['GET', '/api/v1/projects', undefined],
        ['GET', '/api/v1/projects/doomed/agents', undefined],
        ['POST', '/api/v1/projects/doomed/agents', { agent_key: 'a1', display_name: 'A' }],
      ] as const) {
        const res = method === 'GET' ? await dead.get(path) : await dead.send(method, path, body)
        expect(res.status, `${method} ${path}`).toBe(503)
        expect((await res.json()).error.code).toBe('persistence_unavailable')
      }
      expect((await dead.u.request('/readyz')).status).toBe(503)
      expect((await dead.u.request('/healthz')).status).toBe(200)
    } finally {
      await dead.u.dispose().catch(() => undefined)
    }
  })
})

import { afterEach, describe, expect, test } from 'bun:test'
import { platformManifest, type UnitContract } from '../../common/contract.ts'
import {
  bootForTest,
  bootForTestAsync,
  type FakePeer,
  fakePeer,
  json,
  type TestUnit,
} from '../../test/harness.ts'
import { makePrs } from './index.ts'
import type { Observer } from './observer.ts'
import { contractIn, fixtureContracts, fixtureRepo } from './testing.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies in tests
type Body = any

const open: { units: TestUnit<unknown>[]; peers: FakePeer[] } = { units: [], peers: [] }
afterEach(async () => {
  for (const u of open.units.splice(0)) await u.dispose()
  for (const p of open.peers.splice(0)) p.stop()
})

const contracts = fixtureContracts()
const pwsContract = contractIn(contracts, 'pws')

/** A PWS stand-in whose manifest is derived from its contract (or a contradicting one). */
function fakePws(manifest: unknown = platformManifest(pwsContract), authMode = 'oidc_claim_projection') {
  const peer = fakePeer((r) => {
    switch (r.path) {
      case '/healthz':
        return json({ status: 'ok' })
      case '/platform-manifest.json':
        return json(manifest)
      case '/platform-workspace-facts':
        return json({ workspace_model: 'single_primary_repo', sync_mode: 'webhook_first' })
      case '/platform-membership-facts':
        return json({
          auth_mode: authMode,
          admitted_surface: 'operator_console',
          role_admin_posture: 'admin_by_role_claim',
          verify_paths: ['/api/v1/auth/oidc/session-contract'],
        })
      default:
        return json({ error: 'not found' }, 404)
    }
  })
  open.peers.push(peer)
  return peer
}

async function boot(urls: string, cs: UnitContract[] = contracts) {
  const u = await bootForTestAsync(makePrs(cs), {
    SVC_UNIT_URLS: urls,
    PRS_REPO_DIR: fixtureRepo(cs),
    PRS_OBSERVE_INTERVAL_MS: '3600000',
    PRS_OBSERVE_TIMEOUT_MS: '500',
  })
  open.units.push(u as TestUnit<unknown>)
  return { u, observer: u.background[0] as Observer }
}

const get = async (u: { request(p: string): Promise<Response> }, path: string): Promise<Body> => {
  const res = await u.request(path)
  expect(res.status).toBe(200)
  return res.json()
}

describe('observations of live units', () => {
  test('a unit that is up and agrees with its contract: services up, no drift, facts admitted', async () => {
    const pws = fakePws()
    const { u, observer } = await boot(`pws=${pws.url}`)
    const round = await observer.runOnce()
    expect(round.map((o) => [o.surface, o.ok])).toEqual([
      ['liveness', true],
      ['manifest', true],
      ['workspace_facts', true],
      ['membership_facts', true],
    ])
    expect(pws.requests.map((r) => r.path)).toEqual([
      '/healthz',
      '/platform-manifest.json',
      '/platform-workspace-facts',
      '/platform-membership-facts',
    ])
    const services = await get(u, '/api/v1/platform/services')
    expect(services.services.find((s: Body) => s.unit === 'pws')).toMatchObject({
      state: 'up',
      http_status: 200,
    })
    const drift = await get(u, '/api/v1/contracts/drift')
    expect(drift.items.filter((i: Body) => i.unit === 'pws')).toEqual([])
    const identity = await get(u, '/api/v1/identity/contracts/surface-admission')
    expect(identity.surfaces[0]).toMatchObject({
      unit: 'pws',
      surface_key: 'operator_console',
      verdict: 'admitted',
    })
    const version = await get(u, '/api/v1/platform/version-truth')
    expect(version.units.find((v: Body) => v.unit === 'pws')).toMatchObject({
      observed_version: '1.0.0',
      agrees: true,
    })
    const evidence = await get(u, '/api/v1/tools/runtime-evidence?unit=pws&limit=2')
    expect(evidence.observations).toHaveLength(2)
    expect(evidence.observations[0].observed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  test('a unit that is down degrades the views that depend on it and names itself; PRS keeps answering', async () => {
    const pws = fakePws()
    pws.stop()
    const { u, observer } = await boot(`pws=${pws.url}`)
    await observer.runOnce()
    const services = await get(u, '/api/v1/platform/services')
    const entry = services.services.find((s: Body) => s.unit === 'pws')
    expect(entry.state).toBe('down')
    expect(entry.reason).toContain('unreachable')
    expect(entry.dependents).toContain('eis')
    expect(services.degraded_by).toContainEqual({ unit: 'pws', reason: expect.stringContaining('down') })
    const identity = await get(u, '/api/v1/identity/contracts/surface-admission')
    expect(identity.degraded_by.map((d: Body) => d.unit)).toEqual(['pws'])
    expect(identity.surfaces[0].verdict).toBe('admitted_unverified')
    const drift = await get(u, '/api/v1/contracts/drift')
    expect(drift.unobserved).toContainEqual({ unit: 'pws', reason: expect.stringContaining('unreachable') })
    expect(drift.items.filter((i: Body) => i.unit === 'pws')).toEqual([])
    const signoff = await get(u, '/api/v1/signoff/readiness')
    expect(signoff.steps[1]).toMatchObject({ name: 'services', status: 'degraded', detail: 'down: pws' })
    expect((await u.request('/health')).status).toBe(200)
  })

  test('a unit that contradicts its manifest is blocking drift and blocks signoff; contract truth stays', async () => {
    const lying = {
      ...platformManifest(pwsContract),
      contract_version: '9.9.9',
      producer_families: ['project.tasks'],
    }
    const pws = fakePws(lying, 'basic_auth')
    const { u, observer } = await boot(`pws=${pws.url}`)
    await observer.runOnce()
    const drift = await get(u, '/api/v1/contracts/drift')
    const kinds = drift.items.filter((i: Body) => i.unit === 'pws').map((i: Body) => i.kind)
    expect(kinds).toEqual([
      'manifest_contradicts_contract',
      'manifest_contradicts_contract',
      'identity_surface_contradicts_contract',
    ])
    expect(drift.status).toBe('blocking')
    const signoff = await get(u, '/api/v1/signoff/readiness')
    expect(signoff.status).toBe('blocked')
    expect(signoff.signed_off).toBe(false)
    const security = await get(u, '/api/v1/security/readiness')
    expect(security.units.find((x: Body) => x.unit === 'pws').status).toBe('blocked')
    // Observations never override contract truth: the registry and matrix still say what the contract says.
    const registry = await get(u, '/api/v1/contracts/registry')
    expect(registry.units.find((x: Body) => x.unit === 'pws').version).toBe('1.0.0')
    const matrix = await get(u, '/api/v1/contracts/matrix')
    expect(matrix.producer_families).toContain('platform.membership_facts')
    const version = await get(u, '/api/v1/platform/version-truth')
    expect(version.units.find((v: Body) => v.unit === 'pws')).toMatchObject({
      contract_version: '1.0.0',
      observed_version: '9.9.9',
      agrees: false,
    })
  })

  test('a missing manifest and a non-JSON manifest are blocking drift', async () => {
    const peer = fakePeer((r) =>
      r.path === '/health'
        ? json({ ok: true })
        : new Response('<html>', { headers: { 'content-type': 'text/html' } }),
    )
    open.peers.push(peer)
    const gone = fakePeer((r) => (r.path === '/health' ? json({ ok: true }) : json({ error: 'nope' }, 404)))
    open.peers.push(gone)
    const { u, observer } = await boot(`rms=${peer.url},als=${gone.url}`)
    await observer.runOnce()
    const drift = await get(u, '/api/v1/contracts/drift')
    const byUnit = (unit: string) => drift.items.filter((i: Body) => i.unit === unit).map((i: Body) => i.kind)
    expect(byUnit('rms')).toContain('manifest_unreadable')
    expect(byUnit('rms')).toContain('static_port_differs')
    expect(byUnit('als')).toEqual(['manifest_missing'])
  })

  test('views are cached between rounds and re-derived after one; observations persist across restart', async () => {
    const pws = fakePws()
    const { u, observer } = await boot(`pws=${pws.url}`)
    const a = await get(u, '/api/v1/contracts/drift')
    const b = await get(u, '/api/v1/contracts/drift')
    expect(b.generated_at).toBe(a.generated_at)
    const hits = (await get(u, '/api/v1/tools/host-snapshot')).cache.hits
    expect(hits).toBeGreaterThan(0)
    await Bun.sleep(2)
    await observer.runOnce()
    const c = await get(u, '/api/v1/contracts/drift')
    expect(c.generated_at).not.toBe(a.generated_at)
    const matrixA = await get(u, '/api/v1/contracts/matrix')
    await observer.runOnce()
    expect((await get(u, '/api/v1/contracts/matrix')).generated_at).toBe(matrixA.generated_at)

    const restarted = await u.restart({ SVC_UNIT_URLS: `pws=${pws.url}`, PRS_OBSERVE_INTERVAL_MS: '3600000' })
    open.units.splice(open.units.indexOf(u as TestUnit<unknown>), 1, restarted as TestUnit<unknown>)
    const status = await get(restarted, '/api/v1/tools/runtime-status')
    expect(status.units.find((x: Body) => x.unit === 'pws').state).toBe('up')
    const evidence = await get(restarted, '/api/v1/tools/runtime-evidence?unit=pws')
    expect(evidence.observations).toHaveLength(8)
  })

  test('history is bounded per unit surface', async () => {
    const pws = fakePws()
    const u = await bootForTestAsync(makePrs(contracts), {
      SVC_UNIT_URLS: `pws=${pws.url}`,
      PRS_REPO_DIR: fixtureRepo(contracts),
      PRS_OBSERVATIONS_KEEP: '2',
      PRS_OBSERVE_INTERVAL_MS: '3600000',
    })
    open.units.push(u as TestUnit<unknown>)
    const observer = u.background[0] as Observer
    for (let i = 0; i < 4; i++) await observer.runOnce()
    const evidence = await get(u, '/api/v1/tools/runtime-evidence?unit=pws&limit=500')
    expect(evidence.observations).toHaveLength(8)
  })

  test('bad SVC_UNIT_URLS are refused at start, one line per problem', () => {
    expect(() =>
      bootForTest(makePrs(contracts), { SVC_UNIT_URLS: 'tel=http://x,nobody=http://y,rms=ftp://z,justtext' }),
    ).toThrow(
      /tel is not an HTTP unit[\s\S]*nobody is not an HTTP unit[\s\S]*rms needs an http\(s\) URL[\s\S]*expected name=url/,
    )
  })
})

describe('the observation schedule', () => {
  test('observes at start, waits the interval, and stops cleanly', async () => {
    const pws = fakePws()
    const { observer } = await boot(`pws=${pws.url}`)
    observer.start()
    for (let i = 0; i < 100 && observer.stats().rounds === 0; i++) await Bun.sleep(10)
    await Bun.sleep(50)
    expect(observer.stats().rounds).toBe(1)
    expect(pws.requests).toHaveLength(4)
    await observer.stop()
    expect(observer.stats()).toMatchObject({ rounds: 1, running: false, last_round_at: expect.any(String) })
  })
})

import { afterAll, describe, expect, test } from 'bun:test'
import { bootForTestAsync } from '../../../test/harness.ts'
import { makePrs, prs } from '../index.ts'
import { contractIn, fixtureContracts, fixtureRepo } from '../testing.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies in tests
type Body = any

const contracts = fixtureContracts()
// Docs only for some units, so the docs views have something to report.
const u = await bootForTestAsync(makePrs(contracts), { PRS_REPO_DIR: fixtureRepo(contracts, ['prs', 'als']) })
afterAll(() => u.dispose())

const VIEWS = [
  '/api/v1/docs/platform',
  '/api/v1/docs/catalog',
  '/api/v1/docs/readiness',
  '/api/v1/contracts/registry',
  '/api/v1/contracts/drift',
  '/api/v1/contracts/matrix',
  '/api/v1/contracts/docs-standard',
  '/api/v1/contracts/admission-governance',
  '/api/v1/platform/projection-catalog',
  '/api/v1/platform/version-truth',
  '/api/v1/platform/services',
  '/api/v1/event-modeling/catalog',
  '/api/v1/event-modeling/dependency-graph',
  '/api/v1/agent/contracts',
  '/api/v1/agent/workflow',
  '/api/v1/observability/readiness',
  '/api/v1/security/readiness',
  '/api/v1/recovery/readiness',
  '/api/v1/signoff/readiness',
  '/api/v1/tools/host-snapshot',
  '/api/v1/tools/runtime-status',
  '/api/v1/tools/runtime-evidence',
  '/api/v1/tools/runtime-contracts',
  '/api/v1/tools/runtime-observations',
  '/api/v1/identity/contracts/surface-admission',
  '/api/v1/voice/contracts/events',
  '/api/v1/combinations/profiles',
  '/api/v1/combinations/optional-slices',
  '/api/v1/combinations/optional-slices/pws.adapter_sandbox_writes',
  '/api/v1/monitoring/metrics',
]

const get = async (path: string): Promise<Body> => {
  const res = await u.request(path)
  expect({ path, status: res.status }).toEqual({ path, status: 200 })
  return res.json()
}

describe('PRS read routes', () => {
  test('every view carries generated_at and the contract version it derives from', async () => {
    const health = await get('/health')
    expect(health).toMatchObject({ status: 'ok', service: 'prs', units: 11 })
    for (const path of VIEWS) {
      const body = await get(path)
      expect({ path, v: body.contract_version }).toEqual({ path, v: health.contract_version })
      expect(body.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }
  })

  test('the matrix carries what ALS reads: producer_families, consumer_families, version', async () => {
    const m = await get('/api/v1/contracts/matrix')
    expect(m.version).toBe(m.contract_version)
    expect(m.producer_families).toEqual([...m.producer_families].sort())
    expect(m.producer_families).toContain('learning.signals')
    expect(m.consumer_families).toContain('execution.approval_lane')
  })

  test('registry, docs and readiness views follow the contracts and the owner repository', async () => {
    const registry = await get('/api/v1/contracts/registry')
    expect(registry.units.map((x: Body) => x.unit)).toEqual(contracts.map((c) => c.unit))
    expect(registry.units[0]).toMatchObject({ unit: 'rms', port: 18086, port_policy: 'static-required' })
    const docs = await get('/api/v1/docs/readiness')
    expect(docs).toMatchObject({ status: 'degraded', ready: 2, total: 11 })
    const standard = await get('/api/v1/contracts/docs-standard')
    expect(standard.mandatory_for_admission).toEqual([
      'tool_profile',
      'integrations',
      'capabilities',
      'api',
      'open_source_inventory',
    ])
    expect(standard.required_for_every_unit).toEqual([
      'tool_profile',
      'api',
      'configuration',
      'decisions',
      'not_done',
    ])
    const recovery = await get('/api/v1/recovery/readiness')
    expect(recovery.units.find((x: Body) => x.unit === 'rms').migrations_present).toBe(true)
    const signoff = await get('/api/v1/signoff/readiness')
    expect(signoff.steps.map((s: Body) => s.name)).toEqual([
      'health',
      'services',
      'observability',
      'security',
      'recovery',
      'drift',
      'matrix',
      'docs',
    ])
    const services = await get('/api/v1/platform/services')
    expect(services.read_order[1].route).toBe('/api/v1/platform/services')
    expect(services.services.find((s: Body) => s.unit === 'tel').state).toBe('not_applicable')
    expect(services.services.find((s: Body) => s.unit === 'rms').state).toBe('not_configured')
  })

  test('graph, agents, voice, profiles and slices', async () => {
    const graph = await get('/api/v1/event-modeling/dependency-graph')
    expect(graph.edges).toContainEqual({
      from: 'als',
      to: 'prs',
      family: 'registry.contract_matrix',
      required: true,
    })
    expect(graph.start_order.indexOf('prs')).toBeLessThan(graph.start_order.indexOf('als'))
    const agents = await get('/api/v1/agent/contracts')
    expect(agents.contracts.map((x: Body) => x.family)).toContain('agent.federation')
    const voice = await get('/api/v1/voice/contracts/events')
    expect(voice.events.length).toBe(contractIn(contracts, 'tel').events.length)
    const profiles = await get('/api/v1/combinations/profiles')
    expect(profiles.profiles.find((p: Body) => p.profile_key === 'voice_stack').required_units).toEqual([
      'prs',
      'tel',
    ])
    const slice = await get('/api/v1/combinations/optional-slices/pws.adapter_sandbox_writes')
    expect(slice.slice).toMatchObject({
      unit: 'pws',
      toggle: 'ADAPTER_SANDBOX_WRITE_ENABLED',
      default_enabled: false,
    })
  })

  test('unknown slice, bad query, unknown route are 4xx envelopes', async () => {
    const slice = await u.request('/api/v1/combinations/optional-slices/nope')
    expect(slice.status).toBe(404)
    expect(((await slice.json()) as Body).error.code).toBe('slice_not_found')
    expect((await u.request('/api/v1/tools/runtime-evidence?limit=0')).status).toBe(400)
    expect((await u.request('/api/v1/tools/runtime-evidence?unit=NOT%20A%20UNIT')).status).toBe(400)
    expect((await u.request('/api/v1/contracts/nothing')).status).toBe(404)
  })

  test('Prometheus /metrics and the OpenAPI document', async () => {
    const res = await u.request('/metrics')
    expect(res.headers.get('content-type')).toContain('version=0.0.4')
    const text = await res.text()
    expect(text).toContain('svc_prs_registry_families{role="produced",unit="prs"}')
    expect(text).toContain('svc_prs_drift_items')
    const doc = (await get('/openapi.json')) as Body
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/contracts/matrix', '/api/v1/tools/admission/dry-run']),
    )
  })
})

describe('admission governance', () => {
  test('publishes the input, modes and verdicts the dry run actually uses', async () => {
    const g = await get('/api/v1/contracts/admission-governance')
    expect(g.required_input).toContain('docs.open_source_inventory')
    expect(g.required_input.slice(15)).toEqual(g.checklist_items.map((i: Body) => `checklist.${i.key}`))
    expect(g.compatibility_modes).toEqual([
      'BACKWARD',
      'BACKWARD_TRANSITIVE',
      'FORWARD',
      'FORWARD_TRANSITIVE',
      'FULL',
      'FULL_TRANSITIVE',
      'NONE',
    ])
    expect(g.verdicts).toEqual(['admissible', 'refused', 'blocked'])
    // An empty dry run names exactly the published required input as missing (checks.test.ts pins the list).
    const res = await u.send('POST', '/api/v1/tools/admission/dry-run', {})
    expect(res.status).toBe(400)
    const body: Body = await res.json()
    expect(body.error.details.missing).toEqual(g.required_input)
  })
})

describe('cached views over HTTP', () => {
  test('the matrix carries a strong ETag; If-None-Match with it is a 304, still with a request id', async () => {
    const unit = await bootForTestAsync(prs)
    try {
      const first = await unit.request('/api/v1/contracts/matrix')
      expect(first.status).toBe(200)
      const etag = first.headers.get('etag') ?? ''
      expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/)
      const again = await unit.request('/api/v1/contracts/matrix', { headers: { 'if-none-match': etag } })
      expect(again.status).toBe(304)
      expect(await again.text()).toBe('')
      expect(again.headers.get('x-request-id')).toBeTruthy()
      expect(again.headers.get('etag')).toBe(etag)
    } finally {
      await unit.dispose()
    }
  })
})

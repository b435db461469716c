import { afterEach, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { STATUS_MAX_AGE_MS } from '../../../db/snapshot.ts'
import { fakePeer, freePort, json } from '../../../test/harness.ts'
import { ContractsView, Readiness, VersionResponse } from '../model.ts'
import { PROPOSAL_STATES } from '../rules/states.ts'
import {
  type Als,
  bootAls,
  directBody,
  type Env,
  evidenceBody,
  fakePrs,
  MATRIX,
  ok,
  recordRun,
  refused,
  traceBody,
} from '../testing.ts'

let unit: Als | undefined
const stops: (() => void)[] = []
afterEach(async () => {
  await unit?.dispose()
  unit = undefined
  for (const stop of stops.splice(0)) stop()
})
const boot = async (env: Env = {}) => {
  unit = await bootAls(env)
  return unit
}
const prs = (matrix?: unknown) => {
  const peer = fakePrs(matrix)
  stops.push(peer.stop)
  return peer
}

describe('self-description', () => {
  test('GET /health is exactly {status: ok, service: als}', async () => {
    const res = await (await boot()).request('/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', service: 'als' })
  })

  test('GET /version carries the version and the effective service mode', async () => {
    const v = await ok(await (await boot({ ALS_SERVICE_MODE: 'promotion_enabled' })).request('/version'))
    expect(Value.Check(VersionResponse, v)).toBe(true)
    expect(v).toMatchObject({
      service: 'als',
      effective_service_mode: 'promotion_enabled',
      configured_service_mode: 'promotion_enabled',
    })
    expect(v.version).toMatch(/^\d+\.\d+\.\d+/)
  })

  test('GET /platform-manifest.json is built from units/als/contract.json', async () => {
    const m = await ok(await (await boot()).request('/platform-manifest.json'))
    expect(m.unit).toBe('als')
    expect(m.registry).toEqual({ owner: 'repository', contract_file: 'units/als/contract.json' })
    expect(m.consumer_families).toEqual(['registry.contract_matrix', 'execution.approval_lane'])
    expect(m.runtime_contract.port).toBe(18096)
  })

  test('the OpenAPI document lists every ALS route with the spec field names', async () => {
    const doc = await ok(await (await boot()).request('/openapi.json'))
    const paths = Object.keys(doc.paths)
    for (const p of [
      '/health',
      '/ready',
      '/version',
      '/platform-manifest.json',
      '/metrics',
      '/api/v1/learning/contracts',
      '/api/v1/learning/readiness',
      '/api/v1/learning/signals/intake',
      '/api/v1/learning/replay/evaluate',
      '/api/v1/learning/replay/propose-from-evidence',
      '/api/v1/learning/promotions/propose',
      '/api/v1/learning/promotions/approve-check',
      '/api/v1/learning/promotions/activate',
      '/api/v1/learning/promotions/rollback',
      '/api/v1/learning/runs/{run_id}',
      '/api/v1/learning/proposals/{proposal_id}',
    ]) {
      expect(paths).toContain(p)
    }
    expect(JSON.stringify(doc.paths['/api/v1/learning/signals/intake'])).toContain('family_version_set')
  })
})

describe('readiness and PRS family truth', () => {
  test('ready with persistence and a fresh PRS matrix; families come from PRS only, deduplicated', async () => {
    const peer = prs()
    const u = await boot({ SVC_REGISTRY_URL: peer.url })
    const view = await ok(await u.request('/api/v1/learning/contracts'))
    expect(Value.Check(ContractsView, view)).toBe(true)
    expect(view.producer_families).toEqual(['learning.signals', 'registry.contract_matrix'])
    expect(view.consumer_families).toEqual(['execution.approval_lane'])
    expect(view.family_source).toMatchObject({ source: 'prs', state: 'fresh', matrix_version: 'matrix-7' })
    expect(view.promotion_states).toEqual([...PROPOSAL_STATES])
    expect(view.no_learn_zones).toContain('security')
    expect(view.target_types).toContainEqual({ target_type: 'weight_training_candidate', enabled: true })

    const ready = await ok(await u.request('/ready'))
    expect(Value.Check(Readiness, ready)).toBe(true)
    expect(ready).toMatchObject({
      status: 'ready',
      effective_service_mode: 'observe_only',
      persistence_ready: true,
      backpressure: false,
      platform_alignment: {
        family_state: 'fresh',
        registry_reachable: true,
        matrix_version: MATRIX.version,
        producer_family_count: 2,
        consumer_family_count: 1,
      },
    })
    expect(await ok(await u.request('/api/v1/learning/readiness'))).toMatchObject({ status: 'ready' })
  })

  test('PRS unreachable: degraded, no family invented, and /ready never waits for PRS', async () => {
    const u = await boot({ SVC_REGISTRY_URL: `http://127.0.0.1:${freePort()}` })
    const view = await ok(await u.request('/api/v1/learning/contracts'))
    expect(view.producer_families).toEqual([])
    expect(view.consumer_families).toEqual([])
    expect(view.family_source).toMatchObject({ state: 'unavailable', matrix_version: null })
    const ready = await ok(await u.request('/ready'))
    expect(ready.status).toBe('degraded')
    expect(ready.platform_alignment).toMatchObject({
      registry_configured: true,
      registry_reachable: false,
      family_state: 'unavailable',
    })
    expect(ready.platform_alignment.last_error).toContain('unreachable')
    expect(ready.detail).toContain('PRS')
  })

  test('a hanging PRS never holds up /ready or /metrics; the contracts view waits at most the peer timeout', async () => {
    const hanging = fakePeer(async () => {
      await Bun.sleep(3000)
      return json(MATRIX)
    })
    stops.push(hanging.stop)
    const u = await boot({ SVC_REGISTRY_URL: hanging.url, ALS_PEER_TIMEOUT_MS: '300' })
    for (const task of u.background) task.start()
    let t = performance.now()
    expect((await ok(await u.request('/ready'))).status).toBe('degraded')
    expect((await u.request('/metrics')).status).toBe(200)
    expect(performance.now() - t).toBeLessThan(250)
    t = performance.now()
    const view = await ok(await u.request('/api/v1/learning/contracts'))
    expect(performance.now() - t).toBeLessThan(1500)
    expect(view.producer_families).toEqual([])
    expect(view.family_source.state).toBe('unavailable')
  })

  test('PRS answering off contract counts as unavailable', async () => {
    const peer = prs({ producer_families: 'not-an-array', version: 1 })
    const u = await boot({ SVC_REGISTRY_URL: peer.url })
    const view = await ok(await u.request('/api/v1/learning/contracts'))
    expect(view.producer_families).toEqual([])
    expect((await ok(await u.request('/ready'))).platform_alignment.last_error).toContain('bad_body')
  })

  test('SVC_REGISTRY_URL unset: degraded with state not_configured', async () => {
    const ready = await ok(await (await boot()).request('/ready'))
    expect(ready).toMatchObject({
      status: 'degraded',
      platform_alignment: { family_state: 'not_configured', registry_configured: false },
    })
  })

  test('cached families outlive a PRS outage only up to the max age', async () => {
    const peer = prs()
    const u = await boot({ SVC_REGISTRY_URL: peer.url, ALS_REGISTRY_MAX_AGE_S: '1' })
    expect((await ok(await u.request('/api/v1/learning/contracts'))).producer_families).toHaveLength(2)
    peer.stop()
    expect((await ok(await u.request('/ready'))).status).toBe('ready')
    await Bun.sleep(1100)
    const view = await ok(await u.request('/api/v1/learning/contracts'))
    expect(view.producer_families).toEqual([])
    expect(view.family_source.state).toBe('stale')
    const ready = await ok(await u.request('/ready'))
    expect(ready.status).toBe('degraded')
    expect(ready.platform_alignment.matrix_version).toBe('matrix-7')
  })

  test('the background task fetches the matrix on start', async () => {
    const peer = prs()
    const u = await boot({ SVC_REGISTRY_URL: peer.url })
    for (const task of u.background) task.start()
    for (let i = 0; i < 50 && peer.requests.length === 0; i++) await Bun.sleep(10)
    for (let i = 0; i < 50; i++) {
      if ((await ok(await u.request('/ready'))).status === 'ready') break
      await Bun.sleep(10)
    }
    expect((await ok(await u.request('/ready'))).status).toBe('ready')
    expect(peer.requests[0]?.path).toBe('/api/v1/contracts/matrix')
  })

  test('weight training disabled shows in the contracts view', async () => {
    const view = await ok(
      await (await boot({ ALS_WEIGHT_TRAINING_ENABLED: 'false' })).request('/api/v1/learning/contracts'),
    )
    expect(view.target_types).toContainEqual({ target_type: 'weight_training_candidate', enabled: false })
  })
})

describe('/metrics', () => {
  test('service mode, persistence and learning counters; svc_metrics_degraded only while degraded', async () => {
    const peer = prs()
    const u = await boot({ SVC_REGISTRY_URL: peer.url, ALS_SERVICE_MODE: 'promotion_enabled' })
    await ok(await u.request('/api/v1/learning/contracts'))
    const run = await recordRun(u)
    await ok(await u.send('POST', '/api/v1/learning/replay/propose-from-evidence', evidenceBody(run.run_id)))
    await ok(await u.send('POST', '/api/v1/learning/promotions/propose', directBody()))
    const res = await u.request('/metrics')
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
    const text = await res.text()
    expect(text).toContain('svc_service_mode{mode="promotion_enabled",unit="als"} 1')
    expect(text).toContain('svc_service_mode{mode="warmup",unit="als"} 0')
    expect(text).toContain('svc_persistence_ready{unit="als"} 1')
    expect(text).toContain('svc_als_intake_total{result="recorded",unit="als"} 1')
    expect(text).toContain('svc_als_replays_total{verdict="accept",unit="als"} 1')
    expect(text).toContain('svc_als_proposals_total{source="evidence",unit="als"} 1')
    expect(text).toContain('svc_als_proposals_total{source="direct",unit="als"} 1')
    expect(text).toContain('svc_als_proposals{state="proposed",unit="als"} 2')
    expect(text).toContain('svc_als_runs{state="proposed",unit="als"} 1')
    expect(text).toContain('svc_als_replay_budget{kind="used",unit="als"} 1')
    expect(text).not.toContain('svc_metrics_degraded')
    peer.stop()
    const stale = await bootAls({ SVC_REGISTRY_URL: peer.url })
    stops.push(() => void stale.dispose())
    const degraded = await (await stale.request('/metrics')).text()
    expect(degraded).toContain('svc_metrics_degraded{reason="registry_unavailable",unit="als"} 1')
  })
})

describe('persistence loss', () => {
  test('forces warmup, degrades /ready and /metrics quickly, refuses writes with 503, keeps /health', async () => {
    const peer = prs()
    const u = await boot({ SVC_REGISTRY_URL: peer.url, ALS_SERVICE_MODE: 'promotion_enabled' })
    await ok(await u.request('/api/v1/learning/contracts'))
    const run = await recordRun(u)
    await u.storage.close()

    const started = performance.now()
    const ready = await ok(await u.request('/ready'))
    const metrics = await u.request('/metrics')
    expect(performance.now() - started).toBeLessThan(500)
    expect(ready).toMatchObject({
      status: 'degraded',
      effective_service_mode: 'warmup',
      configured_service_mode: 'promotion_enabled',
      persistence_ready: false,
      backpressure: true,
      queue_depth: { proposals_awaiting_approval: null, replays_last_hour: null },
    })
    expect(ready.detail).toContain('persistence')
    expect(metrics.status).toBe(200)
    const text = await metrics.text()
    expect(text).toContain('svc_persistence_ready{unit="als"} 0')
    expect(text).toContain('svc_service_mode{mode="warmup",unit="als"} 1')
    expect(text).toContain('svc_metrics_degraded{reason="persistence_unavailable",unit="als"} 1')
    expect(text).not.toContain('svc_als_runs{')
    expect(text).not.toContain('svc_als_replay_budget{')

    expect(await (await u.request('/health')).json()).toEqual({ status: 'ok', service: 'als' })
    expect((await ok(await u.request('/version'))).effective_service_mode).toBe('warmup')
    expect((await ok(await u.request('/api/v1/learning/contracts'))).effective_service_mode).toBe('warmup')

    await refused(
      await u.send('POST', '/api/v1/learning/signals/intake', traceBody()),
      503,
      'persistence_unavailable',
    )
    await refused(
      await u.send('POST', '/api/v1/learning/replay/propose-from-evidence', evidenceBody(run.run_id)),
      503,
      'persistence_unavailable',
    )
    await refused(
      await u.send('POST', '/api/v1/learning/replay/evaluate', {
        target_type: 'decision_policy',
        target_id: 'x',
        threshold_contract: { a: { min: 1 } },
        baseline_metrics: {},
        candidate_metrics: { a: 2 },
        workload_similar: true,
      }),
      503,
      'persistence_unavailable',
    )
    await refused(
      await u.send('POST', '/api/v1/learning/promotions/propose', directBody()),
      503,
      'persistence_unavailable',
    )
    await refused(
      await u.send('POST', '/api/v1/learning/promotions/activate', {
        proposal_id: 'x',
        idempotency_key: 'k',
      }),
      503,
      'persistence_unavailable',
    )
    await refused(await u.request(`/api/v1/learning/runs/${run.run_id}`), 503, 'persistence_unavailable')
  })
})

describe('/version: persistence asked at most once per STATUS_MAX_AGE_MS', () => {
  test('a database lost after /version answered shows as warmup within the bound', async () => {
    const u = await boot({ ALS_SERVICE_MODE: 'promotion_enabled' })
    expect((await ok(await u.request('/version'))).effective_service_mode).toBe('promotion_enabled')
    await u.storage.close()
    await Bun.sleep(STATUS_MAX_AGE_MS + 20)
    expect((await ok(await u.request('/version'))).effective_service_mode).toBe('warmup')
  })
})

import { afterEach, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { canonicalHash } from '../../../common/hash.ts'
import { IntakeResponse, RunRecord } from '../model.ts'
import { type Als, bootAls, type Env, ok, recordRun, refused, traceBody } from '../testing.ts'

const INTAKE = '/api/v1/learning/signals/intake'
let unit: Als | undefined
afterEach(async () => {
  await unit?.dispose()
  unit = undefined
})
const boot = async (env: Env = {}) => {
  unit = await bootAls(env)
  return unit
}

describe('POST signals/intake', () => {
  test('records a run with the spec fields and recomputable hashes', async () => {
    const u = await boot()
    const body = traceBody({ outcome: 'failure', guardrail_decision: 'WARN' })
    const run = await ok(await u.send('POST', INTAKE, body))
    expect(Value.Check(IntakeResponse, run)).toBe(true)
    expect(Object.keys(run).sort()).toEqual(
      [
        'priority_score',
        'provenance_hash',
        'run_hash',
        'run_id',
        'sampled_in',
        'signal_emitted',
        'state',
      ].sort(),
    )
    expect(run).toMatchObject({
      state: 'signal_emitted',
      signal_emitted: true,
      sampled_in: true,
      priority_score: 100,
    })
    expect(run.run_hash).toBe(canonicalHash(body))
    const { outcome: _o, guardrail_decision: _g, ...lineage } = body
    expect(run.provenance_hash).toBe(canonicalHash(lineage))
  })

  test('a low-priority trace is recorded without a signal', async () => {
    const run = await recordRun(await boot(), { outcome: 'success' })
    expect(run).toMatchObject({ state: 'recorded', signal_emitted: false, priority_score: 0 })
  })

  test('warmup records runs but emits no signal', async () => {
    const run = await recordRun(await boot({ ALS_SERVICE_MODE: 'warmup' }), { outcome: 'failure' })
    expect(run).toMatchObject({ state: 'recorded', signal_emitted: false, sampled_in: true })
  })

  test('sampling is deterministic: rate 0 samples everything out', async () => {
    const run = await recordRun(await boot({ ALS_SAMPLE_RATE: '0' }))
    expect(run).toMatchObject({ sampled_in: false, signal_emitted: false, state: 'recorded' })
  })

  test('422 guardrail_blocked for guardrail decision BLOCK, nothing stored', async () => {
    const u = await boot()
    const body = traceBody({ guardrail_decision: 'BLOCK' })
    await refused(await u.send('POST', INTAKE, body), 422, 'guardrail_blocked')
    // The same trace is still unknown: it can be sent again with another decision.
    await ok(await u.send('POST', INTAKE, { ...body, guardrail_decision: 'ALLOW' }))
  })

  test('422 security_critical_trace names the no-learn families', async () => {
    const u = await boot()
    const res = await u.send(
      'POST',
      INTAKE,
      traceBody({ family_version_set: { 'learning.signals': '1.0.0', 'security.audit': '2.0.0' } }),
    )
    const body = await refused(res, 422, 'security_critical_trace')
    expect(body.error.details).toEqual({ families: ['security.audit'] })
  })

  test('422 tenant_inconsistent when a trace_id or a correlation_id is already under another tenant', async () => {
    const u = await boot()
    const first = traceBody({ tenant_ref: 'tenant-a' })
    await ok(await u.send('POST', INTAKE, first))
    const sameTrace = await refused(
      await u.send('POST', INTAKE, { ...first, tenant_ref: 'tenant-b' }),
      422,
      'tenant_inconsistent',
    )
    expect(sameTrace.error.details).toEqual({ field: 'trace_id' })
    const sameCorrelation = await refused(
      await u.send(
        'POST',
        INTAKE,
        traceBody({ tenant_ref: 'tenant-b', correlation_id: first.correlation_id }),
      ),
      422,
      'tenant_inconsistent',
    )
    expect(sameCorrelation.error.details).toEqual({ field: 'correlation_id' })
    // The same correlation within one tenant is fine.
    await ok(
      await u.send(
        'POST',
        INTAKE,
        traceBody({ tenant_ref: 'tenant-a', correlation_id: first.correlation_id }),
      ),
    )
  })

  test('the same trace again returns the stored run; other fields for it are a 409', async () => {
    const u = await boot()
    const body = traceBody()
    const first = await ok(await u.send('POST', INTAKE, body))
    const again = await ok(await u.send('POST', INTAKE, body))
    expect(again).toEqual(first)
    await refused(
      await u.send('POST', INTAKE, { ...body, outcome: 'partial' }),
      409,
      'trace_already_recorded',
    )
  })

  test('bad input is a 4xx envelope, never a 5xx', async () => {
    const u = await boot()
    await refused(
      await u.send('POST', INTAKE, { ...traceBody(), outcome: 'great' }),
      400,
      'validation_failed',
    )
    await refused(
      await u.send('POST', INTAKE, { ...traceBody(), tenant_ref: '   ' }),
      400,
      'validation_failed',
    )
    const { trace_id: _t, ...missing } = traceBody()
    await refused(await u.send('POST', INTAKE, missing), 400, 'validation_failed')
    await refused(
      await u.send('POST', INTAKE, { ...traceBody(), family_version_set: { a: 1 } }),
      400,
      'validation_failed',
    )
    // A string or an array where the map is expected is refused, not copied into {"0": …}.
    for (const wrong of ['1.0.0', '𐀀', ['1.0.0'], null]) {
      await refused(
        await u.send('POST', INTAKE, { ...traceBody(), family_version_set: wrong }),
        400,
        'validation_failed',
      )
    }
    for (const key of ['x'.repeat(201), ' leading-blank', 'two\nlines']) {
      await refused(
        await u.send('POST', INTAKE, { ...traceBody(), family_version_set: { [key]: '1' } }),
        400,
        'validation_failed',
      )
    }
    await ok(await u.send('POST', INTAKE, traceBody({ family_version_set: { ['x'.repeat(200)]: '1' } })))
    await refused(
      await u.request(INTAKE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"x":',
      }),
      400,
      'malformed_body',
    )
    await refused(
      await u.request(INTAKE, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
      415,
      'unsupported_media_type',
    )
  })
})

describe('group commit of concurrent intakes', () => {
  test('concurrent intakes each get their own answer after one shared commit; duplicates and conflicts inside a group hold', async () => {
    const u = await boot()
    const bodies = Array.from({ length: 40 }, () => traceBody())
    const dup = bodies[0]!
    const clash = traceBody({ tenant_ref: 'tenant-z', correlation_id: dup.correlation_id })
    const answers = await Promise.all(
      [...bodies, dup, clash].map((b) =>
        u.send('POST', INTAKE, b).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    )
    expect(answers.slice(0, 40).every((a) => a.status === 200)).toBe(true)
    expect(new Set(answers.slice(0, 40).map((a) => a.body.run_id)).size).toBe(40)
    expect(answers[40]).toEqual(answers[0]!)
    expect(answers[41]).toMatchObject({ status: 422, body: { error: { code: 'tenant_inconsistent' } } })
    const again = await u.restart()
    unit = again
    for (const a of answers.slice(0, 40)) {
      expect((await again.request(`/api/v1/learning/runs/${a.body.run_id}`)).status).toBe(200)
    }
  })

  test('a storage failure fails the whole group with 503', async () => {
    const u = await boot()
    await u.storage.close()
    const answers = await Promise.all([traceBody(), traceBody()].map((b) => u.send('POST', INTAKE, b)))
    for (const res of answers) await refused(res, 503, 'persistence_unavailable')
  })
})

describe('GET runs/{run_id}', () => {
  test('returns the stored run, also after a restart', async () => {
    let u = await boot()
    const body = traceBody()
    const run = await ok(await u.send('POST', INTAKE, body))
    u = await u.restart()
    unit = u
    const stored = await ok(await u.request(`/api/v1/learning/runs/${run.run_id}`))
    expect(Value.Check(RunRecord, stored)).toBe(true)
    expect(stored).toMatchObject({ ...run, ...body, service_mode: 'observe_only' })
  })

  test('404 run_not_found for an unknown run', async () => {
    await refused(await (await boot()).request('/api/v1/learning/runs/nope'), 404, 'run_not_found')
  })
})

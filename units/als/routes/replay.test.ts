import { afterEach, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { canonicalHash } from '../../../common/hash.ts'
import { ProposeFromEvidenceResponse, ReplayEvaluateResponse } from '../model.ts'
import {
  type Als,
  bootAls,
  type Env,
  evaluateBody,
  evidenceBody,
  ok,
  recordRun,
  refused,
  WIDE_WINDOW,
} from '../testing.ts'

const EVALUATE = '/api/v1/learning/replay/evaluate'
const EVIDENCE = '/api/v1/learning/replay/propose-from-evidence'
let unit: Als | undefined
afterEach(async () => {
  await unit?.dispose()
  unit = undefined
})
const boot = async (env: Env = {}) => {
  unit = await bootAls(env)
  return unit
}

describe('POST replay/evaluate', () => {
  test('accepts a candidate within bounds and better than the baseline', async () => {
    const body = evaluateBody()
    const r = await ok(await (await boot()).send('POST', EVALUATE, body))
    expect(Value.Check(ReplayEvaluateResponse, r)).toBe(true)
    expect(r).toMatchObject({ verdict: 'accept', threshold_pass: true, regression_free: true })
    expect(r.candidate_hash).toBe(
      canonicalHash({
        target_type: body.target_type,
        target_id: body.target_id,
        candidate_metrics: body.candidate_metrics,
      }),
    )
    expect(r.provenance_hash).toBe(
      canonicalHash({
        target_type: body.target_type,
        target_id: body.target_id,
        threshold_contract: body.threshold_contract,
        baseline_metrics: body.baseline_metrics,
        workload_similar: true,
        source_run_hash: null,
      }),
    )
  })

  test('rejects a candidate out of bounds, inconclusive on dissimilar workloads', async () => {
    const u = await boot()
    const out = await ok(
      await u.send('POST', EVALUATE, evaluateBody({ candidate_metrics: { accuracy: 0.5, latency_ms: 1 } })),
    )
    expect(out).toMatchObject({ verdict: 'reject', threshold_pass: false })
    const dissimilar = await ok(await u.send('POST', EVALUATE, evaluateBody({ workload_similar: false })))
    expect(dissimilar).toMatchObject({ verdict: 'inconclusive', threshold_pass: true })
  })

  test('400 invalid_threshold_contract for min > max; 400 for an empty bound', async () => {
    const u = await boot()
    await refused(
      await u.send('POST', EVALUATE, evaluateBody({ threshold_contract: { a: { min: 2, max: 1 } } })),
      400,
      'invalid_threshold_contract',
    )
    await refused(
      await u.send('POST', EVALUATE, evaluateBody({ threshold_contract: { a: {} } })),
      400,
      'validation_failed',
    )
  })

  test('422 weight_training_disabled when ALS_WEIGHT_TRAINING_ENABLED=false', async () => {
    const body = evaluateBody({ target_type: 'weight_training_candidate' })
    await refused(
      await (await boot({ ALS_WEIGHT_TRAINING_ENABLED: 'false' })).send('POST', EVALUATE, body),
      422,
      'weight_training_disabled',
    )
    await unit?.dispose()
    await ok(await (await boot()).send('POST', EVALUATE, body))
  })

  test('422 replay_budget_exhausted past the rolling-hour budget, still so after a restart', async () => {
    let u = await boot({ ALS_REPLAY_BUDGET: '2' })
    await ok(await u.send('POST', EVALUATE, evaluateBody()))
    await ok(await u.send('POST', EVALUATE, evaluateBody()))
    const body = await refused(await u.send('POST', EVALUATE, evaluateBody()), 422, 'replay_budget_exhausted')
    expect(body.error.details).toMatchObject({ budget: 2, used: 2 })
    expect(typeof body.error.details.next_slot_at).toBe('string')
    u = await u.restart()
    unit = u
    await refused(await u.send('POST', EVALUATE, evaluateBody()), 422, 'replay_budget_exhausted')
    const ready = await ok(await u.request('/ready'))
    expect(ready.queue_depth).toMatchObject({ replays_last_hour: 2, replay_budget_remaining: 0 })
    expect(ready.backpressure).toBe(true)
    // A bigger budget after restart frees slots at once.
    u = await u.restart({ ALS_REPLAY_BUDGET: '3' })
    unit = u
    await ok(await u.send('POST', EVALUATE, evaluateBody()))
  })
})

describe('POST replay/propose-from-evidence', () => {
  test('creates a replay and a proposal from a run that emitted a signal', async () => {
    const u = await boot()
    const run = await recordRun(u)
    const body = evidenceBody(run.run_id)
    const r = await ok(await u.send('POST', EVIDENCE, body))
    expect(Value.Check(ProposeFromEvidenceResponse, r)).toBe(true)
    expect(r).toMatchObject({ run_id: run.run_id, proposal_state: 'proposed', oscillation_detected: false })
    expect(r.decision_delta_hash).toBe(
      canonicalHash({
        target_type: body.target_type,
        target_id: body.target_id,
        current_decision: body.current_decision,
        candidate_decision: body.candidate_decision,
      }),
    )
    expect(r.candidate_hash).toBe(
      canonicalHash({
        target_type: body.target_type,
        target_id: body.target_id,
        candidate_metrics: body.replay_metrics.candidate_metrics,
      }),
    )
    expect(r.provenance_hash).toBe(
      canonicalHash({
        target_type: body.target_type,
        target_id: body.target_id,
        threshold_contract: body.threshold_contract,
        baseline_metrics: body.replay_metrics.baseline_metrics,
        workload_similar: true,
        source_run_hash: run.run_hash,
      }),
    )
    const storedRun = await ok(await u.request(`/api/v1/learning/runs/${run.run_id}`))
    expect(storedRun.state).toBe('proposed')
    const proposal = await ok(await u.request(`/api/v1/learning/proposals/${r.proposal_id}`))
    expect(proposal).toMatchObject({
      source: 'evidence',
      proposal_state: 'proposed',
      replay_id: r.replay_id,
      current_decision: body.current_decision,
      candidate_decision: body.candidate_decision,
    })
  })

  test('422 source_run_missing and source_run_no_signal', async () => {
    const u = await boot()
    await refused(await u.send('POST', EVIDENCE, evidenceBody('no-such-run')), 422, 'source_run_missing')
    const quiet = await recordRun(u, { outcome: 'success' })
    await refused(await u.send('POST', EVIDENCE, evidenceBody(quiet.run_id)), 422, 'source_run_no_signal')
  })

  test('422 decisions_identical compares canonical JSON', async () => {
    const u = await boot()
    const run = await recordRun(u)
    const body = evidenceBody(run.run_id, {
      current_decision: { a: 1, b: 2 },
      candidate_decision: { b: 2, a: 1 },
    })
    await refused(await u.send('POST', EVIDENCE, body), 422, 'decisions_identical')
  })

  test('422 baseline_validity_stale outside the window; 400 for an inverted window', async () => {
    const u = await boot()
    const run = await recordRun(u)
    const past = { valid_from: '2020-01-01T00:00:00.000Z', valid_until: '2021-01-01T00:00:00.000Z' }
    await refused(
      await u.send('POST', EVIDENCE, evidenceBody(run.run_id, { baseline_validity_window: past })),
      422,
      'baseline_validity_stale',
    )
    const future = { valid_from: '2098-01-01T00:00:00.000Z', valid_until: '2099-01-01T00:00:00.000Z' }
    await refused(
      await u.send('POST', EVIDENCE, evidenceBody(run.run_id, { baseline_validity_window: future })),
      422,
      'baseline_validity_stale',
    )
    const inverted = { valid_from: WIDE_WINDOW.valid_until, valid_until: WIDE_WINDOW.valid_from }
    await refused(
      await u.send('POST', EVIDENCE, evidenceBody(run.run_id, { baseline_validity_window: inverted })),
      400,
      'invalid_validity_window',
    )
  })

  test('422 source_evidence_stale once the run is older than ALS_EVIDENCE_MAX_AGE_S', async () => {
    const u = await boot({ ALS_EVIDENCE_MAX_AGE_S: '1' })
    const run = await recordRun(u)
    await Bun.sleep(1100)
    await refused(await u.send('POST', EVIDENCE, evidenceBody(run.run_id)), 422, 'source_evidence_stale')
  })

  test('422 replay_rejected_candidate keeps the replay and names it', async () => {
    const u = await boot()
    const run = await recordRun(u)
    const body = evidenceBody(run.run_id, {
      replay_metrics: { baseline_metrics: { accuracy: 0.8 }, candidate_metrics: { accuracy: 0.7 } },
    })
    const r = await refused(await u.send('POST', EVIDENCE, body), 422, 'replay_rejected_candidate')
    expect(r.error.details).toMatchObject({ verdict: 'reject' })
    expect(typeof r.error.details.replay_id).toBe('string')
    const ready = await ok(await u.request('/ready'))
    expect(ready.queue_depth.replays_last_hour).toBe(1)
    expect(ready.queue_depth.runs_awaiting_proposal).toBe(1)
  })

  test('422 weight_training_disabled and replay_budget_exhausted apply to evidence replays too', async () => {
    const u = await boot({ ALS_WEIGHT_TRAINING_ENABLED: 'false', ALS_REPLAY_BUDGET: '1' })
    const run = await recordRun(u)
    await refused(
      await u.send('POST', EVIDENCE, evidenceBody(run.run_id, { target_type: 'weight_training_candidate' })),
      422,
      'weight_training_disabled',
    )
    await ok(await u.send('POST', EVIDENCE, evidenceBody(run.run_id)))
    const other = await recordRun(u)
    await refused(await u.send('POST', EVIDENCE, evidenceBody(other.run_id)), 422, 'replay_budget_exhausted')
  })

  test('400 decision_too_deep for decisions nested past the limit', async () => {
    const u = await boot()
    const run = await recordRun(u)
    let deep: unknown = 'x'
    for (let i = 0; i < 40; i++) deep = { d: deep }
    await refused(
      await u.send('POST', EVIDENCE, evidenceBody(run.run_id, { candidate_decision: deep })),
      400,
      'decision_too_deep',
    )
  })
})

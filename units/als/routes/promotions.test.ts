import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { canonicalHash } from '../../../common/hash.ts'
import { freePort } from '../../../test/harness.ts'
import {
  ActivateResponse,
  ApproveCheckResponse,
  ProposalRecord,
  ProposeResponse,
  RollbackResponse,
} from '../model.ts'
import {
  type Als,
  approvedProposal,
  bootAls,
  directBody,
  type Env,
  evidenceBody,
  type FakeLane,
  fakeLane,
  laneEnv,
  ok,
  proposeFromEvidence,
  recordRun,
  refused,
} from '../testing.ts'

const PROPOSE = '/api/v1/learning/promotions/propose'
const CHECK = '/api/v1/learning/promotions/approve-check'
const ACTIVATE = '/api/v1/learning/promotions/activate'
const ROLLBACK = '/api/v1/learning/promotions/rollback'
const proposalPath = (id: string) => `/api/v1/learning/proposals/${id}`

let lane: FakeLane
let unit: Als | undefined
beforeAll(() => {
  lane = fakeLane()
})
afterAll(() => lane.peer.stop())
afterEach(async () => {
  await unit?.dispose()
  unit = undefined
})
const boot = async (env: Env = {}) => {
  unit = await bootAls({ ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane), ...env })
  return unit
}

describe('POST promotions/propose', () => {
  test('creates a proposal with the spec outputs and recomputable hashes', async () => {
    const u = await boot()
    const body = directBody()
    const r = await ok(await u.send('POST', PROPOSE, body))
    expect(Value.Check(ProposeResponse, r)).toBe(true)
    expect(r).toMatchObject({
      proposal_state: 'proposed',
      revalidate_required: false,
      oscillation_detected: false,
    })
    expect(r.candidate_hash).toBe(
      canonicalHash({ target_type: 'routing_rule', target_id: 'route-1', risk_class: 'low' }),
    )
    expect(r.provenance_hash).toBe(canonicalHash(body))
    const stored = await ok(await u.request(proposalPath(r.proposal_id)))
    expect(Value.Check(ProposalRecord, stored)).toBe(true)
    expect(stored).toMatchObject({ source: 'direct', risk_class: 'low', replay_verdict: 'accept' })
  })

  test('a replay verdict other than accept requires revalidation', async () => {
    const r = await ok(
      await (await boot()).send('POST', PROPOSE, directBody({ replay_verdict: 'inconclusive' })),
    )
    expect(r.revalidate_required).toBe(true)
  })

  test('422 requested_mode_not_promotable for a requested warmup or observe_only mode', async () => {
    const u = await boot()
    for (const mode of ['warmup', 'observe_only']) {
      await refused(
        await u.send('POST', PROPOSE, directBody({ service_mode: mode })),
        422,
        'requested_mode_not_promotable',
      )
    }
  })

  test('422 service_mode_not_promotable when the service runs in warmup or observe_only', async () => {
    for (const mode of ['warmup', 'observe_only']) {
      const u = await boot({ ALS_SERVICE_MODE: mode })
      await refused(await u.send('POST', PROPOSE, directBody()), 422, 'service_mode_not_promotable')
      await u.dispose()
      unit = undefined
    }
  })

  test('422 for blocked targets and risk combinations, each with its own code', async () => {
    const u = await boot()
    await refused(await u.send('POST', PROPOSE, directBody({ no_learn: true })), 422, 'no_learn_target')
    await refused(
      await u.send('POST', PROPOSE, directBody({ security_critical: true })),
      422,
      'security_critical_target',
    )
    await refused(
      await u.send('POST', PROPOSE, directBody({ risk_class: 'critical' })),
      422,
      'blocked_target_risk',
    )
    await refused(
      await u.send(
        'POST',
        PROPOSE,
        directBody({ target_type: 'weight_training_candidate', risk_class: 'high' }),
      ),
      422,
      'blocked_target_risk',
    )
    await ok(
      await u.send(
        'POST',
        PROPOSE,
        directBody({ target_type: 'weight_training_candidate', risk_class: 'low' }),
      ),
    )
  })
})

describe('POST promotions/approve-check against the RMS approval lane', () => {
  test('an approved, fresh, matching approval approves the proposal and sends the bearer token', async () => {
    const u = await boot()
    const p = await proposeFromEvidence(u)
    const approvalId = lane.approve(p.proposal_id)
    const before = lane.peer.requests.length
    const r = await ok(await u.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: approvalId }))
    expect(Value.Check(ApproveCheckResponse, r)).toBe(true)
    expect(r).toEqual({
      proposal_id: p.proposal_id,
      approval_id: approvalId,
      proposal_state: 'approved',
      policy_approved: true,
      human_approved: true,
      stale_invalidated: false,
    })
    const call = lane.peer.requests[before]
    expect(call?.path).toBe(`/api/v1/execution/approvals/${approvalId}`)
    expect(call?.headers.get('authorization')).toBe('Bearer rms-lane-token-for-tests')
    const stored = await ok(await u.request(proposalPath(p.proposal_id)))
    expect(stored).toMatchObject({
      proposal_state: 'approved',
      approval_id: approvalId,
      policy_approved: true,
    })
  })

  test('422 proposal_not_found and invalid_transition', async () => {
    const u = await boot()
    await refused(
      await u.send('POST', CHECK, { proposal_id: 'nope', approval_id: 'a' }),
      422,
      'proposal_not_found',
    )
    const id = await approvedProposal(u, lane)
    await ok(await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'k-inv' }))
    await refused(
      await u.send('POST', CHECK, { proposal_id: id, approval_id: 'a' }),
      422,
      'invalid_transition',
    )
  })

  const refusals: [string, (proposalId: string) => string, string][] = [
    ['missing (404 on the lane)', () => 'approval-that-does-not-exist', 'approval_missing'],
    ['mismatched', () => lane.approve('another-proposal'), 'approval_mismatch'],
    ['stale', (id) => lane.approve(id, { stale: true }), 'approval_stale'],
    ['pending', (id) => lane.approve(id, { decision: 'pending', human_approved: false }), 'approval_pending'],
    ['incomplete', (id) => lane.approve(id, { human_approved: false }), 'approval_incomplete'],
  ]
  for (const [name, make, code] of refusals) {
    test(`fails closed when the approval is ${name}: 422 ${code}, proposal unchanged`, async () => {
      const u = await boot()
      const p = await proposeFromEvidence(u)
      const approvalId = make(p.proposal_id)
      const r = await refused(
        await u.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: approvalId }),
        422,
        code,
      )
      expect(r).toMatchObject({
        proposal_id: p.proposal_id,
        approval_id: approvalId,
        proposal_state: 'proposed',
      })
      expect(r.stale_invalidated).toBe(code === 'approval_stale')
      const stored = await ok(await u.request(proposalPath(p.proposal_id)))
      expect(stored).toMatchObject({
        proposal_state: 'proposed',
        policy_approved: false,
        human_approved: false,
      })
      await refused(
        await u.send('POST', ACTIVATE, { proposal_id: p.proposal_id, idempotency_key: `k-${code}` }),
        422,
        'approvals_missing',
      )
    })
  }

  test('a rejection is recorded: the proposal becomes rejected (terminal)', async () => {
    const u = await boot()
    const p = await proposeFromEvidence(u)
    const approvalId = lane.approve(p.proposal_id, { decision: 'rejected', human_approved: false })
    const r = await refused(
      await u.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: approvalId }),
      422,
      'approval_rejected',
    )
    expect(r.proposal_state).toBe('rejected')
    const good = lane.approve(p.proposal_id)
    await refused(
      await u.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: good }),
      422,
      'invalid_transition',
    )
  })

  test('approved → approved: a fresh re-check keeps the approval; approved → rejected when the lane rejects', async () => {
    const u = await boot()
    const id = await approvedProposal(u, lane)
    const approvalId = (await ok(await u.request(proposalPath(id)))).approval_id
    const again = await ok(await u.send('POST', CHECK, { proposal_id: id, approval_id: approvalId }))
    expect(again).toMatchObject({ proposal_state: 'approved', policy_approved: true, human_approved: true })
    const approval = lane.approvals.get(approvalId)
    if (approval) lane.approvals.set(approvalId, { ...approval, decision: 'rejected' })
    const r = await refused(
      await u.send('POST', CHECK, { proposal_id: id, approval_id: approvalId }),
      422,
      'approval_rejected',
    )
    expect(r.proposal_state).toBe('rejected')
    expect(await ok(await u.request(proposalPath(id)))).toMatchObject({
      proposal_state: 'rejected',
      policy_approved: false,
      human_approved: false,
    })
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'k-rej' }),
      422,
      'approvals_missing',
    )
  })

  test('a stale approval withdraws an earlier approval: approved → proposed, stale_invalidated', async () => {
    const u = await boot()
    const id = await approvedProposal(u, lane)
    const approvalId = (await ok(await u.request(proposalPath(id)))).approval_id
    const approval = lane.approvals.get(approvalId)
    if (approval) lane.approvals.set(approvalId, { ...approval, stale: true })
    const r = await refused(
      await u.send('POST', CHECK, { proposal_id: id, approval_id: approvalId }),
      422,
      'approval_stale',
    )
    expect(r).toMatchObject({ proposal_state: 'proposed', stale_invalidated: true })
    const stored = await ok(await u.request(proposalPath(id)))
    expect(stored).toMatchObject({
      proposal_state: 'proposed',
      policy_approved: false,
      stale_invalidated: true,
    })
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'k-stale' }),
      422,
      'approvals_missing',
    )
  })

  test('503 approval_lane_unavailable when RMS is down, not configured, or refuses the token', async () => {
    const down = await boot({ SVC_RMS_URL: `http://127.0.0.1:${freePort()}` })
    const p = await proposeFromEvidence(down)
    const r = await refused(
      await down.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: 'x' }),
      503,
      'approval_lane_unavailable',
    )
    expect(r.error.details.reason).toBe('unreachable')
    expect((await ok(await down.request(proposalPath(p.proposal_id)))).proposal_state).toBe('proposed')
    await down.dispose()

    const unset = await boot({ SVC_RMS_URL: undefined, SVC_RMS_TOKEN: undefined })
    const q = await proposeFromEvidence(unset)
    const n = await refused(
      await unset.send('POST', CHECK, { proposal_id: q.proposal_id, approval_id: 'x' }),
      503,
      'approval_lane_unavailable',
    )
    expect(n.error.details.reason).toBe('not_configured')
    await unset.dispose()

    const wrongToken = await boot({ SVC_RMS_TOKEN: 'wrong' })
    const w = await proposeFromEvidence(wrongToken)
    const id = lane.approve(w.proposal_id)
    const b = await refused(
      await wrongToken.send('POST', CHECK, { proposal_id: w.proposal_id, approval_id: id }),
      503,
      'approval_lane_unavailable',
    )
    expect(b.error.details.reason).toBe('bad_status')
  })
})

describe('POST promotions/activate', () => {
  test('activates an approved proposal with runtime state before and after', async () => {
    const u = await boot()
    const id = await approvedProposal(u, lane)
    const r = await ok(await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'act-1' }))
    expect(Value.Check(ActivateResponse, r)).toBe(true)
    expect(r).toMatchObject({
      proposal_id: id,
      proposal_state: 'activated',
      runtime_state_before: {
        target_type: 'decision_policy',
        target_id: 'policy-1',
        active_proposal_id: null,
        decision: { route: 'a' },
      },
      runtime_state_after: { active_proposal_id: id, decision: { route: 'b' } },
    })
  })

  test('is idempotent per key: the repeat is byte-identical and changes nothing', async () => {
    const u = await boot({ ALS_PROMOTION_VELOCITY_MAX: '1' })
    const id = await approvedProposal(u, lane)
    const first = await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'same-key' })
    const firstText = await first.text()
    expect(first.status).toBe(200)
    // With a velocity max of 1 a second real activation would be refused; the replay is not.
    const again = await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'same-key' })
    expect(again.status).toBe(200)
    expect(await again.text()).toBe(firstText)
    const metrics = await (await u.request('/metrics')).text()
    expect(metrics).toContain('svc_als_activations_total{result="activated",unit="als"} 1')
    expect(metrics).toContain('svc_als_activations_total{result="replayed",unit="als"} 1')
    // Concurrent repeats: one effect, identical answers.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'same-key' }).then((r) => r.text()),
      ),
    )
    expect(new Set(answers)).toEqual(new Set([firstText]))
  })

  test('409 idempotency_key_reused for the same key on another proposal; a new key on an activated proposal is 422', async () => {
    const u = await boot()
    const a = await approvedProposal(u, lane, { target_id: 'a' })
    const b = await approvedProposal(u, lane, { target_id: 'b' })
    await ok(await u.send('POST', ACTIVATE, { proposal_id: a, idempotency_key: 'shared' }))
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: b, idempotency_key: 'shared' }),
      409,
      'idempotency_key_reused',
    )
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: a, idempotency_key: 'other' }),
      422,
      'invalid_transition',
    )
  })

  test('422 service_mode_not_promotable when the service is not effectively promotion_enabled', async () => {
    let u = await boot()
    const id = await approvedProposal(u, lane)
    u = await u.restart({ ALS_SERVICE_MODE: 'observe_only' })
    unit = u
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'k' }),
      422,
      'service_mode_not_promotable',
    )
  })

  test('422 proposal_not_found and approvals_missing', async () => {
    const u = await boot()
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: 'nope', idempotency_key: 'k1' }),
      422,
      'proposal_not_found',
    )
    const p = await proposeFromEvidence(u)
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: p.proposal_id, idempotency_key: 'k2' }),
      422,
      'approvals_missing',
    )
  })

  test('422 conflicting_active_candidate while another candidate is active on the target', async () => {
    const u = await boot()
    const first = await approvedProposal(u, lane)
    const second = await approvedProposal(u, lane, { candidate_decision: { route: 'c' } })
    await ok(await u.send('POST', ACTIVATE, { proposal_id: first, idempotency_key: 'c1' }))
    const r = await refused(
      await u.send('POST', ACTIVATE, { proposal_id: second, idempotency_key: 'c2' }),
      422,
      'conflicting_active_candidate',
    )
    expect(r.error.details).toEqual({ active_proposal_id: first })
    await ok(
      await u.send('POST', ROLLBACK, { proposal_id: first, idempotency_key: 'r1', reason: 'make room' }),
    )
    await ok(await u.send('POST', ACTIVATE, { proposal_id: second, idempotency_key: 'c3' }))
  })

  test('422 promotion_velocity_breaker_active past the activations allowed in the window, also after restart', async () => {
    let u = await boot({ ALS_PROMOTION_VELOCITY_MAX: '2' })
    const a = await approvedProposal(u, lane, { target_id: 'v1' })
    const b = await approvedProposal(u, lane, { target_id: 'v2' })
    const c = await approvedProposal(u, lane, { target_id: 'v3' })
    await ok(await u.send('POST', ACTIVATE, { proposal_id: a, idempotency_key: 'v1' }))
    await ok(await u.send('POST', ACTIVATE, { proposal_id: b, idempotency_key: 'v2' }))
    const r = await refused(
      await u.send('POST', ACTIVATE, { proposal_id: c, idempotency_key: 'v3' }),
      422,
      'promotion_velocity_breaker_active',
    )
    expect(r.error.details).toMatchObject({ activations: 2, max: 2 })
    u = await u.restart()
    unit = u
    await refused(
      await u.send('POST', ACTIVATE, { proposal_id: c, idempotency_key: 'v3' }),
      422,
      'promotion_velocity_breaker_active',
    )
    expect((await ok(await u.request(proposalPath(c)))).proposal_state).toBe('approved')
  })
})

describe('POST promotions/rollback', () => {
  test('restores the runtime state from before the activation; idempotent per key', async () => {
    const u = await boot()
    const id = await approvedProposal(u, lane)
    const act = await ok(await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'a' }))
    const res = await u.send('POST', ROLLBACK, {
      proposal_id: id,
      idempotency_key: 'rb',
      reason: 'regressed in production',
    })
    const text = await res.text()
    const r = JSON.parse(text)
    expect(res.status).toBe(200)
    expect(Value.Check(RollbackResponse, r)).toBe(true)
    expect(r).toMatchObject({ proposal_id: id, final_state: 'rolled_back', rollback_restored: true })
    expect(r.runtime_state_before).toEqual(act.runtime_state_after)
    expect(r.runtime_state_after).toEqual(act.runtime_state_before)
    const again = await u.send('POST', ROLLBACK, {
      proposal_id: id,
      idempotency_key: 'rb',
      reason: 'regressed in production',
    })
    expect(await again.text()).toBe(text)
    await refused(
      await u.send('POST', ROLLBACK, { proposal_id: id, idempotency_key: 'rb', reason: 'another reason' }),
      409,
      'idempotency_key_reused',
    )
    const stored = await ok(await u.request(proposalPath(id)))
    expect(stored).toMatchObject({
      proposal_state: 'rolled_back',
      rollback_reason: 'regressed in production',
      rollback_restored: true,
    })
  })

  test('422 proposal_not_activated (and proposal_not_found); 400 without a reason', async () => {
    const u = await boot()
    const p = await proposeFromEvidence(u)
    await refused(
      await u.send('POST', ROLLBACK, { proposal_id: p.proposal_id, idempotency_key: 'x', reason: 'r' }),
      422,
      'proposal_not_activated',
    )
    await refused(
      await u.send('POST', ROLLBACK, { proposal_id: 'nope', idempotency_key: 'x', reason: 'r' }),
      422,
      'proposal_not_found',
    )
    await refused(
      await u.send('POST', ROLLBACK, { proposal_id: p.proposal_id, idempotency_key: 'x' }),
      400,
      'validation_failed',
    )
    await refused(
      await u.send('POST', ROLLBACK, { proposal_id: p.proposal_id, idempotency_key: 'x', reason: ' ' }),
      400,
      'validation_failed',
    )
  })

  test('is allowed in observe_only: rolling back only ever undoes', async () => {
    let u = await boot()
    const id = await approvedProposal(u, lane)
    await ok(await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'a' }))
    u = await u.restart({ ALS_SERVICE_MODE: 'observe_only' })
    unit = u
    const r = await ok(
      await u.send('POST', ROLLBACK, { proposal_id: id, idempotency_key: 'b', reason: 'mode lowered' }),
    )
    expect(r.final_state).toBe('rolled_back')
  })
})

describe('oscillation', () => {
  test('re-proposing a candidate that was activated and rolled back is flagged', async () => {
    const u = await boot({ ALS_OSCILLATION_MIN_REVERSALS: '2' })
    const id = await approvedProposal(u, lane)
    await ok(await u.send('POST', ACTIVATE, { proposal_id: id, idempotency_key: 'o1' }))
    await ok(await u.send('POST', ROLLBACK, { proposal_id: id, idempotency_key: 'o2', reason: 'flip' }))
    // Runtime went a → b → a; proposing b again is the second reversal.
    const again = await proposeFromEvidence(u)
    expect(again.oscillation_detected).toBe(true)
    const stored = await ok(await u.request(proposalPath(again.proposal_id)))
    expect(stored).toMatchObject({ oscillation_detected: true, revalidate_required: true })
    // Another target is unaffected.
    const other = await proposeFromEvidence(u, { target_id: 'policy-2' })
    expect(other.oscillation_detected).toBe(false)
  })
})

describe('the whole lifecycle survives restarts', () => {
  test('run, replay, proposal, approval, activation, rollback and idempotency keys persist', async () => {
    let u = await boot()
    const run = await recordRun(u)
    const p = await ok(
      await u.send('POST', '/api/v1/learning/replay/propose-from-evidence', evidenceBody(run.run_id)),
    )
    u = await u.restart()
    unit = u
    const approvalId = lane.approve(p.proposal_id)
    await ok(await u.send('POST', CHECK, { proposal_id: p.proposal_id, approval_id: approvalId }))
    u = await u.restart()
    unit = u
    const act = await u.send('POST', ACTIVATE, { proposal_id: p.proposal_id, idempotency_key: 'persist' })
    const actText = await act.text()
    u = await u.restart()
    unit = u
    const replay = await u.send('POST', ACTIVATE, { proposal_id: p.proposal_id, idempotency_key: 'persist' })
    expect(await replay.text()).toBe(actText)
    await ok(
      await u.send('POST', ROLLBACK, {
        proposal_id: p.proposal_id,
        idempotency_key: 'persist-rb',
        reason: 'done',
      }),
    )
    u = await u.restart()
    unit = u
    const stored = await ok(await u.request(proposalPath(p.proposal_id)))
    expect(stored).toMatchObject({
      proposal_state: 'rolled_back',
      approval_id: approvalId,
      run_id: run.run_id,
      rollback_restored: true,
    })
    expect(stored.runtime_state_after.active_proposal_id).toBe(p.proposal_id)
    expect((await ok(await u.request(`/api/v1/learning/runs/${run.run_id}`))).state).toBe('proposed')
  })

  test('404 proposal_not_found for GET of an unknown proposal', async () => {
    await refused(await (await boot()).request(proposalPath('nope')), 404, 'proposal_not_found')
  })
})

/** Fixtures shared by ALS's tests: request bodies, a fake PRS matrix and a fake RMS approval lane. */
import { expect } from 'bun:test'
import {
  bootForTestAsync,
  type FakePeer,
  fakePeer,
  type Json,
  json,
  type TestUnit,
} from '../../test/harness.ts'
import { als } from './index.ts'
import type { Approval } from './rules/approval.ts'

export type Als = TestUnit<unknown>
export type Env = Record<string, string | undefined>

export const RMS_TOKEN = 'rms-lane-token-for-tests'

export const bootAls = async (env: Env = {}): Promise<Als> => (await bootForTestAsync(als, env)) as Als

let traceSeq = 0
export function traceBody(overrides: Record<string, unknown> = {}) {
  traceSeq++
  return {
    tenant_ref: 'tenant-a',
    trace_id: `trace-${traceSeq}-${Math.random().toString(36).slice(2, 8)}`,
    correlation_id: `corr-${traceSeq}`,
    outcome: 'failure',
    guardrail_decision: 'ALLOW',
    family_version_set: { 'learning.signals': '1.0.0' },
    ...overrides,
  }
}

export const WIDE_WINDOW = { valid_from: '2020-01-01T00:00:00.000Z', valid_until: '2099-01-01T00:00:00.000Z' }

export function evidenceBody(runId: string, overrides: Record<string, unknown> = {}) {
  return {
    run_id: runId,
    target_type: 'decision_policy',
    target_id: 'policy-1',
    current_decision: { route: 'a' },
    candidate_decision: { route: 'b' },
    replay_metrics: { baseline_metrics: { accuracy: 0.8 }, candidate_metrics: { accuracy: 0.9 } },
    threshold_contract: { accuracy: { min: 0.85 } },
    baseline_validity_window: WIDE_WINDOW,
    ...overrides,
  }
}

export function evaluateBody(overrides: Record<string, unknown> = {}) {
  return {
    target_type: 'decision_policy',
    target_id: 'policy-1',
    threshold_contract: { accuracy: { min: 0.85 }, latency_ms: { max: 200 } },
    baseline_metrics: { accuracy: 0.8, latency_ms: 180 },
    candidate_metrics: { accuracy: 0.9, latency_ms: 150 },
    workload_similar: true,
    ...overrides,
  }
}

export function directBody(overrides: Record<string, unknown> = {}) {
  return {
    service_mode: 'promotion_enabled',
    risk_class: 'low',
    replay_verdict: 'accept',
    no_learn: false,
    security_critical: false,
    target_type: 'routing_rule',
    target_id: 'route-1',
    ...overrides,
  }
}

export async function ok(res: Response, status = 200): Promise<Json> {
  const text = await res.text()
  expect({ status: res.status, body: text }).toMatchObject({ status })
  return JSON.parse(text)
}

/** Expect the error envelope with this status and code; returns the whole body. */
export async function refused(res: Response, status: number, code: string): Promise<Json> {
  const body: Json = await res.json()
  expect({ status: res.status, code: body?.error?.code }).toEqual({ status, code })
  expect(typeof body.error.message).toBe('string')
  return body
}

export async function recordRun(u: Als, overrides: Record<string, unknown> = {}) {
  return ok(await u.send('POST', '/api/v1/learning/signals/intake', traceBody(overrides)))
}

export async function proposeFromEvidence(u: Als, overrides: Record<string, unknown> = {}) {
  const run = await recordRun(u)
  return ok(
    await u.send(
      'POST',
      '/api/v1/learning/replay/propose-from-evidence',
      evidenceBody(run.run_id, overrides),
    ),
  )
}

/** A fake RMS approval lane: approvals by id; an id absent from the map is a 404. */
export interface FakeLane {
  peer: FakePeer
  approvals: Map<string, Approval>
  /** Register an approval for a proposal (approved and fresh unless overridden). */
  approve(proposalId: string, overrides?: Partial<Approval>): string
}

export function fakeLane(): FakeLane {
  const approvals = new Map<string, Approval>()
  let seq = 0
  const peer = fakePeer((req) => {
    if (req.headers.get('authorization') !== `Bearer ${RMS_TOKEN}`)
      return json({ error: 'unauthorized' }, 401)
    const match = /^\/api\/v1\/execution\/approvals\/([^/?]+)$/.exec(req.path)
    const approval = match ? approvals.get(decodeURIComponent(match[1] ?? '')) : undefined
    return approval ? json(approval) : json({ error: { code: 'not_found' } }, 404)
  })
  return {
    peer,
    approvals,
    approve(proposalId, overrides = {}) {
      const id = `approval-${++seq}`
      approvals.set(id, {
        approval_id: id,
        proposal_ref: proposalId,
        decision: 'approved',
        policy_approved: true,
        human_approved: true,
        decided_at: '2026-11-22T00:00:00.000Z',
        stale: false,
        ...overrides,
      })
      return id
    },
  }
}

export const laneEnv = (lane: FakeLane): Env => ({ SVC_RMS_URL: lane.peer.url, SVC_RMS_TOKEN: RMS_TOKEN })

export const MATRIX = {
  producer_families: ['learning.signals', 'registry.contract_matrix', 'learning.signals'],
  consumer_families: ['execution.approval_lane'],
  version: 'matrix-7',
  generated_at: '2026-11-22T00:00:00.000Z',
}

export const fakePrs = (matrix: unknown = MATRIX) =>
  fakePeer((req) => (req.path === '/api/v1/contracts/matrix' ? json(matrix) : json({}, 404)))

/** Propose from evidence and get the lane's approval: a proposal ready to activate. */
export async function approvedProposal(u: Als, lane: FakeLane, overrides: Record<string, unknown> = {}) {
  const p = await proposeFromEvidence(u, overrides)
  const approvalId = lane.approve(p.proposal_id)
  const check = await ok(
    await u.send('POST', '/api/v1/learning/promotions/approve-check', {
      proposal_id: p.proposal_id,
      approval_id: approvalId,
    }),
  )
  expect(check.proposal_state).toBe('approved')
  return p.proposal_id as string
}

import { describe, expect, test } from 'bun:test'
import { canonicalJson, sha256Hex } from '../../../common/hash.ts'
import {
  decisionDeltaHash,
  directCandidateHash,
  directProvenanceHash,
  exceedsDepth,
  replayCandidateHash,
  replayProvenanceHash,
  runHash,
  runProvenanceHash,
  sameDecision,
  sampledIn,
  samplingPoint,
} from './hashing.ts'

const trace = {
  tenant_ref: 'tenant-a',
  trace_id: 'trace-1',
  correlation_id: 'corr-1',
  outcome: 'failure',
  guardrail_decision: 'ALLOW',
  family_version_set: { 'learning.signals': '1.0.0', 'registry.contract_matrix': '2.1.0' },
}

describe('run hashes', () => {
  test('run_hash is sha256 of the canonical JSON of the six intake fields', () => {
    const text =
      '{"correlation_id":"corr-1","family_version_set":{"learning.signals":"1.0.0","registry.contract_matrix":"2.1.0"},"guardrail_decision":"ALLOW","outcome":"failure","tenant_ref":"tenant-a","trace_id":"trace-1"}'
    expect(canonicalJson(trace)).toBe(text)
    expect(runHash(trace)).toBe(sha256Hex(text))
    expect(runHash(trace)).toMatch(/^[0-9a-f]{64}$/)
  })

  test('key order does not change a hash; any field value does', () => {
    const reordered = {
      family_version_set: { 'registry.contract_matrix': '2.1.0', 'learning.signals': '1.0.0' },
      trace_id: 'trace-1',
      outcome: 'failure',
      guardrail_decision: 'ALLOW',
      correlation_id: 'corr-1',
      tenant_ref: 'tenant-a',
    }
    expect(runHash(reordered)).toBe(runHash(trace))
    expect(runHash({ ...trace, outcome: 'success' })).not.toBe(runHash(trace))
  })

  test('provenance ignores the outcome and the guardrail decision', () => {
    expect(runProvenanceHash({ ...trace, outcome: 'success', guardrail_decision: 'WARN' })).toBe(
      runProvenanceHash(trace),
    )
    expect(runProvenanceHash({ ...trace, family_version_set: {} })).not.toBe(runProvenanceHash(trace))
  })
})

describe('replay and proposal hashes', () => {
  const replay = {
    target_type: 'decision_policy',
    target_id: 'p1',
    threshold_contract: { a: { min: 1 } },
    baseline_metrics: { a: 1 },
    candidate_metrics: { a: 2 },
    workload_similar: true,
  }

  test('candidate_hash covers target and candidate metrics only', () => {
    expect(replayCandidateHash(replay)).toBe(
      sha256Hex('{"candidate_metrics":{"a":2},"target_id":"p1","target_type":"decision_policy"}'),
    )
    expect(replayCandidateHash({ ...replay, baseline_metrics: { a: 0 } })).toBe(replayCandidateHash(replay))
  })

  test('replay provenance covers the evidence and the source run', () => {
    expect(replayProvenanceHash(replay, null)).not.toBe(replayProvenanceHash(replay, 'abc'))
    expect(replayProvenanceHash({ ...replay, workload_similar: false }, null)).not.toBe(
      replayProvenanceHash(replay, null),
    )
    expect(replayProvenanceHash({ ...replay, candidate_metrics: {} }, null)).toBe(
      replayProvenanceHash(replay, null),
    )
  })

  test('decision_delta_hash is the target and both decisions', () => {
    const d = { target_type: 't', target_id: 'i', current_decision: { x: 1 }, candidate_decision: { x: 2 } }
    expect(decisionDeltaHash(d)).toBe(
      sha256Hex(
        '{"candidate_decision":{"x":2},"current_decision":{"x":1},"target_id":"i","target_type":"t"}',
      ),
    )
  })

  test('direct proposal hashes', () => {
    const p = {
      service_mode: 'promotion_enabled',
      risk_class: 'low',
      replay_verdict: 'accept',
      no_learn: false,
      security_critical: false,
      target_type: 'routing_rule',
      target_id: 'r1',
    }
    expect(directCandidateHash(p)).toBe(
      sha256Hex('{"risk_class":"low","target_id":"r1","target_type":"routing_rule"}'),
    )
    expect(directCandidateHash({ ...p, replay_verdict: 'reject' })).toBe(directCandidateHash(p))
    expect(directProvenanceHash({ ...p, replay_verdict: 'reject' })).not.toBe(directProvenanceHash(p))
  })

  test('decisions compare by canonical JSON', () => {
    expect(sameDecision({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true)
    expect(sameDecision({ a: 1 }, { a: 2 })).toBe(false)
    expect(sameDecision('x', 'x')).toBe(true)
  })
})

describe('sampling', () => {
  test('is deterministic and in [0, 1)', () => {
    const p = samplingPoint('t', 'trace')
    expect(p).toBe(samplingPoint('t', 'trace'))
    expect(p).toBeGreaterThanOrEqual(0)
    expect(p).toBeLessThan(1)
  })

  test('rate 1 takes everything, rate 0 nothing, and a rate takes about its share', () => {
    expect(sampledIn('t', 'x', 1)).toBe(true)
    expect(sampledIn('t', 'x', 0)).toBe(false)
    let taken = 0
    for (let i = 0; i < 2000; i++) if (sampledIn('t', `trace-${i}`, 0.25)) taken++
    expect(taken).toBeGreaterThan(400)
    expect(taken).toBeLessThan(600)
  })

  test('a trace sampled in at a rate stays in at any higher rate', () => {
    for (let i = 0; i < 200; i++) {
      if (sampledIn('t', `trace-${i}`, 0.3)) expect(sampledIn('t', `trace-${i}`, 0.6)).toBe(true)
    }
  })
})

describe('exceedsDepth', () => {
  test('counts nesting of arrays and objects', () => {
    expect(exceedsDepth('x', 0)).toBe(false)
    expect(exceedsDepth({ a: 1 }, 1)).toBe(false)
    expect(exceedsDepth({ a: [1] }, 1)).toBe(true)
    let deep: unknown = 1
    for (let i = 0; i < 20; i++) deep = [deep]
    expect(exceedsDepth(deep, 16)).toBe(true)
    expect(exceedsDepth(deep, 20)).toBe(false)
  })
})

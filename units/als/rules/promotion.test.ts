import { describe, expect, test } from 'bun:test'
import {
  detectOscillation,
  evidenceStale,
  proposalBlock,
  revalidateRequired,
  runtimeStateKey,
  velocityBreakerActive,
  withinWindow,
} from './promotion.ts'

const base = { no_learn: false, security_critical: false }

describe('proposalBlock', () => {
  test('no-learn and security-critical targets are blocked before risk', () => {
    expect(
      proposalBlock({ ...base, no_learn: true, target_type: 'routing_rule', risk_class: 'low' })?.code,
    ).toBe('no_learn_target')
    expect(
      proposalBlock({ ...base, security_critical: true, target_type: 'routing_rule', risk_class: 'low' })
        ?.code,
    ).toBe('security_critical_target')
  })

  test('critical risk is blocked everywhere, high only for weight training and guardrail thresholds', () => {
    expect(proposalBlock({ ...base, target_type: 'routing_rule', risk_class: 'critical' })?.code).toBe(
      'blocked_target_risk',
    )
    expect(
      proposalBlock({ ...base, target_type: 'weight_training_candidate', risk_class: 'high' })?.code,
    ).toBe('blocked_target_risk')
    expect(proposalBlock({ ...base, target_type: 'routing_rule', risk_class: 'high' })).toBeUndefined()
    expect(
      proposalBlock({ ...base, target_type: 'weight_training_candidate', risk_class: 'medium' }),
    ).toBeUndefined()
  })
})

describe('detectOscillation', () => {
  test('counts A, B, A reversals', () => {
    expect(detectOscillation(['A'], 'B', 1)).toBe(false)
    expect(detectOscillation(['A', 'B'], 'A', 1)).toBe(true)
    expect(detectOscillation(['A', 'B'], 'A', 2)).toBe(false)
    expect(detectOscillation(['A', 'B', 'A'], 'B', 2)).toBe(true)
    expect(detectOscillation(['A', 'B', 'C'], 'D', 1)).toBe(false)
  })

  test('staying on the same state is not a reversal', () => {
    expect(detectOscillation(['A', 'A'], 'A', 1)).toBe(false)
  })
})

describe('runtimeStateKey', () => {
  test('the decision identifies the state when known, else the candidate', () => {
    expect(runtimeStateKey({ candidate_hash: 'x', decision: 'd' })).toBe(
      runtimeStateKey({ candidate_hash: 'y', decision: 'd' }),
    )
    expect(runtimeStateKey({ candidate_hash: 'x', decision: null })).not.toBe(
      runtimeStateKey({ candidate_hash: 'y', decision: null }),
    )
  })
})

describe('small rules', () => {
  test('revalidation is required unless the replay accepted and nothing oscillates', () => {
    expect(revalidateRequired('accept', false)).toBe(false)
    expect(revalidateRequired('inconclusive', false)).toBe(true)
    expect(revalidateRequired('accept', true)).toBe(true)
  })

  test('the velocity breaker trips at the maximum', () => {
    expect(velocityBreakerActive(4, 5)).toBe(false)
    expect(velocityBreakerActive(5, 5)).toBe(true)
  })

  test('validity windows are inclusive; evidence goes stale past its age', () => {
    expect(withinWindow(5, 5, 10)).toBe(true)
    expect(withinWindow(10, 5, 10)).toBe(true)
    expect(withinWindow(11, 5, 10)).toBe(false)
    expect(evidenceStale(0, 100, 100)).toBe(false)
    expect(evidenceStale(0, 101, 100)).toBe(true)
  })
})

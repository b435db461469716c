import { describe, expect, test } from 'bun:test'
import { emitsSignal, familyZone, priorityScore, securityCriticalFamilies } from './intake.ts'

describe('priorityScore', () => {
  test('0.8 × outcome weight + 0.2 × guardrail weight, rounded', () => {
    expect(priorityScore('success', 'ALLOW')).toBe(0)
    expect(priorityScore('success', 'WARN')).toBe(20)
    expect(priorityScore('partial', 'ALLOW')).toBe(40)
    expect(priorityScore('escalated', 'ALLOW')).toBe(60)
    expect(priorityScore('failure', 'ALLOW')).toBe(80)
    expect(priorityScore('failure', 'WARN')).toBe(100)
  })
})

describe('security-critical traces', () => {
  test('the zone is the first segment of the family key', () => {
    expect(familyZone('security.audit')).toBe('security')
    expect(familyZone('Identity/tokens')).toBe('identity')
    expect(familyZone('learning.signals')).toBe('learning')
  })

  test('families in a no-learn zone are named, sorted', () => {
    expect(
      securityCriticalFamilies({ 'learning.signals': '1', 'secrets.vault': '2', 'authority:grants': '1' }),
    ).toEqual(['authority:grants', 'secrets.vault'])
    expect(securityCriticalFamilies({ 'learning.signals': '1', 'securityish.x': '1' })).toEqual([])
  })
})

describe('emitsSignal', () => {
  test('needs a mode past warmup, the trace sampled in, and enough priority', () => {
    expect(emitsSignal('observe_only', true, 40, 40)).toBe(true)
    expect(emitsSignal('promotion_enabled', true, 100, 40)).toBe(true)
    expect(emitsSignal('warmup', true, 100, 40)).toBe(false)
    expect(emitsSignal('observe_only', false, 100, 40)).toBe(false)
    expect(emitsSignal('observe_only', true, 39, 40)).toBe(false)
  })
})

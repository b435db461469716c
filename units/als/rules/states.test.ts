import { describe, expect, test } from 'bun:test'
import { effectiveMode, promotionsAllowed, signalsAllowed } from './modes.ts'
import { canApply, isTransition, PROPOSAL_STATES, TERMINAL_STATES, TRANSITIONS } from './states.ts'

describe('proposal state machine', () => {
  test('every transition joins known states', () => {
    for (const t of TRANSITIONS) {
      expect(PROPOSAL_STATES).toContain(t.from)
      expect(PROPOSAL_STATES).toContain(t.to)
    }
  })

  test('terminal states have no way out', () => {
    for (const s of TERMINAL_STATES) expect(TRANSITIONS.some((t) => t.from === s)).toBe(false)
  })

  test('approve-check applies to proposed and approved proposals only', () => {
    expect(canApply('proposed', 'approve_check')).toBe(true)
    expect(canApply('approved', 'approve_check')).toBe(true)
    expect(canApply('activated', 'approve_check')).toBe(false)
    expect(canApply('rejected', 'approve_check')).toBe(false)
  })

  test('only approved proposals activate, only activated ones roll back', () => {
    expect(PROPOSAL_STATES.filter((s) => canApply(s, 'activate'))).toEqual(['approved'])
    expect(PROPOSAL_STATES.filter((s) => canApply(s, 'rollback'))).toEqual(['activated'])
    expect(isTransition('approved', 'activate', 'activated')).toBe(true)
    expect(isTransition('proposed', 'activate', 'activated')).toBe(false)
    expect(isTransition('approved', 'approve_check', 'proposed')).toBe(true)
  })
})

describe('service modes', () => {
  test('persistence loss forces warmup', () => {
    expect(effectiveMode('promotion_enabled', true)).toBe('promotion_enabled')
    expect(effectiveMode('promotion_enabled', false)).toBe('warmup')
    expect(effectiveMode('observe_only', false)).toBe('warmup')
  })

  test('promotions need promotion_enabled; signals need a mode past warmup', () => {
    expect(promotionsAllowed('promotion_enabled')).toBe(true)
    expect(promotionsAllowed('observe_only')).toBe(false)
    expect(signalsAllowed('warmup')).toBe(false)
    expect(signalsAllowed('observe_only')).toBe(true)
  })
})

import { describe, expect, test } from 'bun:test'
import { classifyText } from './classify.ts'
import { decideLease } from './lease.ts'
import { canActivate, canReview } from './proposals.ts'
import { watchdogVerdict } from './watchdog.ts'

const now = new Date('2026-11-22T10:00:00.000Z')
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString()

describe('watchdog', () => {
  const base = {
    intervalS: 60,
    stallAfterS: 120,
    holdsLease: true,
    running: null,
    lastFinishedAt: ago(30),
    startedAt: ago(600),
  }
  test('on schedule, stalled, overdue, standby', () => {
    expect(watchdogVerdict(base, now).state).toBe('ok')
    expect(watchdogVerdict({ ...base, running: { startedAt: ago(121) } }, now)).toMatchObject({
      state: 'stalled',
      running_for_s: 121,
    })
    expect(watchdogVerdict({ ...base, running: { startedAt: ago(100) } }, now).state).toBe('ok')
    expect(watchdogVerdict({ ...base, lastFinishedAt: ago(241) }, now).state).toBe('overdue')
    expect(watchdogVerdict({ ...base, holdsLease: false, lastFinishedAt: null }, now).state).toBe('standby')
    // A stalled run is reported even by an instance that lost its lease.
    expect(watchdogVerdict({ ...base, holdsLease: false, running: { startedAt: ago(500) } }, now).state).toBe(
      'stalled',
    )
  })
})

describe('lease decisions', () => {
  test('acquire free, renew own, refuse live other, take over expired', () => {
    expect(decideLease(undefined, 'me', now)).toEqual({ action: 'acquire' })
    expect(decideLease({ holder: null, expiresAt: null }, 'me', now)).toEqual({ action: 'acquire' })
    expect(decideLease({ holder: 'me', expiresAt: ago(-60) }, 'me', now)).toEqual({ action: 'renew' })
    expect(decideLease({ holder: 'other', expiresAt: ago(-60) }, 'me', now)).toEqual({
      action: 'refuse',
      holder: 'other',
      expiresAt: ago(-60),
    })
    expect(decideLease({ holder: 'other', expiresAt: ago(1) }, 'me', now)).toEqual({
      action: 'take_over',
      from: 'other',
    })
  })
})

describe('learning proposal rules', () => {
  const pending = { state: 'pending_review' as const, proposer: 'alice', activatedAt: null }
  test('review: not by the proposer, only once', () => {
    expect(canReview(pending, 'alice')).toMatchObject({
      ok: false,
      status: 403,
      code: 'self_review_forbidden',
    })
    expect(canReview(pending, 'bob')).toEqual({ ok: true })
    expect(canReview({ ...pending, state: 'approved' }, 'bob')).toMatchObject({
      ok: false,
      status: 409,
      code: 'proposal_terminal',
    })
    expect(canReview({ ...pending, state: 'rejected' }, 'bob')).toMatchObject({
      ok: false,
      code: 'proposal_terminal',
    })
  })
  test('activation: reviewed and approved first, not by the proposer, once', () => {
    expect(canActivate(pending, 'bob')).toMatchObject({ ok: false, status: 422, code: 'review_required' })
    expect(canActivate({ ...pending, state: 'rejected' }, 'bob')).toMatchObject({
      ok: false,
      code: 'proposal_rejected',
    })
    expect(canActivate({ ...pending, state: 'approved' }, 'alice')).toMatchObject({
      ok: false,
      status: 403,
      code: 'self_activation_forbidden',
    })
    expect(canActivate({ ...pending, state: 'approved' }, 'bob')).toEqual({ ok: true })
    expect(canActivate({ ...pending, state: 'approved', activatedAt: ago(1) }, 'bob')).toMatchObject({
      ok: false,
      code: 'already_activated',
    })
  })
})

describe('classification', () => {
  const domains = [
    { domain_id: 'support', title: 's', keywords: ['ticket', 'refund'], team_id: null, profiles: [] },
    { domain_id: 'billing', title: 'b', keywords: ['invoice', 'refund'], team_id: null, profiles: [] },
  ]
  test('the best match wins; a tie is ambiguous and names no domain', () => {
    expect(classifyText('Refund this TICKET please', domains)).toMatchObject({
      status: 'classified',
      domain_id: 'support',
      confidence: 0.667,
    })
    expect(classifyText('refund', domains)).toMatchObject({ status: 'ambiguous', domain_id: null })
    expect(classifyText('hello', domains)).toMatchObject({
      status: 'unclassified',
      domain_id: null,
      confidence: 0,
    })
  })
})

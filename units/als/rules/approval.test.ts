import { describe, expect, test } from 'bun:test'
import { type Approval, evaluateApproval } from './approval.ts'

const approved: Approval = {
  approval_id: 'ap-1',
  proposal_ref: 'p-1',
  decision: 'approved',
  policy_approved: true,
  human_approved: true,
  decided_at: '2026-11-22T00:00:00.000Z',
  stale: false,
}

describe('evaluateApproval (fails closed)', () => {
  test('only a fresh, matching, approved approval with both flags passes', () => {
    expect(evaluateApproval('p-1', approved)).toEqual({
      ok: true,
      policy_approved: true,
      human_approved: true,
    })
  })

  const cases: [string, Approval | undefined, string][] = [
    ['missing', undefined, 'approval_missing'],
    ['another proposal', { ...approved, proposal_ref: 'p-2' }, 'approval_mismatch'],
    ['stale', { ...approved, stale: true }, 'approval_stale'],
    ['rejected', { ...approved, decision: 'rejected' as const }, 'approval_rejected'],
    ['pending', { ...approved, decision: 'pending' as const }, 'approval_pending'],
    ['no human approval', { ...approved, human_approved: false }, 'approval_incomplete'],
    ['no policy approval', { ...approved, policy_approved: false }, 'approval_incomplete'],
  ]
  test.each(cases)('%s is refused', (_name, approval, code) => {
    const r = evaluateApproval('p-1', approval)
    expect(r.ok).toBe(false)
    expect(r.ok ? null : (r.code as string)).toBe(code)
  })

  test('a mismatch wins over staleness; staleness over the decision', () => {
    const r = evaluateApproval('p-1', { ...approved, proposal_ref: 'x', stale: true, decision: 'rejected' })
    expect(r.ok ? '' : r.code).toBe('approval_mismatch')
    const s = evaluateApproval('p-1', { ...approved, stale: true, decision: 'rejected' })
    expect(s.ok ? '' : s.code).toBe('approval_stale')
  })
})

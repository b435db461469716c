/** What the RMS approval lane returns for one approval (docs/conventions.md §4). */
export interface Approval {
  approval_id: string
  proposal_ref: string
  decision: 'approved' | 'rejected' | 'pending'
  policy_approved: boolean
  human_approved: boolean
  decided_at: string | null
  stale: boolean
}

export type ApprovalOutcome =
  | { ok: true; policy_approved: true; human_approved: true }
  | {
      ok: false
      code:
        | 'approval_missing'
        | 'approval_mismatch'
        | 'approval_stale'
        | 'approval_rejected'
        | 'approval_pending'
        | 'approval_incomplete'
      message: string
      policy_approved: boolean
      human_approved: boolean
      stale: boolean
    }

/**
 * Judge the lane's answer for a proposal, failing closed: only an approval that exists, names
 * this proposal, is not stale, is decided `approved`, and carries both the policy and the human
 * approval counts. The checks run in this order; the first failure decides.
 */
export function evaluateApproval(proposalId: string, approval: Approval | undefined): ApprovalOutcome {
  if (!approval) {
    return {
      ok: false,
      code: 'approval_missing',
      message: 'The approval lane has no such approval.',
      policy_approved: false,
      human_approved: false,
      stale: false,
    }
  }
  const flags = { policy_approved: approval.policy_approved, human_approved: approval.human_approved }
  if (approval.proposal_ref !== proposalId) {
    return {
      ok: false,
      code: 'approval_mismatch',
      message: 'The approval belongs to another proposal.',
      ...flags,
      stale: approval.stale,
    }
  }
  if (approval.stale) {
    return { ok: false, code: 'approval_stale', message: 'The approval is stale.', ...flags, stale: true }
  }
  if (approval.decision === 'rejected') {
    return {
      ok: false,
      code: 'approval_rejected',
      message: 'The approval lane rejected the proposal.',
      ...flags,
      stale: false,
    }
  }
  if (approval.decision === 'pending') {
    return {
      ok: false,
      code: 'approval_pending',
      message: 'The approval is still pending.',
      ...flags,
      stale: false,
    }
  }
  if (!approval.policy_approved || !approval.human_approved) {
    return {
      ok: false,
      code: 'approval_incomplete',
      message: 'The approval lacks the policy or the human approval.',
      ...flags,
      stale: false,
    }
  }
  return { ok: true, policy_approved: true, human_approved: true }
}

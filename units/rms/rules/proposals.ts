/**
 * Learning-proposal rules (spec, States and transitions): review before activation, no
 * self-review, no self-activation, approved and rejected are terminal.
 */
export type ProposalState = 'pending_review' | 'approved' | 'rejected'

export interface ProposalFacts {
  state: ProposalState
  proposer: string
  activatedAt: string | null
}

export type Refusal = { ok: false; status: 403 | 409 | 422; code: string; message: string }
export type Verdict = { ok: true } | Refusal

export function canReview(p: ProposalFacts, reviewer: string): Verdict {
  if (p.state !== 'pending_review') {
    return {
      ok: false,
      status: 409,
      code: 'proposal_terminal',
      message: `The proposal is already ${p.state}; a new change needs a new proposal.`,
    }
  }
  if (reviewer === p.proposer) {
    return {
      ok: false,
      status: 403,
      code: 'self_review_forbidden',
      message: 'The proposer cannot review their own proposal.',
    }
  }
  return { ok: true }
}

export function canActivate(p: ProposalFacts, actor: string): Verdict {
  if (p.state === 'pending_review') {
    return {
      ok: false,
      status: 422,
      code: 'review_required',
      message: 'The proposal must be reviewed and approved before activation.',
    }
  }
  if (p.state === 'rejected') {
    return {
      ok: false,
      status: 422,
      code: 'proposal_rejected',
      message: 'A rejected proposal cannot be activated.',
    }
  }
  if (actor === p.proposer) {
    return {
      ok: false,
      status: 403,
      code: 'self_activation_forbidden',
      message: 'The proposer cannot activate their own proposal.',
    }
  }
  if (p.activatedAt !== null) {
    return { ok: false, status: 409, code: 'already_activated', message: 'The proposal is already active.' }
  }
  return { ok: true }
}

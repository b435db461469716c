/**
 * The promotion proposal state machine. The spec leaves the values open; these are ours:
 *
 *   proposed ──approve-check (lane approved, both flags)──▶ approved
 *   proposed ──approve-check (lane rejected)──────────────▶ rejected      (terminal)
 *   approved ──approve-check (lane rejected)──────────────▶ rejected      (terminal)
 *   approved ──approve-check (lane says stale)────────────▶ proposed      (approval invalidated)
 *   approved ──activate──────────────────────────────────▶ activated
 *   activated ──rollback─────────────────────────────────▶ rolled_back   (terminal)
 *
 * A refused approve-check (missing, pending, mismatched, incomplete approval) changes nothing.
 */
export const PROPOSAL_STATES = ['proposed', 'approved', 'rejected', 'activated', 'rolled_back'] as const
export type ProposalState = (typeof PROPOSAL_STATES)[number]

export const PROPOSAL_TRIGGERS = ['approve_check', 'activate', 'rollback'] as const
export type ProposalTrigger = (typeof PROPOSAL_TRIGGERS)[number]

export interface Transition {
  from: ProposalState
  trigger: ProposalTrigger
  to: ProposalState
  when: string
}

export const TRANSITIONS: readonly Transition[] = [
  {
    from: 'proposed',
    trigger: 'approve_check',
    to: 'approved',
    when: 'the lane approved it with policy and human approval',
  },
  { from: 'proposed', trigger: 'approve_check', to: 'rejected', when: 'the lane rejected it' },
  { from: 'approved', trigger: 'approve_check', to: 'approved', when: 'the lane still approves it' },
  { from: 'approved', trigger: 'approve_check', to: 'rejected', when: 'the lane rejected it' },
  { from: 'approved', trigger: 'approve_check', to: 'proposed', when: 'the lane reports the approval stale' },
  {
    from: 'approved',
    trigger: 'activate',
    to: 'activated',
    when: 'mode, approvals, conflict and velocity checks pass',
  },
  {
    from: 'activated',
    trigger: 'rollback',
    to: 'rolled_back',
    when: 'an idempotency key and a reason are given',
  },
]

export const TERMINAL_STATES: readonly ProposalState[] = ['rejected', 'rolled_back']

/** Whether `trigger` may be applied to a proposal in `from` at all (some targets depend on the lane). */
export function canApply(from: ProposalState, trigger: ProposalTrigger): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.trigger === trigger)
}

/** Whether `from → to` under `trigger` is one of the machine's edges. */
export function isTransition(from: ProposalState, trigger: ProposalTrigger, to: ProposalState): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.trigger === trigger && t.to === to)
}

/** Run states: every run is recorded; some emit a learning signal; a proposal may be made from those. */
export const RUN_STATES = ['recorded', 'signal_emitted', 'proposed'] as const
export type RunState = (typeof RUN_STATES)[number]

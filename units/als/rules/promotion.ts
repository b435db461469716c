import { canonicalHash } from '../../../common/hash.ts'

/** Target types a proposal may change. `weight_training_candidate` can be disabled (ALS_WEIGHT_TRAINING_ENABLED). */
export const TARGET_TYPES = [
  'decision_policy',
  'routing_rule',
  'prompt_template',
  'guardrail_threshold',
  'weight_training_candidate',
] as const
export type TargetType = (typeof TARGET_TYPES)[number]
export const WEIGHT_TRAINING = 'weight_training_candidate'

export const RISK_CLASSES = ['low', 'medium', 'high', 'critical'] as const
export type RiskClass = (typeof RISK_CLASSES)[number]

/** Target and risk combinations promotions/propose refuses. */
export const BLOCKED_COMBINATIONS: readonly { target_type: TargetType | '*'; risk_class: RiskClass }[] = [
  { target_type: '*', risk_class: 'critical' },
  { target_type: 'weight_training_candidate', risk_class: 'high' },
  { target_type: 'guardrail_threshold', risk_class: 'high' },
]

export type ProposalRefusal =
  | { code: 'no_learn_target'; message: string }
  | { code: 'security_critical_target'; message: string }
  | { code: 'blocked_target_risk'; message: string }

/** Why a direct proposal's target and risk are blocked, or undefined when they are not. */
export function proposalBlock(p: {
  target_type: TargetType
  risk_class: RiskClass
  no_learn: boolean
  security_critical: boolean
}): ProposalRefusal | undefined {
  if (p.no_learn) return { code: 'no_learn_target', message: 'The target is in a no-learn zone.' }
  if (p.security_critical) {
    return { code: 'security_critical_target', message: 'Security-critical targets are never promoted.' }
  }
  const blocked = BLOCKED_COMBINATIONS.some(
    (b) => (b.target_type === '*' || b.target_type === p.target_type) && b.risk_class === p.risk_class,
  )
  if (blocked) {
    return {
      code: 'blocked_target_risk',
      message: `Risk class ${p.risk_class} is blocked for target type ${p.target_type}.`,
    }
  }
  return undefined
}

/** What a target runs with: the active proposal (if any), its candidate and decision. */
export interface RuntimeState {
  target_type: string
  target_id: string
  active_proposal_id: string | null
  candidate_hash: string | null
  decision: unknown
}

/** Identity of a runtime state for oscillation: the decision when known, else the candidate. */
export function runtimeStateKey(s: { candidate_hash: string | null; decision: unknown }): string {
  return s.decision !== null && s.decision !== undefined
    ? canonicalHash({ decision: s.decision })
    : canonicalHash({ candidate_hash: s.candidate_hash })
}

/**
 * Oscillation: the target keeps flipping between the same states. `states` are the runtime
 * state keys the target passed through inside the window, oldest first, ending with its current
 * state; `next` is the state a new proposal would move it to. Each `A, B, A` step in
 * `states + next` is one reversal; `minReversals` of them is an oscillation.
 */
export function detectOscillation(states: readonly string[], next: string, minReversals: number): boolean {
  const seq = [...states, next]
  let reversals = 0
  for (let i = 2; i < seq.length; i++) {
    if (seq[i] === seq[i - 2] && seq[i] !== seq[i - 1]) reversals++
  }
  return reversals >= minReversals
}

/** revalidate_required: the replay did not accept the candidate, or the target oscillates. */
export const revalidateRequired = (replayVerdict: string, oscillation: boolean): boolean =>
  replayVerdict !== 'accept' || oscillation

/** The promotion velocity breaker: too many activations inside the rolling window. */
export const velocityBreakerActive = (activationsInWindow: number, maxActivations: number): boolean =>
  activationsInWindow >= maxActivations

/** Whether a moment lies inside a validity window (both ends inclusive). */
export function withinWindow(now: number, validFrom: number, validUntil: number): boolean {
  return now >= validFrom && now <= validUntil
}

/** Evidence is stale once the source run is older than the allowed age. */
export const evidenceStale = (runRecordedAt: number, now: number, maxAgeMs: number): boolean =>
  now - runRecordedAt > maxAgeMs

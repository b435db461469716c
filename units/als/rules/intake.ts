import { type ServiceMode, signalsAllowed } from './modes.ts'

export const OUTCOMES = ['success', 'partial', 'escalated', 'failure'] as const
export type Outcome = (typeof OUTCOMES)[number]

export const GUARDRAIL_DECISIONS = ['ALLOW', 'WARN', 'BLOCK'] as const
export type GuardrailDecision = (typeof GUARDRAIL_DECISIONS)[number]

/**
 * No-learn zones: family areas ALS never learns from. A trace whose family_version_set names
 * a family in one of these zones is security-critical and refused at intake.
 */
export const NO_LEARN_ZONES = ['security', 'identity', 'authority', 'credentials', 'secrets'] as const

/** How much an outcome is worth learning from, 0-100. */
const OUTCOME_WEIGHT: Record<Outcome, number> = { success: 0, partial: 50, escalated: 75, failure: 100 }
/** A guardrail warning raises the priority; BLOCK never reaches scoring (refused). */
const GUARDRAIL_WEIGHT: Record<GuardrailDecision, number> = { ALLOW: 0, WARN: 100, BLOCK: 100 }
const OUTCOME_SHARE = 0.8
const GUARDRAIL_SHARE = 0.2

/** priority_score: an integer 0-100, `round(0.8 × outcome weight + 0.2 × guardrail weight)`. */
export function priorityScore(outcome: Outcome, guardrail: GuardrailDecision): number {
  return Math.round(OUTCOME_SHARE * OUTCOME_WEIGHT[outcome] + GUARDRAIL_SHARE * GUARDRAIL_WEIGHT[guardrail])
}

/** The zone a family key falls in: its first segment (split on `.`, `/`, `:`), lower-cased. */
export function familyZone(familyKey: string): string {
  return (familyKey.split(/[./:]/, 1)[0] ?? '').trim().toLowerCase()
}

/** Family keys of the set that fall in a no-learn zone (sorted); non-empty means security-critical. */
export function securityCriticalFamilies(familyVersionSet: Record<string, string>): string[] {
  const zones = new Set<string>(NO_LEARN_ZONES)
  return Object.keys(familyVersionSet)
    .filter((key) => zones.has(familyZone(key)))
    .sort()
}

/**
 * A run emits a learning signal when the service is past warmup, the trace is sampled in, and
 * its priority reaches the configured minimum.
 */
export function emitsSignal(
  mode: ServiceMode,
  sampled: boolean,
  priority: number,
  minPriority: number,
): boolean {
  return signalsAllowed(mode) && sampled && priority >= minPriority
}

/**
 * Identity projections: how a loaded identity fact becomes the normalized, fail-closed access
 * fact (contract version 2) and the compact lifecycle fact. Pure functions; no I/O.
 */

export const ACCESS_FACT_CONTRACT_VERSION = 2

export const LIFECYCLE_STATES = ['invited', 'active', 'suspended', 'offboarded'] as const
export type LifecycleState = (typeof LIFECYCLE_STATES)[number]
export const PROJECT_MANAGER_ROLES = ['none', 'member', 'manager', 'owner'] as const
export type ProjectManagerRole = (typeof PROJECT_MANAGER_ROLES)[number]
export const SPECIAL_POSTURES = ['none', 'break_glass', 'service_account', 'locked'] as const
export type SpecialPosture = (typeof SPECIAL_POSTURES)[number]

/** One subject as the operator loads it (a line of the facts file). */
export interface IdentityFactInput {
  technical_subject: string
  business_identity_id?: string
  lifecycle_state: LifecycleState
  lifecycle_changed_at: string
  project_tool_eligibility: 'eligible' | 'ineligible'
  project_manager_role?: ProjectManagerRole
  project_manager_projects?: string[]
  special_posture?: { kind: SpecialPosture; reason?: string; expires_at?: string }
}

export type Eligibility =
  | 'eligible'
  | 'ineligible'
  | 'unknown_subject'
  | 'lifecycle_blocked'
  | 'shadowed'
  | 'posture_locked'

export interface Dominance {
  dominance: 'dominant' | 'shadowed'
  dominated_by: string | null
}

export interface AccessFact {
  contract_version: typeof ACCESS_FACT_CONTRACT_VERSION
  technical_subject: string | null
  business_identity_id: string | null
  subject_known: boolean
  lifecycle_state: LifecycleState | 'unknown'
  project_tool_login_allowed: boolean
  project_tool_eligibility: Eligibility
  project_manager_role: ProjectManagerRole
  project_manager_projects: string[]
  project_manager_allowed: boolean
  special_posture_kind: SpecialPosture
  special_posture_reason: string | null
  special_posture_expires_at: string | null
  special_posture_active: boolean
  dominance: Dominance['dominance'] | null
  dominated_by: string | null
  fail_closed_reason: string | null
  projection_version: string
  evaluated_at: string
}

export interface LifecycleFact {
  technical_subject: string
  business_identity_id: string | null
  lifecycle_state: LifecycleState
  lifecycle_changed_at: string
  dominance: Dominance['dominance']
  dominated_by: string | null
}

/** The fact for a subject nobody loaded: everything denied, and why. */
export function unknownSubjectFact(
  query: { technical_subject?: string; business_identity_id?: string },
  projectionVersion: string,
  now: Date,
): AccessFact {
  return {
    contract_version: ACCESS_FACT_CONTRACT_VERSION,
    technical_subject: query.technical_subject ?? null,
    business_identity_id: query.business_identity_id ?? null,
    subject_known: false,
    lifecycle_state: 'unknown',
    project_tool_login_allowed: false,
    project_tool_eligibility: 'unknown_subject',
    project_manager_role: 'none',
    project_manager_projects: [],
    project_manager_allowed: false,
    special_posture_kind: 'none',
    special_posture_reason: null,
    special_posture_expires_at: null,
    special_posture_active: false,
    dominance: null,
    dominated_by: null,
    fail_closed_reason: 'unknown_subject',
    projection_version: projectionVersion,
    evaluated_at: now.toISOString(),
  }
}

/**
 * Login is allowed only when every condition holds: the subject is active, eligible, the
 * dominant subject of its business identity, and not under an active `locked` posture. The
 * first failing condition is the fail-closed reason.
 */
export function accessFact(
  input: IdentityFactInput,
  dominance: Dominance,
  projectionVersion: string,
  now: Date,
): AccessFact {
  const posture = input.special_posture ?? { kind: 'none' as const }
  const postureActive =
    posture.kind !== 'none' &&
    (posture.expires_at === undefined || Date.parse(posture.expires_at) > now.getTime())
  let eligibility: Eligibility = input.project_tool_eligibility
  if (eligibility === 'eligible') {
    if (input.lifecycle_state !== 'active') eligibility = 'lifecycle_blocked'
    else if (dominance.dominance === 'shadowed') eligibility = 'shadowed'
    else if (postureActive && posture.kind === 'locked') eligibility = 'posture_locked'
  }
  const allowed = eligibility === 'eligible'
  const role = input.project_manager_role ?? 'none'
  return {
    contract_version: ACCESS_FACT_CONTRACT_VERSION,
    technical_subject: input.technical_subject,
    business_identity_id: input.business_identity_id ?? null,
    subject_known: true,
    lifecycle_state: input.lifecycle_state,
    project_tool_login_allowed: allowed,
    project_tool_eligibility: eligibility,
    project_manager_role: role,
    project_manager_projects: allowed ? (input.project_manager_projects ?? []) : [],
    project_manager_allowed: allowed && (role === 'manager' || role === 'owner'),
    special_posture_kind: posture.kind,
    special_posture_reason: posture.reason ?? null,
    special_posture_expires_at: posture.expires_at ?? null,
    special_posture_active: postureActive,
    dominance: dominance.dominance,
    dominated_by: dominance.dominated_by,
    fail_closed_reason: allowed ? null : eligibility,
    projection_version: projectionVersion,
    evaluated_at: now.toISOString(),
  }
}

/**
 * Among the subjects of one business identity, the dominant one is the active subject changed
 * most recently (else the one changed most recently); every other subject is shadowed by it.
 * Ties go to the lexically smaller subject, so the answer does not depend on load order.
 */
export function dominanceOf(
  subjects: readonly Pick<
    IdentityFactInput,
    'technical_subject' | 'lifecycle_state' | 'lifecycle_changed_at'
  >[],
): Map<string, Dominance> {
  const ranked = [...subjects].sort(
    (a, b) =>
      Number(b.lifecycle_state === 'active') - Number(a.lifecycle_state === 'active') ||
      Date.parse(b.lifecycle_changed_at) - Date.parse(a.lifecycle_changed_at) ||
      a.technical_subject.localeCompare(b.technical_subject),
  )
  const top = ranked[0]?.technical_subject ?? null
  return new Map(
    ranked.map((s) => [
      s.technical_subject,
      s.technical_subject === top
        ? { dominance: 'dominant' as const, dominated_by: null }
        : { dominance: 'shadowed' as const, dominated_by: top },
    ]),
  )
}

export function lifecycleFact(input: IdentityFactInput, dominance: Dominance): LifecycleFact {
  return {
    technical_subject: input.technical_subject,
    business_identity_id: input.business_identity_id ?? null,
    lifecycle_state: input.lifecycle_state,
    lifecycle_changed_at: input.lifecycle_changed_at,
    dominance: dominance.dominance,
    dominated_by: dominance.dominated_by,
  }
}

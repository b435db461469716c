import { Type } from '@sinclair/typebox'
// Type.Integer, not Elysia's t.Integer: t.Integer carries a string-to-number transform meant
// for query strings, and encoding it costs ~30 µs per response (docs/benchmarks.md).
import { t } from 'elysia'
import { GUARDRAIL_DECISIONS, OUTCOMES } from './rules/intake.ts'
import { SERVICE_MODES } from './rules/modes.ts'
import { RISK_CLASSES, TARGET_TYPES } from './rules/promotion.ts'
import { PROPOSAL_STATES, RUN_STATES } from './rules/states.ts'
import { REPLAY_VERDICTS } from './rules/thresholds.ts'

/** Limits of ALS inputs, enforced by the schemas below. */
export const LIMITS = {
  ref: 200,
  families: 100,
  familyKey: 200,
  familyVersion: 100,
  metrics: 100,
  metricName: 100,
  idempotencyKey: 200,
  approvalId: 128,
  reason: 2000,
  /** Nesting depth of a decision value (current_decision, candidate_decision). */
  decisionDepth: 16,
} as const

const ref = (description: string) =>
  t.String({ minLength: 1, maxLength: LIMITS.ref, pattern: '\\S', description })

const hash = (description: string) => t.String({ pattern: '^[0-9a-f]{64}$', description })
const timestamp = (description: string) => t.String({ format: 'date-time', description })

export const ServiceMode = t.UnionEnum(SERVICE_MODES, {
  description: 'warmup, observe_only or promotion_enabled',
})
export const ProposalState = t.UnionEnum(PROPOSAL_STATES, {
  description: 'proposal state (docs/units/als.md)',
})
export const RunState = t.UnionEnum(RUN_STATES, {
  description: 'run state: recorded, signal_emitted or proposed',
})
export const Outcome = t.UnionEnum(OUTCOMES, {
  description: 'trace outcome: success, partial, escalated or failure',
})
export const GuardrailDecision = t.UnionEnum(GUARDRAIL_DECISIONS, {
  description: 'guardrail decision: ALLOW, WARN or BLOCK',
})
export const TargetType = t.UnionEnum(TARGET_TYPES, { description: 'what a proposal changes' })
export const RiskClass = t.UnionEnum(RISK_CLASSES, {
  description: 'risk class: low, medium, high or critical',
})
export const ReplayVerdict = t.UnionEnum(REPLAY_VERDICTS, {
  description: 'replay verdict: accept, reject or inconclusive',
})

/**
 * A record key: TypeBox drops length limits on record keys, so they are a pattern, and keys
 * that do not match it are refused (additionalProperties: false).
 */
const recordKey = (max: number) => t.String({ pattern: `^\\S.{0,${max - 1}}$` })

export const FamilyVersionSet = t.Record(
  recordKey(LIMITS.familyKey),
  t.String({ minLength: 1, maxLength: LIMITS.familyVersion }),
  {
    maxProperties: LIMITS.families,
    additionalProperties: false,
    description: `family key (1-${LIMITS.familyKey} characters) → version of that family the trace ran with`,
  },
)

export const Metrics = t.Record(recordKey(LIMITS.metricName), t.Number(), {
  maxProperties: LIMITS.metrics,
  additionalProperties: false,
  description: `metric name (1-${LIMITS.metricName} characters) → value`,
})

export const Bound = t.Object(
  { min: t.Optional(t.Number()), max: t.Optional(t.Number()) },
  { minProperties: 1, additionalProperties: false, description: 'inclusive bounds; at least one' },
)

export const ThresholdContract = t.Record(recordKey(LIMITS.metricName), Bound, {
  minProperties: 1,
  maxProperties: LIMITS.metrics,
  additionalProperties: false,
  description: 'metric → {min?, max?}; only min: higher is better, only max: lower is better, both: a band',
})

export const Decision = t.Unknown({
  description: `any JSON value (nesting depth at most ${LIMITS.decisionDepth}); compared by canonical JSON`,
})

// ---- signals intake ----

export const IntakeRequest = t.Object({
  tenant_ref: ref('tenant the trace belongs to'),
  trace_id: ref('trace id; one run per trace'),
  correlation_id: ref('correlation id; must not span tenants'),
  outcome: Outcome,
  guardrail_decision: GuardrailDecision,
  family_version_set: FamilyVersionSet,
})

export const RunFields = {
  run_id: t.String({ description: 'UUIDv7 of the run' }),
  state: RunState,
  signal_emitted: t.Boolean(),
  run_hash: hash('canonicalHash of the six intake fields'),
  priority_score: Type.Integer({ minimum: 0, maximum: 100 }),
  provenance_hash: hash('canonicalHash of tenant_ref, trace_id, correlation_id, family_version_set'),
  sampled_in: t.Boolean(),
}

export const IntakeResponse = t.Object(RunFields)

export const RunRecord = t.Object({
  ...RunFields,
  tenant_ref: t.String(),
  trace_id: t.String(),
  correlation_id: t.String(),
  outcome: Outcome,
  guardrail_decision: GuardrailDecision,
  family_version_set: t.Record(t.String(), t.String()),
  service_mode: ServiceMode,
  recorded_at: timestamp('when the run was recorded'),
})

// ---- replay ----

export const ReplayFields = {
  target_type: TargetType,
  target_id: ref('the target within its type'),
  threshold_contract: ThresholdContract,
  baseline_metrics: Metrics,
  candidate_metrics: Metrics,
}

export const ReplayEvaluateRequest = t.Object({
  ...ReplayFields,
  workload_similar: t.Boolean({ description: 'whether baseline and candidate ran on similar workloads' }),
})

export const MetricResult = t.Object({
  metric: t.String(),
  direction: t.Union([t.Literal('higher_is_better'), t.Literal('lower_is_better'), t.Literal('within_band')]),
  candidate: t.Union([t.Number(), t.Null()]),
  baseline: t.Union([t.Number(), t.Null()]),
  within_bounds: t.Boolean(),
  no_regression: t.Boolean(),
})

export const ReplayEvaluateResponse = t.Object({
  replay_id: t.String(),
  candidate_hash: hash('canonicalHash of target_type, target_id, candidate_metrics'),
  provenance_hash: hash('canonicalHash of the evidence (docs/units/als.md)'),
  verdict: ReplayVerdict,
  threshold_pass: t.Boolean(),
  regression_free: t.Boolean(),
  metrics: t.Array(MetricResult),
  reasons: t.Array(t.String()),
})

export const ProposeFromEvidenceRequest = t.Object({
  run_id: ref('the source run'),
  target_type: TargetType,
  target_id: ref('the target within its type'),
  current_decision: Decision,
  candidate_decision: Decision,
  replay_metrics: t.Object({ baseline_metrics: Metrics, candidate_metrics: Metrics }),
  threshold_contract: ThresholdContract,
  baseline_validity_window: t.Object({
    valid_from: timestamp('start of baseline validity'),
    valid_until: timestamp('end of baseline validity'),
  }),
})

export const ProposeFromEvidenceResponse = t.Object({
  run_id: t.String(),
  replay_id: t.String(),
  proposal_id: t.String(),
  candidate_hash: hash('the replay candidate_hash'),
  provenance_hash: hash('the replay provenance_hash'),
  decision_delta_hash: hash('canonicalHash of target, current_decision, candidate_decision'),
  proposal_state: ProposalState,
  oscillation_detected: t.Boolean(),
})

// ---- promotions ----

export const ProposeRequest = t.Object({
  service_mode: t.UnionEnum(SERVICE_MODES, {
    description: 'the mode the proposer runs in; must be promotion_enabled',
  }),
  risk_class: RiskClass,
  replay_verdict: t.UnionEnum(REPLAY_VERDICTS, { description: 'verdict of the replay behind the proposal' }),
  no_learn: t.Boolean({ description: 'the target lies in a no-learn zone (refused)' }),
  security_critical: t.Boolean({ description: 'the target is security-critical (refused)' }),
  target_type: TargetType,
  target_id: ref('the target within its type'),
})

export const ProposeResponse = t.Object({
  proposal_id: t.String(),
  candidate_hash: hash('canonicalHash of target_type, target_id, risk_class'),
  provenance_hash: hash('canonicalHash of every propose input'),
  proposal_state: ProposalState,
  revalidate_required: t.Boolean(),
  oscillation_detected: t.Boolean(),
})

export const ApproveCheckRequest = t.Object({
  proposal_id: ref('the proposal'),
  approval_id: t.String({
    minLength: 1,
    maxLength: LIMITS.approvalId,
    pattern: '\\S',
    description: 'the approval on the RMS approval lane (RMS ids are at most 128 characters)',
  }),
})

export const ApprovalEvaluation = {
  proposal_id: t.String(),
  approval_id: t.String(),
  proposal_state: ProposalState,
  policy_approved: t.Boolean(),
  human_approved: t.Boolean(),
  stale_invalidated: t.Boolean(),
}

export const ApproveCheckResponse = t.Object(ApprovalEvaluation)

export const ApproveCheckRefusal = t.Object(
  {
    error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }),
    ...Object.fromEntries(Object.entries(ApprovalEvaluation).map(([k, v]) => [k, t.Optional(v)])),
  },
  {
    description:
      'The error envelope; when the lane was asked (approval_* codes) the evaluation fields sit beside it',
  },
)

export const RuntimeState = t.Object({
  target_type: t.String(),
  target_id: t.String(),
  active_proposal_id: t.Union([t.String(), t.Null()]),
  candidate_hash: t.Union([t.String(), t.Null()]),
  decision: Decision,
})

export const ActivateRequest = t.Object({
  proposal_id: ref('the proposal'),
  idempotency_key: t.String({ minLength: 1, maxLength: LIMITS.idempotencyKey, pattern: '\\S' }),
})

export const ActivateResponse = t.Object({
  proposal_id: t.String(),
  proposal_state: ProposalState,
  runtime_state_before: RuntimeState,
  runtime_state_after: RuntimeState,
  activated_at: timestamp('when the proposal was activated'),
})

export const RollbackRequest = t.Object({
  proposal_id: ref('the proposal'),
  idempotency_key: t.String({ minLength: 1, maxLength: LIMITS.idempotencyKey, pattern: '\\S' }),
  reason: t.String({ minLength: 1, maxLength: LIMITS.reason, pattern: '\\S' }),
})

export const RollbackResponse = t.Object({
  proposal_id: t.String(),
  final_state: ProposalState,
  rollback_restored: t.Boolean(),
  runtime_state_before: RuntimeState,
  runtime_state_after: RuntimeState,
  rolled_back_at: timestamp('when the proposal was rolled back'),
})

export const ProposalRecord = t.Object({
  proposal_id: t.String(),
  source: t.Union([t.Literal('evidence'), t.Literal('direct')]),
  proposal_state: ProposalState,
  target_type: t.String(),
  target_id: t.String(),
  run_id: t.Union([t.String(), t.Null()]),
  replay_id: t.Union([t.String(), t.Null()]),
  risk_class: t.Union([t.String(), t.Null()]),
  replay_verdict: t.String(),
  service_mode: ServiceMode,
  current_decision: Decision,
  candidate_decision: Decision,
  candidate_hash: t.String(),
  provenance_hash: t.String(),
  decision_delta_hash: t.Union([t.String(), t.Null()]),
  revalidate_required: t.Boolean(),
  oscillation_detected: t.Boolean(),
  approval_id: t.Union([t.String(), t.Null()]),
  policy_approved: t.Boolean(),
  human_approved: t.Boolean(),
  stale_invalidated: t.Boolean(),
  approval_checked_at: t.Union([t.String(), t.Null()]),
  runtime_state_before: t.Union([RuntimeState, t.Null()]),
  runtime_state_after: t.Union([RuntimeState, t.Null()]),
  activated_at: t.Union([t.String(), t.Null()]),
  rollback_reason: t.Union([t.String(), t.Null()]),
  rollback_restored: t.Union([t.Boolean(), t.Null()]),
  rolled_back_at: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
  updated_at: t.String(),
})

export const RunIdParams = t.Object({ run_id: t.String({ minLength: 1, maxLength: LIMITS.ref }) })
export const ProposalIdParams = t.Object({ proposal_id: t.String({ minLength: 1, maxLength: LIMITS.ref }) })

// ---- status views ----

export const HealthResponse = t.Object({ status: t.Literal('ok'), service: t.Literal('als') })

export const VersionResponse = t.Object({
  service: t.Literal('als'),
  version: t.String(),
  effective_service_mode: ServiceMode,
  configured_service_mode: ServiceMode,
  commit: t.String(),
})

export const FamilyState = t.Union(
  [t.Literal('fresh'), t.Literal('stale'), t.Literal('unavailable'), t.Literal('not_configured')],
  { description: 'fresh: within the max age; stale: last answer too old; unavailable: never answered' },
)

export const PlatformAlignment = t.Object({
  family_source: t.Literal('prs'),
  registry_configured: t.Boolean(),
  registry_reachable: t.Boolean(),
  family_state: FamilyState,
  matrix_version: t.Union([t.String(), t.Null()]),
  producer_family_count: Type.Integer(),
  consumer_family_count: Type.Integer(),
  fetched_at: t.Union([t.String(), t.Null()]),
  age_ms: t.Union([Type.Integer(), t.Null()]),
  max_age_ms: Type.Integer(),
  last_error: t.Union([t.String(), t.Null()]),
})

const count = t.Union([Type.Integer({ minimum: 0 }), t.Null()], {
  description: 'null when persistence is down',
})

export const QueueDepth = t.Object({
  runs_awaiting_proposal: count,
  proposals_awaiting_approval: count,
  proposals_awaiting_activation: count,
  proposals_activated: count,
  replays_last_hour: count,
  replay_budget: Type.Integer(),
  replay_budget_remaining: count,
  high_water: Type.Integer(),
})

export const Readiness = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('degraded')]),
  service: t.Literal('als'),
  effective_service_mode: ServiceMode,
  configured_service_mode: ServiceMode,
  persistence_ready: t.Boolean(),
  platform_alignment: PlatformAlignment,
  queue_depth: QueueDepth,
  backpressure: t.Boolean(),
  detail: t.String(),
  checked_at: t.String(),
})

export const ContractsView = t.Object({
  service: t.Literal('als'),
  service_modes: t.Array(ServiceMode),
  configured_service_mode: ServiceMode,
  effective_service_mode: ServiceMode,
  promotion_states: t.Array(ProposalState),
  promotion_transitions: t.Array(
    t.Object({ from: ProposalState, trigger: t.String(), to: ProposalState, when: t.String() }),
  ),
  terminal_states: t.Array(ProposalState),
  run_states: t.Array(RunState),
  producer_families: t.Array(t.String()),
  consumer_families: t.Array(t.String()),
  family_source: t.Object({
    source: t.Literal('prs'),
    state: FamilyState,
    matrix_version: t.Union([t.String(), t.Null()]),
    fetched_at: t.Union([t.String(), t.Null()]),
  }),
  invariants: t.Array(t.String()),
  no_learn_zones: t.Array(t.String()),
  target_types: t.Array(t.Object({ target_type: TargetType, enabled: t.Boolean() })),
  risk_classes: t.Array(RiskClass),
  blocked_combinations: t.Array(t.Object({ target_type: t.String(), risk_class: RiskClass })),
  replay_verdicts: t.Array(ReplayVerdict),
  outcomes: t.Array(Outcome),
  guardrail_decisions: t.Array(GuardrailDecision),
  hashes: t.Record(t.String(), t.String()),
  limits: t.Object({
    replay_budget_per_hour: Type.Integer(),
    sample_rate: t.Number(),
    signal_min_priority: Type.Integer(),
    evidence_max_age_s: Type.Integer(),
    promotion_velocity_max: Type.Integer(),
    promotion_velocity_window_s: Type.Integer(),
    oscillation_window_s: Type.Integer(),
    oscillation_min_reversals: Type.Integer(),
  }),
})

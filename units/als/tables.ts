import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** One row per signals intake: the trace fields and what ALS derived from them. */
export const runs = sqliteTable(
  'als_runs',
  {
    runId: text('run_id').primaryKey(),
    tenantRef: text('tenant_ref').notNull(),
    traceId: text('trace_id').notNull().unique(),
    correlationId: text('correlation_id').notNull(),
    outcome: text('outcome').notNull(),
    guardrailDecision: text('guardrail_decision').notNull(),
    familyVersionSet: text('family_version_set', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    state: text('state', { enum: ['recorded', 'signal_emitted', 'proposed'] }).notNull(),
    signalEmitted: integer('signal_emitted', { mode: 'boolean' }).notNull(),
    sampledIn: integer('sampled_in', { mode: 'boolean' }).notNull(),
    priorityScore: integer('priority_score').notNull(),
    runHash: text('run_hash').notNull(),
    provenanceHash: text('provenance_hash').notNull(),
    serviceMode: text('service_mode').notNull(),
    recordedAt: text('recorded_at').notNull(),
  },
  (t) => [index('als_runs_correlation').on(t.correlationId), index('als_runs_state').on(t.state)],
)

/** Every replay evaluation, also the ones made by propose-from-evidence; drives the replay budget. */
export const replays = sqliteTable(
  'als_replays',
  {
    replayId: text('replay_id').primaryKey(),
    runId: text('run_id'),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    thresholdContract: text('threshold_contract', { mode: 'json' }).notNull(),
    baselineMetrics: text('baseline_metrics', { mode: 'json' }).notNull(),
    candidateMetrics: text('candidate_metrics', { mode: 'json' }).notNull(),
    workloadSimilar: integer('workload_similar', { mode: 'boolean' }).notNull(),
    verdict: text('verdict').notNull(),
    thresholdPass: integer('threshold_pass', { mode: 'boolean' }).notNull(),
    evaluation: text('evaluation', { mode: 'json' }).notNull(),
    candidateHash: text('candidate_hash').notNull(),
    provenanceHash: text('provenance_hash').notNull(),
    evaluatedAt: text('evaluated_at').notNull(),
  },
  (t) => [index('als_replays_evaluated_at').on(t.evaluatedAt)],
)

/** Promotion proposals, from evidence or proposed directly, with their approval and runtime facts. */
export const proposals = sqliteTable(
  'als_proposals',
  {
    proposalId: text('proposal_id').primaryKey(),
    source: text('source', { enum: ['evidence', 'direct'] }).notNull(),
    runId: text('run_id'),
    replayId: text('replay_id'),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    riskClass: text('risk_class'),
    replayVerdict: text('replay_verdict').notNull(),
    serviceMode: text('service_mode').notNull(),
    currentDecision: text('current_decision', { mode: 'json' }),
    candidateDecision: text('candidate_decision', { mode: 'json' }),
    candidateHash: text('candidate_hash').notNull(),
    provenanceHash: text('provenance_hash').notNull(),
    decisionDeltaHash: text('decision_delta_hash'),
    state: text('state', {
      enum: ['proposed', 'approved', 'rejected', 'activated', 'rolled_back'],
    }).notNull(),
    revalidateRequired: integer('revalidate_required', { mode: 'boolean' }).notNull(),
    oscillationDetected: integer('oscillation_detected', { mode: 'boolean' }).notNull(),
    approvalId: text('approval_id'),
    policyApproved: integer('policy_approved', { mode: 'boolean' }).notNull(),
    humanApproved: integer('human_approved', { mode: 'boolean' }).notNull(),
    staleInvalidated: integer('stale_invalidated', { mode: 'boolean' }).notNull(),
    approvalCheckedAt: text('approval_checked_at'),
    runtimeStateBefore: text('runtime_state_before', { mode: 'json' }),
    runtimeStateAfter: text('runtime_state_after', { mode: 'json' }),
    activatedAt: text('activated_at'),
    rollbackReason: text('rollback_reason'),
    rollbackRestored: integer('rollback_restored', { mode: 'boolean' }),
    rolledBackAt: text('rolled_back_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('als_proposals_target').on(t.targetType, t.targetId, t.state),
    index('als_proposals_state').on(t.state),
  ],
)

/** Every proposal state change, with the target's runtime state key before and after (oscillation, velocity). */
export const transitions = sqliteTable(
  'als_transitions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    proposalId: text('proposal_id').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    trigger: text('trigger').notNull(),
    fromState: text('from_state'),
    toState: text('to_state').notNull(),
    stateKeyBefore: text('state_key_before'),
    stateKeyAfter: text('state_key_after'),
    at: text('at').notNull(),
  },
  (t) => [
    index('als_transitions_target').on(t.targetType, t.targetId, t.at),
    index('als_transitions_to_state').on(t.toState, t.at),
  ],
)

/** What each target currently runs with (absent row: nothing activated yet). */
export const runtimeTargets = sqliteTable(
  'als_runtime_targets',
  {
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    activeProposalId: text('active_proposal_id'),
    candidateHash: text('candidate_hash'),
    decision: text('decision', { mode: 'json' }),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetType, t.targetId] })],
)

/** Activate and rollback answers per idempotency key (scope `activate` or `rollback`). */
export { idempotencyKeys } from '../../db/tables.ts'

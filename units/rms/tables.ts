import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** The desired state of the runtime host: one document per (kind, resource id). */
export const desiredResources = sqliteTable(
  'desired_resources',
  {
    kind: text('kind').notNull(),
    resourceId: text('resource_id').notNull(),
    document: text('document', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    hash: text('hash').notNull(),
    updatedAt: text('updated_at').notNull(),
    updatedBy: text('updated_by').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.resourceId] })],
)

/** Append-only audit trail of every change RMS made or refused to make on a write route. */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    eventId: text('event_id').primaryKey(),
    at: text('at').notNull(),
    kind: text('kind').notNull(),
    actor: text('actor').notNull(),
    authoritySource: text('authority_source').notNull(),
    resourceKind: text('resource_kind'),
    resourceId: text('resource_id'),
    outcome: text('outcome').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index('audit_events_at').on(t.at), index('audit_events_kind').on(t.kind, t.at)],
)

export const patchPlans = sqliteTable('patch_plans', {
  planId: text('plan_id').primaryKey(),
  createdAt: text('created_at').notNull(),
  createdBy: text('created_by').notNull(),
  baseHostHash: text('base_host_hash').notNull(),
  planHash: text('plan_hash').notNull(),
  changes: text('changes', { mode: 'json' }).$type<unknown[]>().notNull(),
  operations: text('operations', { mode: 'json' }).$type<unknown[]>().notNull(),
  pruneUnmanaged: integer('prune_unmanaged', { mode: 'boolean' }).notNull(),
  status: text('status', { enum: ['planned', 'applied', 'failed'] }).notNull(),
  rolloutId: text('rollout_id'),
})

export const rollouts = sqliteTable(
  'rollouts',
  {
    rolloutId: text('rollout_id').primaryKey(),
    planId: text('plan_id').notNull(),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at').notNull(),
    actor: text('actor').notNull(),
    status: text('status', { enum: ['applied', 'failed'] }).notNull(),
    operations: text('operations', { mode: 'json' }).$type<unknown[]>().notNull(),
    hostHashBefore: text('host_hash_before').notNull(),
    hostHashAfter: text('host_hash_after'),
    error: text('error'),
  },
  (t) => [index('rollouts_started').on(t.startedAt)],
)

/** Control-agent leases: at most one holder at a time across every RMS process on this file. */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder'),
  acquiredAt: text('acquired_at'),
  renewedAt: text('renewed_at'),
  expiresAt: text('expires_at'),
  durationS: integer('duration_s').notNull(),
  renewCount: integer('renew_count').notNull(),
  generation: integer('generation').notNull(),
})

export const leaseTransitions = sqliteTable(
  'lease_transitions',
  {
    transitionId: text('transition_id').primaryKey(),
    leaseName: text('lease_name').notNull(),
    at: text('at').notNull(),
    transition: text('transition', { enum: ['acquired', 'taken_over', 'released'] }).notNull(),
    fromHolder: text('from_holder'),
    toHolder: text('to_holder'),
    generation: integer('generation').notNull(),
  },
  (t) => [index('lease_transitions_at').on(t.leaseName, t.at)],
)

export const reconcileRuns = sqliteTable(
  'reconcile_runs',
  {
    runId: text('run_id').primaryKey(),
    holder: text('holder').notNull(),
    trigger: text('trigger', { enum: ['schedule', 'manual'] }).notNull(),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at'),
    outcome: text('outcome', { enum: ['running', 'ok', 'failed'] }).notNull(),
    driftItems: integer('drift_items'),
    maxSeverity: text('max_severity'),
    hostHash: text('host_hash'),
    error: text('error'),
  },
  (t) => [index('reconcile_runs_started').on(t.startedAt)],
)

export const learningProposals = sqliteTable(
  'learning_proposals',
  {
    proposalId: text('proposal_id').primaryKey(),
    agentSlug: text('agent_slug').notNull(),
    agentId: text('agent_id').notNull(),
    change: text('change', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    changeHash: text('change_hash').notNull(),
    proposer: text('proposer').notNull(),
    state: text('state', { enum: ['pending_review', 'approved', 'rejected'] }).notNull(),
    createdAt: text('created_at').notNull(),
    reviewedAt: text('reviewed_at'),
    reviewer: text('reviewer'),
    reviewReason: text('review_reason'),
    activatedAt: text('activated_at'),
    activatedBy: text('activated_by'),
  },
  (t) => [index('learning_proposals_agent').on(t.agentSlug, t.createdAt)],
)

/** The ALS approval lane (docs/conventions.md §4). */
export const executionApprovals = sqliteTable('execution_approvals', {
  approvalId: text('approval_id').primaryKey(),
  proposalRef: text('proposal_ref').notNull(),
  decision: text('decision', { enum: ['approved', 'rejected', 'pending'] }).notNull(),
  policyApproved: integer('policy_approved', { mode: 'boolean' }).notNull(),
  humanApproved: integer('human_approved', { mode: 'boolean' }).notNull(),
  decidedAt: text('decided_at'),
  decidedBy: text('decided_by').notNull(),
  recordedAt: text('recorded_at').notNull(),
  expiresAt: text('expires_at').notNull(),
})

/** The outbox (shared shape, db/outbox.ts): audit events for the event sink, target `event-sink`. */
export { outboxMessages } from '../../db/tables.ts'

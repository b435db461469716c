import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Projects: the client chooses `project_id` (the sandbox prefix rule reads it). */
export const projects = sqliteTable('pws_projects', {
  projectId: text('project_id').primaryKey(),
  name: text('name').notNull(),
  repoProvider: text('repo_provider'),
  repoFullName: text('repo_full_name'),
  /** The next number `POST …/tasks` hands out when the client names no task_key. */
  nextTaskSeq: integer('next_task_seq').notNull().default(1),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** The lanes of a project's board, in board order. */
export const lanes = sqliteTable(
  'pws_lanes',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    laneKey: text('lane_key').notNull(),
    title: text('title').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.laneKey] })],
)

/**
 * Tasks carry the spec's task payload. `updated_at` is also the `version_token`: every write
 * moves it forward by at least a millisecond, so a stale token is always detectable.
 */
export const tasks = sqliteTable(
  'pws_tasks',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    taskKey: text('task_key').notNull(),
    title: text('title').notNull(),
    lane: text('lane').notNull(),
    status: text('status').notNull(),
    workClass: text('work_class').notNull(),
    workItemTruthOwner: text('work_item_truth_owner').notNull(),
    sourceTruthOwner: text('source_truth_owner').notNull(),
    sourceReferenceType: text('source_reference_type').notNull(),
    /** What the task was made from: a ticket id, a pull request, a branch; null for plain work. */
    sourceReference: text('source_reference'),
    workflowState: text('workflow_state').notNull(),
    externalTruthState: text('external_truth_state'),
    externalTruth: integer('external_truth', { mode: 'boolean' }).notNull(),
    missingContext: integer('missing_context', { mode: 'boolean' }).notNull(),
    partialVisibility: integer('partial_visibility', { mode: 'boolean' }).notNull(),
    writebackGuardState: text('writeback_guard_state').notNull(),
    caseLifecycleGuard: text('case_lifecycle_guard'),
    lifecycleCompletionGuard: text('lifecycle_completion_guard'),
    remediation: text('remediation', { mode: 'json' }).$type<string[]>().notNull(),
    cycleKey: text('cycle_key'),
    moduleKey: text('module_key'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.taskKey] }),
    index('pws_tasks_lane').on(t.projectId, t.lane),
    index('pws_tasks_source').on(t.projectId, t.sourceReferenceType, t.sourceReference),
    // The active workflow summary counts tasks in one scan of this index (store.ts summaryFacts).
    // Every task write updates it (about 40 µs more per commit measured here), so it stays the
    // only one the summary adds.
    index('pws_tasks_summary').on(
      t.projectId,
      t.lane,
      t.workClass,
      t.workflowState,
      t.externalTruth,
      t.externalTruthState,
      t.partialVisibility,
      t.missingContext,
      t.updatedAt,
    ),
  ],
)

/** Agents working on a project (people or automations). */
export const agents = sqliteTable(
  'pws_agents',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    agentKey: text('agent_key').notNull(),
    displayName: text('display_name').notNull(),
    kind: text('kind').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.agentKey] })],
)

/** A task handed from one agent to another: open until accepted, rejected or expired. */
export const handoffs = sqliteTable(
  'pws_handoffs',
  {
    handoffId: text('handoff_id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    taskKey: text('task_key').notNull(),
    fromAgent: text('from_agent').notNull(),
    toAgent: text('to_agent').notNull(),
    summary: text('summary').notNull(),
    state: text('state', { enum: ['open', 'accepted', 'rejected', 'expired'] }).notNull(),
    reason: text('reason'),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    decidedAt: text('decided_at'),
  },
  (t) => [index('pws_handoffs_project').on(t.projectId, t.state)],
)

/** Support handoffs from EIS, one per correlation id: what makes the route idempotent. */
export const supportHandoffs = sqliteTable('pws_support_handoffs', {
  correlationId: text('correlation_id').primaryKey(),
  projectId: text('project_id').notNull(),
  taskKey: text('task_key').notNull(),
  ticketId: text('ticket_id').notNull(),
  envelope: text('envelope', { mode: 'json' }).notNull(),
  receivedAt: text('received_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** Planning cycles and modules of a project. */
export const cycles = sqliteTable(
  'pws_planning_cycles',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    cycleKey: text('cycle_key').notNull(),
    title: text('title').notNull(),
    state: text('state').notNull(),
    startsOn: text('starts_on'),
    endsOn: text('ends_on'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.cycleKey] })],
)

export const modules = sqliteTable(
  'pws_planning_modules',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    moduleKey: text('module_key').notNull(),
    title: text('title').notNull(),
    cycleKey: text('cycle_key'),
    state: text('state').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.moduleKey] })],
)

/** Planning pages: markdown files in the planning repository, mirrored here. */
export const pages = sqliteTable(
  'pws_planning_pages',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    repoPath: text('repo_path').notNull(),
    syncState: text('sync_state').notNull(),
    /** The repository commit the page was last synced at. */
    repoCommit: text('repo_commit'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.slug] })],
)

/** Delivery records ingested from code hosts; `data` keeps the provider fields the views read. */
export const deliveryItems = sqliteTable(
  'pws_delivery_items',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    kind: text('kind', {
      enum: ['pull_request', 'branch', 'pipeline', 'deployment', 'release', 'environment'],
    }).notNull(),
    provider: text('provider').notNull(),
    externalId: text('external_id').notNull(),
    repository: text('repository').notNull(),
    state: text('state').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    observedAt: text('observed_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.kind, t.provider, t.externalId] }),
    index('pws_delivery_kind_state').on(t.projectId, t.kind, t.state),
  ],
)

/** What each provider integration of a project last did (webhook or poll). */
export const integrationRuns = sqliteTable(
  'pws_integration_state',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.projectId),
    provider: text('provider').notNull(),
    repository: text('repository').notNull(),
    lastWebhookAt: text('last_webhook_at'),
    lastPollAt: text('last_poll_at'),
    lastResult: text('last_result'),
    lastError: text('last_error'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.provider] })],
)

/** Adapter sandbox writes: the readback record per (project_id, scenario, idempotency_key). */
export const sandboxWrites = sqliteTable(
  'pws_sandbox_writes',
  {
    projectId: text('project_id').notNull(),
    scenario: text('scenario').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    response: text('response', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('pws_sandbox_writes_key').on(t.projectId, t.scenario, t.idempotencyKey)],
)

/** OIDC logins under way: PKCE verifier and nonce per state, until the callback or expiry. */
export const oidcLogins = sqliteTable('pws_oidc_logins', {
  state: text('state').primaryKey(),
  codeVerifier: text('code_verifier').notNull(),
  nonce: text('nonce').notNull(),
  returnTo: text('return_to').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  createdAt: text('created_at').notNull(),
})

/** Shared blocks' tables: sandbox writes replay from the idempotency store; the provider poller holds a lease. */
export { idempotencyKeys, leases } from '../../db/tables.ts'

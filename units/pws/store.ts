/**
 * PWS data access: the only module that knows the tables. Every function is async (callers
 * run on either storage driver): reads take the `Storage` and read committed data through
 * `storage.db`; functions named `…Tx` take the caller's transaction (`tx: Sql`), so writes that
 * must see and change state together run in one `storage.transaction`.
 */
import { and, asc, count, desc, eq, gt, isNotNull, lt, ne, or, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Sql, Storage } from '../../db/storage.ts'
import type { TaskCount } from './rules/summary.ts'
import { type LifecycleInput, lifecycleCutoffs } from './rules/tasks.ts'
import {
  agents,
  cycles,
  deliveryItems,
  handoffs,
  integrationRuns,
  lanes,
  modules,
  oidcLogins,
  pages,
  projects,
  sandboxWrites,
  supportHandoffs,
  tasks,
} from './tables.ts'

export type ProjectRow = typeof projects.$inferSelect
export type LaneRow = typeof lanes.$inferSelect
export type TaskRow = typeof tasks.$inferSelect
export type AgentRow = typeof agents.$inferSelect
export type HandoffRow = typeof handoffs.$inferSelect
export type SupportHandoffRow = typeof supportHandoffs.$inferSelect
export type CycleRow = typeof cycles.$inferSelect
export type ModuleRow = typeof modules.$inferSelect
export type PageRow = typeof pages.$inferSelect
export type DeliveryRow = typeof deliveryItems.$inferSelect
export type DeliveryKind = DeliveryRow['kind']
export type IntegrationStateRow = typeof integrationRuns.$inferSelect
export type SandboxWriteRow = typeof sandboxWrites.$inferSelect

// ---------- keyset cursors ----------

/** An opaque cursor: the sort position of the last item of a page. */
export const encodeCursor = (parts: string[]): string =>
  Buffer.from(JSON.stringify(parts)).toString('base64url')

export function decodeCursor(cursor: string | undefined, size: number): string[] | undefined {
  if (!cursor) return undefined
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(parts) && parts.length === size && parts.every((p) => typeof p === 'string'))
      return parts
  } catch {
    // falls through to undefined: the caller refuses the cursor
  }
  return undefined
}

export interface PageOf<T> {
  rows: T[]
  next: string[] | null
}

function pageOf<T>(rows: T[], limit: number, position: (row: T) => string[]): PageOf<T> {
  if (rows.length <= limit) return { rows, next: null }
  const kept = rows.slice(0, limit)
  return { rows: kept, next: position(kept[kept.length - 1] as T) }
}

/** One row in its own transaction, unless its key is taken: whether it went in. */
async function insertUnlessTaken<T extends SQLiteTable>(
  storage: Storage,
  table: T,
  row: T['$inferInsert'],
): Promise<boolean> {
  const inserted = await storage.transaction((tx) =>
    tx.insert(table).values(row).onConflictDoNothing().returning({ one: sql<number>`1` }).all(),
  )
  return inserted.length > 0
}

// ---------- projects and lanes ----------

export async function findProject({ db }: Storage, projectId: string): Promise<ProjectRow | undefined> {
  return db.select().from(projects).where(eq(projects.projectId, projectId)).get()
}

export async function listProjects(
  { db }: Storage,
  limit: number,
  after?: string[],
): Promise<PageOf<ProjectRow>> {
  const rows = await db
    .select()
    .from(projects)
    .where(after ? gt(projects.projectId, after[0] as string) : undefined)
    .orderBy(asc(projects.projectId))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.projectId])
}

export async function insertProjectTx(tx: Sql, project: ProjectRow, laneRows: LaneRow[]): Promise<boolean> {
  const inserted = await tx.insert(projects).values(project).onConflictDoNothing().returning().all()
  if (inserted.length === 0) return false
  await tx.insert(lanes).values(laneRows)
  return true
}

export async function listLanes(
  { db }: Storage,
  projectId: string,
): Promise<(LaneRow & { taskCount: number })[]> {
  const laneRows = await db
    .select()
    .from(lanes)
    .where(eq(lanes.projectId, projectId))
    .orderBy(asc(lanes.position))
    .all()
  const counts = await db
    .select({ lane: tasks.lane, n: count() })
    .from(tasks)
    .where(eq(tasks.projectId, projectId))
    .groupBy(tasks.lane)
    .all()
  const byLane = new Map(counts.map((c) => [c.lane, c.n]))
  return laneRows.map((l) => ({ ...l, taskCount: byLane.get(l.laneKey) ?? 0 }))
}

export async function laneExistsTx(tx: Sql, projectId: string, lane: string): Promise<boolean> {
  const row = await tx
    .select({ k: lanes.laneKey })
    .from(lanes)
    .where(and(eq(lanes.projectId, projectId), eq(lanes.laneKey, lane)))
    .get()
  return row !== undefined
}

// ---------- tasks ----------

export interface TaskFilter {
  lane?: string
  workClass?: string
  workflowState?: string
}

export async function listTasks(
  { db }: Storage,
  projectId: string,
  filter: TaskFilter,
  limit: number,
  after?: string[],
): Promise<PageOf<TaskRow>> {
  const conditions = [eq(tasks.projectId, projectId)]
  if (filter.lane) conditions.push(eq(tasks.lane, filter.lane))
  if (filter.workClass) conditions.push(eq(tasks.workClass, filter.workClass))
  if (filter.workflowState) conditions.push(eq(tasks.workflowState, filter.workflowState))
  if (after) {
    const [createdAt, key] = after as [string, string]
    const position = or(
      gt(tasks.createdAt, createdAt),
      and(eq(tasks.createdAt, createdAt), gt(tasks.taskKey, key)),
    )
    if (position) conditions.push(position)
  }
  const rows = await db
    .select()
    .from(tasks)
    .where(and(...conditions))
    .orderBy(asc(tasks.createdAt), asc(tasks.taskKey))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.createdAt, r.taskKey])
}

/** Every task of a project (summaries and the board). */
export async function allTasks({ db }: Storage, projectId: string): Promise<TaskRow[]> {
  return db.select().from(tasks).where(eq(tasks.projectId, projectId)).orderBy(asc(tasks.createdAt)).all()
}

export async function findTask(
  { db }: Storage,
  projectId: string,
  taskKey: string,
): Promise<TaskRow | undefined> {
  return findTaskTx(db, projectId, taskKey)
}

export async function findTaskTx(tx: Sql, projectId: string, taskKey: string): Promise<TaskRow | undefined> {
  return tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.taskKey, taskKey)))
    .get()
}

/** Hand out the next task number of a project. */
export async function takeTaskSeqTx(tx: Sql, projectId: string): Promise<number> {
  const row = await tx
    .update(projects)
    .set({ nextTaskSeq: sql`${projects.nextTaskSeq} + 1` })
    .where(eq(projects.projectId, projectId))
    .returning({ seq: projects.nextTaskSeq })
    .get()
  return (row?.seq ?? 2) - 1
}

export async function insertTaskTx(tx: Sql, row: TaskRow): Promise<boolean> {
  const inserted = await tx
    .insert(tasks)
    .values(row)
    .onConflictDoNothing()
    .returning({ k: tasks.taskKey })
    .all()
  return inserted.length > 0
}

export async function updateTaskTx(
  tx: Sql,
  projectId: string,
  taskKey: string,
  patch: Partial<TaskRow>,
): Promise<TaskRow> {
  const row = await tx
    .update(tasks)
    .set(patch)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.taskKey, taskKey)))
    .returning()
    .get()
  if (!row) throw new Error(`task ${projectId}/${taskKey} vanished inside its own transaction`)
  return row
}

// ---------- agents and handoffs ----------

export async function listAgents({ db }: Storage, projectId: string, limit: number, after?: string[]) {
  const rows = await db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, projectId), after ? gt(agents.agentKey, after[0] as string) : undefined))
    .orderBy(asc(agents.agentKey))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.agentKey])
}

export const insertAgent = (storage: Storage, row: AgentRow): Promise<boolean> =>
  insertUnlessTaken(storage, agents, row)

export async function listHandoffs(
  { db }: Storage,
  projectId: string,
  state: string | undefined,
  limit: number,
  after?: string[],
): Promise<PageOf<HandoffRow>> {
  const rows = await db
    .select()
    .from(handoffs)
    .where(
      and(
        eq(handoffs.projectId, projectId),
        state ? eq(handoffs.state, state as HandoffRow['state']) : undefined,
        after ? gt(handoffs.handoffId, after[0] as string) : undefined,
      ),
    )
    .orderBy(asc(handoffs.handoffId))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.handoffId])
}

export async function findHandoff(
  { db }: Storage,
  projectId: string,
  handoffId: string,
): Promise<HandoffRow | undefined> {
  return findHandoffTx(db, projectId, handoffId)
}

export async function findHandoffTx(
  tx: Sql,
  projectId: string,
  handoffId: string,
): Promise<HandoffRow | undefined> {
  return tx
    .select()
    .from(handoffs)
    .where(and(eq(handoffs.projectId, projectId), eq(handoffs.handoffId, handoffId)))
    .get()
}

export async function insertHandoffTx(tx: Sql, row: HandoffRow): Promise<void> {
  await tx.insert(handoffs).values(row)
}

export async function updateHandoffTx(
  tx: Sql,
  handoffId: string,
  patch: Partial<HandoffRow>,
): Promise<HandoffRow> {
  const row = await tx.update(handoffs).set(patch).where(eq(handoffs.handoffId, handoffId)).returning().get()
  if (!row) throw new Error(`handoff ${handoffId} vanished inside its own transaction`)
  return row
}

/** Open handoffs that have not lapsed by `at` (an expired one reads as expired before anyone says so). */
const openAt = (projectId: string, at: string) =>
  and(
    eq(handoffs.projectId, projectId),
    eq(handoffs.state, 'open'),
    or(sql`${handoffs.expiresAt} is null`, gt(handoffs.expiresAt, at)),
  )

export async function countOpenHandoffs({ db }: Storage, projectId: string, at: string): Promise<number> {
  const row = await db.select({ n: count() }).from(handoffs).where(openAt(projectId, at)).get()
  return row?.n ?? 0
}

// ---------- support handoffs ----------

export async function findSupportHandoffTx(
  tx: Sql,
  correlationId: string,
): Promise<SupportHandoffRow | undefined> {
  return tx.select().from(supportHandoffs).where(eq(supportHandoffs.correlationId, correlationId)).get()
}

export async function upsertSupportHandoffTx(tx: Sql, row: SupportHandoffRow): Promise<void> {
  await tx
    .insert(supportHandoffs)
    .values(row)
    .onConflictDoUpdate({
      target: supportHandoffs.correlationId,
      set: { envelope: row.envelope, updatedAt: row.updatedAt },
    })
    .run()
}

// ---------- planning ----------

export async function listPages({ db }: Storage, projectId: string): Promise<PageRow[]> {
  return listPagesTx(db, projectId)
}

export async function listPagesTx(tx: Sql, projectId: string): Promise<PageRow[]> {
  return tx.select().from(pages).where(eq(pages.projectId, projectId)).orderBy(asc(pages.slug)).all()
}

export async function listCycles({ db }: Storage, projectId: string): Promise<CycleRow[]> {
  return db.select().from(cycles).where(eq(cycles.projectId, projectId)).orderBy(asc(cycles.cycleKey)).all()
}

export async function listModules({ db }: Storage, projectId: string): Promise<ModuleRow[]> {
  return db
    .select()
    .from(modules)
    .where(eq(modules.projectId, projectId))
    .orderBy(asc(modules.moduleKey))
    .all()
}

// ---------- delivery ----------

export async function deliveryOf(
  { db }: Storage,
  projectId: string,
  kind: DeliveryKind,
): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(deliveryItems)
    .where(and(eq(deliveryItems.projectId, projectId), eq(deliveryItems.kind, kind)))
    .orderBy(asc(deliveryItems.provider), asc(deliveryItems.externalId))
    .all()
}

export async function integrationStates({ db }: Storage, projectId: string): Promise<IntegrationStateRow[]> {
  return db.select().from(integrationRuns).where(eq(integrationRuns.projectId, projectId)).all()
}

// ---------- facts ----------

export async function projectCounts({
  db,
}: Storage): Promise<{ projects: number; bound: number; tasks: number }> {
  const p = await db
    .select({ n: count(), bound: sql<number>`coalesce(sum(${projects.repoFullName} is not null), 0)` })
    .from(projects)
    .get()
  const t = await db.select({ n: count() }).from(tasks).get()
  return { projects: p?.n ?? 0, bound: Number(p?.bound ?? 0), tasks: t?.n ?? 0 }
}

export async function latestWebhooks({ db }: Storage): Promise<{ provider: string; at: string | null }[]> {
  return db
    .select({
      provider: integrationRuns.provider,
      at: sql<string | null>`max(${integrationRuns.lastWebhookAt})`,
    })
    .from(integrationRuns)
    .groupBy(integrationRuns.provider)
    .all()
}

export async function handoffCountsByAgent({ db }: Storage, projectId: string, at: string) {
  return db
    .select({ from: handoffs.fromAgent, to: handoffs.toAgent, n: count() })
    .from(handoffs)
    .where(openAt(projectId, at))
    .groupBy(handoffs.fromAgent, handoffs.toAgent)
    .all()
}

export async function ensureAgentTx(tx: Sql, row: AgentRow): Promise<void> {
  await tx.insert(agents).values(row).onConflictDoNothing()
}

export async function findTaskBySourceTx(
  tx: Sql,
  projectId: string,
  sourceReferenceType: string,
  sourceReference: string,
): Promise<TaskRow | undefined> {
  return tx
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.projectId, projectId),
        eq(tasks.sourceReferenceType, sourceReferenceType),
        eq(tasks.sourceReference, sourceReference),
      ),
    )
    .get()
}

// ---------- adapter sandbox ----------

export async function insertSandboxWriteTx(tx: Sql, row: SandboxWriteRow): Promise<void> {
  await tx.insert(sandboxWrites).values(row).onConflictDoNothing()
}

export async function findSandboxWrite(
  { db }: Storage,
  projectId: string,
  scenario: string,
  idempotencyKey: string,
): Promise<SandboxWriteRow | undefined> {
  return db
    .select()
    .from(sandboxWrites)
    .where(
      and(
        eq(sandboxWrites.projectId, projectId),
        eq(sandboxWrites.scenario, scenario),
        eq(sandboxWrites.idempotencyKey, idempotencyKey),
      ),
    )
    .get()
}

export const insertCycle = (storage: Storage, row: CycleRow): Promise<boolean> =>
  insertUnlessTaken(storage, cycles, row)

export const insertModule = (storage: Storage, row: ModuleRow): Promise<boolean> =>
  insertUnlessTaken(storage, modules, row)

export async function findPage(
  { db }: Storage,
  projectId: string,
  slug: string,
): Promise<PageRow | undefined> {
  return findPageTx(db, projectId, slug)
}

export async function findPageTx(tx: Sql, projectId: string, slug: string): Promise<PageRow | undefined> {
  return tx
    .select()
    .from(pages)
    .where(and(eq(pages.projectId, projectId), eq(pages.slug, slug)))
    .get()
}

export const insertPage = (storage: Storage, row: PageRow): Promise<boolean> =>
  insertUnlessTaken(storage, pages, row)

export async function upsertPageTx(tx: Sql, row: PageRow): Promise<void> {
  await tx
    .insert(pages)
    .values(row)
    .onConflictDoUpdate({
      target: [pages.projectId, pages.slug],
      set: {
        title: row.title,
        body: row.body,
        syncState: row.syncState,
        repoCommit: row.repoCommit,
        updatedAt: row.updatedAt,
      },
    })
    .run()
}

export async function updatePageTx(
  tx: Sql,
  projectId: string,
  slug: string,
  patch: Partial<PageRow>,
): Promise<PageRow> {
  const row = await tx
    .update(pages)
    .set(patch)
    .where(and(eq(pages.projectId, projectId), eq(pages.slug, slug)))
    .returning()
    .get()
  if (!row) throw new Error(`page ${projectId}/${slug} vanished inside its own transaction`)
  return row
}

// ---------- delivery ingest ----------

export async function boundProjects({ db }: Storage): Promise<ProjectRow[]> {
  return db
    .select()
    .from(projects)
    .where(sql`${projects.repoProvider} is not null and ${projects.repoFullName} is not null`)
    .all()
}

export async function deliveryOfTx(tx: Sql, projectId: string, provider: string): Promise<DeliveryRow[]> {
  return tx
    .select()
    .from(deliveryItems)
    .where(and(eq(deliveryItems.projectId, projectId), eq(deliveryItems.provider, provider)))
    .all()
}

export async function upsertDeliveryTx(tx: Sql, row: DeliveryRow): Promise<void> {
  await tx
    .insert(deliveryItems)
    .values(row)
    .onConflictDoUpdate({
      target: [deliveryItems.projectId, deliveryItems.kind, deliveryItems.provider, deliveryItems.externalId],
      set: {
        repository: row.repository,
        state: row.state,
        data: row.data,
        observedAt: row.observedAt,
        updatedAt: row.updatedAt,
      },
    })
    .run()
}

export async function deleteDeliveryTx(
  tx: Sql,
  row: Pick<DeliveryRow, 'projectId' | 'kind' | 'provider' | 'externalId'>,
): Promise<void> {
  await tx
    .delete(deliveryItems)
    .where(
      and(
        eq(deliveryItems.projectId, row.projectId),
        eq(deliveryItems.kind, row.kind),
        eq(deliveryItems.provider, row.provider),
        eq(deliveryItems.externalId, row.externalId),
      ),
    )
    .run()
}

export async function findDeliveryTx(
  tx: Sql,
  projectId: string,
  kind: DeliveryKind,
  provider: string,
  externalId: string,
): Promise<DeliveryRow | undefined> {
  return tx
    .select()
    .from(deliveryItems)
    .where(
      and(
        eq(deliveryItems.projectId, projectId),
        eq(deliveryItems.kind, kind),
        eq(deliveryItems.provider, provider),
        eq(deliveryItems.externalId, externalId),
      ),
    )
    .get()
}

export async function recordIntegrationState(storage: Storage, row: IntegrationStateRow): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx
      .insert(integrationRuns)
      .values(row)
      .onConflictDoUpdate({
        target: [integrationRuns.projectId, integrationRuns.provider],
        set: {
          repository: row.repository,
          lastResult: row.lastResult,
          lastError: row.lastError,
          ...(row.lastPollAt ? { lastPollAt: row.lastPollAt } : {}),
          ...(row.lastWebhookAt ? { lastWebhookAt: row.lastWebhookAt } : {}),
        },
      })
  })
}

/** Tasks of a project linked to outside items of one reference type, by reference. */
export async function linkedTasks(
  { db }: Storage,
  projectId: string,
  sourceReferenceType: string,
): Promise<TaskRow[]> {
  return linkedTasksTx(db, projectId, sourceReferenceType)
}

export async function linkedTasksTx(
  tx: Sql,
  projectId: string,
  sourceReferenceType: string,
): Promise<TaskRow[]> {
  return tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.sourceReferenceType, sourceReferenceType)))
    .all()
}

// ---------- OIDC logins ----------

export type OidcLoginRow = typeof oidcLogins.$inferSelect

export async function insertOidcLogin(
  storage: Storage,
  row: OidcLoginRow,
  expiredBefore: string,
): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx.delete(oidcLogins).where(lt(oidcLogins.createdAt, expiredBefore))
    await tx.insert(oidcLogins).values(row)
  })
}

/** The login of this state, removed as it is read: a callback is answered once. */
export async function takeOidcLogin(storage: Storage, state: string): Promise<OidcLoginRow | undefined> {
  return storage.transaction((tx) =>
    tx.delete(oidcLogins).where(eq(oidcLogins.state, state)).returning().get(),
  )
}

/** What the active-workflow summary reads of every task: a narrow row, so 10 000 tasks stay cheap. */
const CASE_LINKED = 'case_linked_work'

export interface SummaryFacts {
  counts: TaskCount[]
  /** The 20 most recently updated case-linked tasks, latest first. */
  latestCaseLinked: (LifecycleInput & { taskKey: string })[]
  duplicateAttachment: boolean
  missingSources: number
  actionableReviews: number
}

/**
 * What the active workflow summary reads of a project's tasks and pull requests, counted by the
 * database: one pass over the covering index `pws_tasks_summary` in its own order (no sort, no
 * table rows); the other four are index lookups, or one pass over the project's tasks for the 20
 * latest case-linked ones, so the summary never maps a row per task into JavaScript.
 */
export async function summaryFacts({ db }: Storage, projectId: string, nowMs: number): Promise<SummaryFacts> {
  const cutoffs = lifecycleCutoffs(nowMs)
  const ofProject = eq(tasks.projectId, projectId)
  // In the column order of the index pws_tasks_summary, so SQLite groups as it scans.
  const alike = [
    tasks.lane,
    tasks.workClass,
    tasks.workflowState,
    tasks.externalTruth,
    tasks.externalTruthState,
    tasks.partialVisibility,
    tasks.missingContext,
  ] as const
  const counts = await db
    .select({
      lane: tasks.lane,
      workClass: tasks.workClass,
      workflowState: tasks.workflowState,
      externalTruth: tasks.externalTruth,
      externalTruthState: tasks.externalTruthState,
      partialVisibility: tasks.partialVisibility,
      missingContext: tasks.missingContext,
      n: count(),
      beforeStale: sql<number>`sum(${tasks.updatedAt} < ${cutoffs.stale})`,
      beforeArchive: sql<number>`sum(${tasks.updatedAt} < ${cutoffs.archive})`,
    })
    .from(tasks)
    .where(ofProject)
    .groupBy(...alike)
    .all()
  const latest = await db
    .select({
      taskKey: tasks.taskKey,
      lane: tasks.lane,
      workflowState: tasks.workflowState,
      externalTruth: tasks.externalTruth,
      externalTruthState: tasks.externalTruthState,
      updatedAt: tasks.updatedAt,
    })
    .from(tasks)
    .where(and(ofProject, eq(tasks.workClass, CASE_LINKED)))
    .orderBy(desc(tasks.updatedAt))
    .limit(20)
    .all()
  const duplicate = await db
    .select({ n: count() })
    .from(tasks)
    .where(and(ofProject, isNotNull(tasks.sourceReference), ne(tasks.sourceReferenceType, 'native')))
    .groupBy(tasks.sourceReferenceType, tasks.sourceReference)
    .having(gt(count(), 1))
    .limit(1)
    .get()
  // A task linked to `provider:external_id` of a pull request PWS no longer has.
  const ref = tasks.sourceReference
  const missing = await db
    .select({ n: count() })
    .from(tasks)
    .where(
      and(
        ofProject,
        eq(tasks.sourceReferenceType, 'pull_request'),
        ne(ref, ''),
        sql`not exists (select 1 from ${deliveryItems} d where d.project_id = ${projectId}
          and d.kind = 'pull_request'
          and d.provider = substr(${ref}, 1, instr(${ref}, ':') - 1)
          and d.external_id = substr(${ref}, instr(${ref}, ':') + 1))`,
      ),
    )
    .get()
  // isActionableReview of rules/delivery.ts: open, not a draft, not approved.
  const actionable = await db
    .select({ n: count() })
    .from(deliveryItems)
    .where(
      and(
        eq(deliveryItems.projectId, projectId),
        eq(deliveryItems.kind, 'pull_request'),
        eq(deliveryItems.state, 'open'),
        sql`not coalesce(json_extract(${deliveryItems.data}, '$.draft'), 0)`,
        sql`coalesce(json_extract(${deliveryItems.data}, '$.review_decision'), '') <> 'approved'`,
      ),
    )
    .get()
  return {
    counts,
    latestCaseLinked: latest,
    duplicateAttachment: duplicate !== undefined,
    missingSources: missing?.n ?? 0,
    actionableReviews: actionable?.n ?? 0,
  }
}

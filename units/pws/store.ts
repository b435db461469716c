/**
 * PWS data access: the only module that knows the tables. Every function is async (callers
 * already await, ready for an async storage driver); writes that must see and change state
 * together run in one IMMEDIATE transaction with a synchronous callback.
 */
import { and, asc, count, desc, eq, gt, isNotNull, lt, ne, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/sqlite.ts'
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

/** One IMMEDIATE transaction; a throw inside rolls everything back. */
function writeTx<T>(db: Db, fn: (tx: Db) => T): T {
  return db.transaction((tx) => fn(tx as unknown as Db), { behavior: 'immediate' })
}

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

// ---------- projects and lanes ----------

export async function findProject(db: Db, projectId: string): Promise<ProjectRow | undefined> {
  return db.select().from(projects).where(eq(projects.projectId, projectId)).get()
}

export async function listProjects(db: Db, limit: number, after?: string[]): Promise<PageOf<ProjectRow>> {
  const rows = db
    .select()
    .from(projects)
    .where(after ? gt(projects.projectId, after[0] as string) : undefined)
    .orderBy(asc(projects.projectId))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.projectId])
}

export function insertProjectTx(tx: Db, project: ProjectRow, laneRows: LaneRow[]): boolean {
  const inserted = tx.insert(projects).values(project).onConflictDoNothing().returning().all()
  if (inserted.length === 0) return false
  tx.insert(lanes).values(laneRows).run()
  return true
}

export async function listLanes(db: Db, projectId: string): Promise<(LaneRow & { taskCount: number })[]> {
  const laneRows = db
    .select()
    .from(lanes)
    .where(eq(lanes.projectId, projectId))
    .orderBy(asc(lanes.position))
    .all()
  const counts = db
    .select({ lane: tasks.lane, n: count() })
    .from(tasks)
    .where(eq(tasks.projectId, projectId))
    .groupBy(tasks.lane)
    .all()
  const byLane = new Map(counts.map((c) => [c.lane, c.n]))
  return laneRows.map((l) => ({ ...l, taskCount: byLane.get(l.laneKey) ?? 0 }))
}

export function laneExistsTx(tx: Db, projectId: string, lane: string): boolean {
  return (
    tx
      .select({ k: lanes.laneKey })
      .from(lanes)
      .where(and(eq(lanes.projectId, projectId), eq(lanes.laneKey, lane)))
      .get() !== undefined
  )
}

// ---------- tasks ----------

export interface TaskFilter {
  lane?: string
  workClass?: string
  workflowState?: string
}

export async function listTasks(
  db: Db,
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
  const rows = db
    .select()
    .from(tasks)
    .where(and(...conditions))
    .orderBy(asc(tasks.createdAt), asc(tasks.taskKey))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.createdAt, r.taskKey])
}

/** Every task of a project (summaries and the board). */
export async function allTasks(db: Db, projectId: string): Promise<TaskRow[]> {
  return db.select().from(tasks).where(eq(tasks.projectId, projectId)).orderBy(asc(tasks.createdAt)).all()
}

export async function findTask(db: Db, projectId: string, taskKey: string): Promise<TaskRow | undefined> {
  return findTaskTx(db, projectId, taskKey)
}

export function findTaskTx(tx: Db, projectId: string, taskKey: string): TaskRow | undefined {
  return tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.taskKey, taskKey)))
    .get()
}

/** Hand out the next task number of a project. */
export function takeTaskSeqTx(tx: Db, projectId: string): number {
  const row = tx
    .update(projects)
    .set({ nextTaskSeq: sql`${projects.nextTaskSeq} + 1` })
    .where(eq(projects.projectId, projectId))
    .returning({ seq: projects.nextTaskSeq })
    .get()
  return (row?.seq ?? 2) - 1
}

export function insertTaskTx(tx: Db, row: TaskRow): boolean {
  return tx.insert(tasks).values(row).onConflictDoNothing().returning({ k: tasks.taskKey }).all().length > 0
}

export function updateTaskTx(tx: Db, projectId: string, taskKey: string, patch: Partial<TaskRow>): TaskRow {
  const row = tx
    .update(tasks)
    .set(patch)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.taskKey, taskKey)))
    .returning()
    .get()
  if (!row) throw new Error(`task ${projectId}/${taskKey} vanished inside its own transaction`)
  return row
}

// ---------- agents and handoffs ----------

export async function listAgents(db: Db, projectId: string, limit: number, after?: string[]) {
  const rows = db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, projectId), after ? gt(agents.agentKey, after[0] as string) : undefined))
    .orderBy(asc(agents.agentKey))
    .limit(limit + 1)
    .all()
  return pageOf(rows, limit, (r) => [r.agentKey])
}

export async function insertAgent(db: Db, row: AgentRow): Promise<boolean> {
  return (
    db.insert(agents).values(row).onConflictDoNothing().returning({ k: agents.agentKey }).all().length > 0
  )
}

export async function listHandoffs(
  db: Db,
  projectId: string,
  state: string | undefined,
  limit: number,
  after?: string[],
): Promise<PageOf<HandoffRow>> {
  const rows = db
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
  db: Db,
  projectId: string,
  handoffId: string,
): Promise<HandoffRow | undefined> {
  return findHandoffTx(db, projectId, handoffId)
}

export function findHandoffTx(tx: Db, projectId: string, handoffId: string): HandoffRow | undefined {
  return tx
    .select()
    .from(handoffs)
    .where(and(eq(handoffs.projectId, projectId), eq(handoffs.handoffId, handoffId)))
    .get()
}

export function insertHandoffTx(tx: Db, row: HandoffRow): void {
  tx.insert(handoffs).values(row).run()
}

export function updateHandoffTx(tx: Db, handoffId: string, patch: Partial<HandoffRow>): HandoffRow {
  const row = tx.update(handoffs).set(patch).where(eq(handoffs.handoffId, handoffId)).returning().get()
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

export async function countOpenHandoffs(db: Db, projectId: string, at: string): Promise<number> {
  const row = db.select({ n: count() }).from(handoffs).where(openAt(projectId, at)).get()
  return row?.n ?? 0
}

// ---------- support handoffs ----------

export function findSupportHandoffTx(tx: Db, correlationId: string): SupportHandoffRow | undefined {
  return tx.select().from(supportHandoffs).where(eq(supportHandoffs.correlationId, correlationId)).get()
}

export function upsertSupportHandoffTx(tx: Db, row: SupportHandoffRow): void {
  tx.insert(supportHandoffs)
    .values(row)
    .onConflictDoUpdate({
      target: supportHandoffs.correlationId,
      set: { envelope: row.envelope, updatedAt: row.updatedAt },
    })
    .run()
}

// ---------- planning ----------

export async function listPages(db: Db, projectId: string): Promise<PageRow[]> {
  return db.select().from(pages).where(eq(pages.projectId, projectId)).orderBy(asc(pages.slug)).all()
}

export async function listCycles(db: Db, projectId: string): Promise<CycleRow[]> {
  return db.select().from(cycles).where(eq(cycles.projectId, projectId)).orderBy(asc(cycles.cycleKey)).all()
}

export async function listModules(db: Db, projectId: string): Promise<ModuleRow[]> {
  return db
    .select()
    .from(modules)
    .where(eq(modules.projectId, projectId))
    .orderBy(asc(modules.moduleKey))
    .all()
}

// ---------- delivery ----------

export async function deliveryOf(db: Db, projectId: string, kind: DeliveryKind): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(deliveryItems)
    .where(and(eq(deliveryItems.projectId, projectId), eq(deliveryItems.kind, kind)))
    .orderBy(asc(deliveryItems.provider), asc(deliveryItems.externalId))
    .all()
}

export async function integrationStates(db: Db, projectId: string): Promise<IntegrationStateRow[]> {
  return db.select().from(integrationRuns).where(eq(integrationRuns.projectId, projectId)).all()
}

// ---------- facts ----------

export async function projectCounts(db: Db): Promise<{ projects: number; bound: number; tasks: number }> {
  const p = db
    .select({ n: count(), bound: sql<number>`coalesce(sum(${projects.repoFullName} is not null), 0)` })
    .from(projects)
    .get()
  const t = db.select({ n: count() }).from(tasks).get()
  return { projects: p?.n ?? 0, bound: Number(p?.bound ?? 0), tasks: t?.n ?? 0 }
}

export async function latestWebhooks(db: Db): Promise<{ provider: string; at: string | null }[]> {
  return db
    .select({
      provider: integrationRuns.provider,
      at: sql<string | null>`max(${integrationRuns.lastWebhookAt})`,
    })
    .from(integrationRuns)
    .groupBy(integrationRuns.provider)
    .all()
}

export async function handoffCountsByAgent(db: Db, projectId: string, at: string) {
  return db
    .select({ from: handoffs.fromAgent, to: handoffs.toAgent, n: count() })
    .from(handoffs)
    .where(openAt(projectId, at))
    .groupBy(handoffs.fromAgent, handoffs.toAgent)
    .all()
}

export function ensureAgentTx(tx: Db, row: AgentRow): void {
  tx.insert(agents).values(row).onConflictDoNothing().run()
}

export function findTaskBySourceTx(
  tx: Db,
  projectId: string,
  sourceReferenceType: string,
  sourceReference: string,
): TaskRow | undefined {
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

export function insertSandboxWriteTx(tx: Db, row: SandboxWriteRow): void {
  tx.insert(sandboxWrites).values(row).onConflictDoNothing().run()
}

export async function findSandboxWrite(
  db: Db,
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

export async function insertCycle(db: Db, row: CycleRow): Promise<boolean> {
  return (
    db.insert(cycles).values(row).onConflictDoNothing().returning({ k: cycles.cycleKey }).all().length > 0
  )
}

export async function insertModule(db: Db, row: ModuleRow): Promise<boolean> {
  return (
    db.insert(modules).values(row).onConflictDoNothing().returning({ k: modules.moduleKey }).all().length > 0
  )
}

export async function findPage(db: Db, projectId: string, slug: string): Promise<PageRow | undefined> {
  return findPageTx(db, projectId, slug)
}

export function findPageTx(tx: Db, projectId: string, slug: string): PageRow | undefined {
  return tx
    .select()
    .from(pages)
    .where(and(eq(pages.projectId, projectId), eq(pages.slug, slug)))
    .get()
}

export async function insertPage(db: Db, row: PageRow): Promise<boolean> {
  return db.insert(pages).values(row).onConflictDoNothing().returning({ k: pages.slug }).all().length > 0
}

export function upsertPageTx(tx: Db, row: PageRow): void {
  tx.insert(pages)
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

export function updatePageTx(tx: Db, projectId: string, slug: string, patch: Partial<PageRow>): PageRow {
  const row = tx
    .update(pages)
    .set(patch)
    .where(and(eq(pages.projectId, projectId), eq(pages.slug, slug)))
    .returning()
    .get()
  if (!row) throw new Error(`page ${projectId}/${slug} vanished inside its own transaction`)
  return row
}

// ---------- delivery ingest ----------

export async function boundProjects(db: Db): Promise<ProjectRow[]> {
  return db
    .select()
    .from(projects)
    .where(sql`${projects.repoProvider} is not null and ${projects.repoFullName} is not null`)
    .all()
}

export function deliveryOfTx(tx: Db, projectId: string, provider: string): DeliveryRow[] {
  return tx
    .select()
    .from(deliveryItems)
    .where(and(eq(deliveryItems.projectId, projectId), eq(deliveryItems.provider, provider)))
    .all()
}

export function upsertDeliveryTx(tx: Db, row: DeliveryRow): void {
  tx.insert(deliveryItems)
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

export function deleteDeliveryTx(
  tx: Db,
  row: Pick<DeliveryRow, 'projectId' | 'kind' | 'provider' | 'externalId'>,
): void {
  tx.delete(deliveryItems)
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

export function findDeliveryTx(
  tx: Db,
  projectId: string,
  kind: DeliveryKind,
  provider: string,
  externalId: string,
): DeliveryRow | undefined {
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

export async function recordIntegrationState(db: Db, row: IntegrationStateRow): Promise<void> {
  db.insert(integrationRuns)
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
    .run()
}

/** Tasks of a project linked to outside items of one reference type, by reference. */
export async function linkedTasks(
  db: Db,
  projectId: string,
  sourceReferenceType: string,
): Promise<TaskRow[]> {
  return linkedTasksTx(db, projectId, sourceReferenceType)
}

export function linkedTasksTx(tx: Db, projectId: string, sourceReferenceType: string): TaskRow[] {
  return tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.sourceReferenceType, sourceReferenceType)))
    .all()
}

// ---------- OIDC logins ----------

export type OidcLoginRow = typeof oidcLogins.$inferSelect

export async function insertOidcLogin(db: Db, row: OidcLoginRow, expiredBefore: string): Promise<void> {
  writeTx(db, (tx) => {
    tx.delete(oidcLogins).where(lt(oidcLogins.createdAt, expiredBefore)).run()
    tx.insert(oidcLogins).values(row).run()
  })
}

/** The login of this state, removed as it is read: a callback is answered once. */
export async function takeOidcLogin(db: Db, state: string): Promise<OidcLoginRow | undefined> {
  return db.delete(oidcLogins).where(eq(oidcLogins.state, state)).returning().get()
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
export async function summaryFacts(db: Db, projectId: string, nowMs: number): Promise<SummaryFacts> {
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

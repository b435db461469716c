import { and, asc, count, desc, eq, lt, sql } from 'drizzle-orm'
import { AppError, unavailable } from '../../common/errors.ts'
import { newId, nowIso } from '../../common/time.ts'
import { StorageGuard } from '../../db/guard.ts'
import { enqueueIn, type OutboxDb, outboxSummary } from '../../db/outbox.ts'
import type { Sql, Storage } from '../../db/storage.ts'
import type { ResourceKind } from './model/host.ts'
import type { DesiredResource } from './rules/drift.ts'
import { decideLease } from './rules/lease.ts'
import { docHash, resourceKey } from './rules/resources.ts'
import {
  auditEvents,
  desiredResources,
  executionApprovals,
  learningProposals,
  leases,
  leaseTransitions,
  patchPlans,
  reconcileRuns,
  rollouts,
} from './tables.ts'

/**
 * Every function here is async on the unit's storage: reads take `storage.db` (committed data) or a
 * transaction's `tx`; writes take `tx` inside the caller's `storage.transaction`, except the lease
 * and reconcile-run functions, which open their own transaction.
 */

/**
 * A read the database does not answer (a libSQL server gone, a file gone) is the 503 of
 * `db/guard.ts` rather than a 500; a refusal passes through. Writes get the same from the guarded
 * storage's transaction (`guardedStorage`).
 */
function guarded<A extends unknown[], R>(read: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await read(...args)
    } catch (err) {
      if (err instanceof AppError) throw err
      // The driver's error rides along as the cause: the wire's log line of the 503 names it.
      throw Object.assign(unavailable('persistence_unavailable', 'The store is unavailable.'), { cause: err })
    }
  }
}

/**
 * The unit's storage with its writes guarded (`StorageGuard`): a transaction the database does not
 * take is the 503 and degrades readiness until a write succeeds; a refusal (AppError) thrown in a
 * body rolls back and passes through as before.
 */
export function guardedStorage(storage: Storage, onFailure: (err: unknown) => void): Storage {
  const guard = new StorageGuard(storage, { onFailure })
  return {
    driver: storage.driver,
    location: storage.location,
    db: storage.db,
    ...(storage.embedded ? { embedded: storage.embedded } : {}),
    transaction: (fn) => guard.write(fn),
    ready: () => guard.ready(),
    close: () => storage.close(),
    get writes() {
      return storage.writes
    },
  }
}

// ---------- desired state ----------

export const loadDesired = guarded(async function loadDesired(
  db: Sql,
): Promise<Map<string, DesiredResource>> {
  const out = new Map<string, DesiredResource>()
  for (const r of await db.select().from(desiredResources).all()) {
    const kind = r.kind as ResourceKind
    out.set(resourceKey(kind, r.resourceId), { kind, id: r.resourceId, doc: r.document, hash: r.hash })
  }
  return out
})

export const desiredCount = guarded(
  async (db: Sql) => (await db.select({ n: count() }).from(desiredResources).get())?.n ?? 0,
)

export async function upsertDesired(
  w: Sql,
  kind: ResourceKind,
  id: string,
  doc: Record<string, unknown>,
  actor: string,
) {
  const row = {
    kind,
    resourceId: id,
    document: doc,
    hash: docHash(doc),
    updatedAt: nowIso(),
    updatedBy: actor,
  }
  await w
    .insert(desiredResources)
    .values(row)
    .onConflictDoUpdate({
      target: [desiredResources.kind, desiredResources.resourceId],
      set: { document: doc, hash: row.hash, updatedAt: row.updatedAt, updatedBy: actor },
    })
    .run()
}

/** The host as found, into an empty desired state (adoption): one insert, hashes as scanned. */
export async function insertDesired(
  w: Sql,
  resources: readonly { kind: ResourceKind; id: string; doc: Record<string, unknown>; hash: string }[],
  actor: string,
) {
  if (resources.length === 0) return
  const updatedAt = nowIso()
  await w
    .insert(desiredResources)
    .values(
      resources.map((r) => ({
        kind: r.kind,
        resourceId: r.id,
        document: r.doc,
        hash: r.hash,
        updatedAt,
        updatedBy: actor,
      })),
    )
    .run()
}

export async function removeDesired(w: Sql, kind: ResourceKind, id: string) {
  await w
    .delete(desiredResources)
    .where(and(eq(desiredResources.kind, kind), eq(desiredResources.resourceId, id)))
    .run()
}

// ---------- audit and outbox ----------

/** The outbox target of audit events (its URL is RMS_EVENT_SINK_URL). */
export const EVENT_SINK = 'event-sink'

export interface AuditInput {
  kind: string
  actor: string
  authoritySource: string
  resourceKind?: string | null
  resourceId?: string | null
  outcome: 'applied' | 'recorded' | 'refused' | 'failed' | 'acquired' | 'released' | 'taken_over'
  details?: Record<string, unknown>
}

export async function audit(w: Sql, e: AuditInput, sinkConfigured: boolean): Promise<string> {
  const eventId = newId()
  const at = nowIso()
  const row = {
    eventId,
    at,
    kind: e.kind,
    actor: e.actor,
    authoritySource: e.authoritySource,
    resourceKind: e.resourceKind ?? null,
    resourceId: e.resourceId ?? null,
    outcome: e.outcome,
    details: e.details ?? {},
  }
  await w.insert(auditEvents).values(row).run()
  // In the same transaction as the audit row: the event is delivered if and only if it was recorded.
  if (sinkConfigured)
    await enqueueIn(w, { id: eventId, target: EVENT_SINK, payload: JSON.stringify(auditView(row)), at })
  return eventId
}

export function auditView(r: typeof auditEvents.$inferSelect) {
  return {
    event_id: r.eventId,
    recorded_at: r.at,
    kind: r.kind,
    subject: r.actor,
    authority_source: r.authoritySource,
    resource_kind: r.resourceKind,
    resource_id: r.resourceId,
    outcome: r.outcome,
    details: r.details,
  }
}

export const listAudit = guarded(async function listAudit(
  db: Sql,
  q: { kindPrefix?: string; before?: string; limit: number },
) {
  const where = and(
    q.kindPrefix ? sql`substr(${auditEvents.kind}, 1, ${q.kindPrefix.length}) = ${q.kindPrefix}` : undefined,
    q.before ? lt(auditEvents.eventId, q.before) : undefined,
  )
  const rows = await db
    .select()
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.eventId))
    .limit(q.limit)
    .all()
  return rows.map(auditView)
})

/** Audit events in the outbox to the event sink, by state. */
export const outboxCounts = guarded(async function outboxCounts(db: OutboxDb) {
  const s = await outboxSummary(db, EVENT_SINK)
  return { pending: s.pending, delivered: s.delivered, dead: s.dead }
})

// ---------- patch plans and rollouts ----------

export type PlanRow = typeof patchPlans.$inferSelect
export type RolloutRow = typeof rollouts.$inferSelect

export async function insertPlan(w: Sql, plan: typeof patchPlans.$inferInsert) {
  await w.insert(patchPlans).values(plan).run()
}

export async function updatePlanStatus(
  w: Sql,
  planId: string,
  status: 'applied' | 'failed',
  rolloutId: string,
) {
  await w.update(patchPlans).set({ status, rolloutId }).where(eq(patchPlans.planId, planId)).run()
}

export async function insertRollout(w: Sql, row: typeof rollouts.$inferInsert) {
  await w.insert(rollouts).values(row).run()
}

export const findRollout = guarded(
  async (db: Sql, rolloutId: string) =>
    await db.select().from(rollouts).where(eq(rollouts.rolloutId, rolloutId)).get(),
)

export const findPlan = guarded(async (db: Sql, planId: string) =>
  db.select().from(patchPlans).where(eq(patchPlans.planId, planId)).get(),
)

export const listRollouts = guarded(async function listRollouts(db: Sql, limit: number) {
  return await db.select().from(rollouts).orderBy(desc(rollouts.startedAt)).limit(limit).all()
})

export const rolloutCount = guarded(
  async (db: Sql) => (await db.select({ n: count() }).from(rollouts).get())?.n ?? 0,
)

// ---------- leases ----------

export type LeaseRow = typeof leases.$inferSelect

export type LeaseOutcome =
  | { held: true; transition: 'acquired' | 'taken_over' | 'renewed'; lease: LeaseRow }
  | { held: false; lease: LeaseRow }

/**
 * Acquire or renew a lease inside one write transaction (BEGIN IMMEDIATE on the embedded file, a
 * write transaction on a libSQL server): the database serializes writers across processes, so two
 * RMS processes on one database can never both come out holding it.
 */
export async function acquireLease(
  storage: Storage,
  name: string,
  holder: string,
  durationS: number,
  now = new Date(),
): Promise<LeaseOutcome> {
  return await storage.transaction(async (tx): Promise<LeaseOutcome> => {
    const current = await findLease(tx, name)
    const decision = decideLease(current, holder, now)
    const at = now.toISOString()
    const expiresAt = new Date(now.getTime() + durationS * 1000).toISOString()
    if (decision.action === 'refuse') return { held: false, lease: current! }
    if (decision.action === 'renew') {
      await tx
        .update(leases)
        .set({ renewedAt: at, expiresAt, durationS, renewCount: sql`${leases.renewCount} + 1` })
        .where(eq(leases.name, name))
        .run()
    } else {
      const generation = (current?.generation ?? 0) + 1
      const row = {
        name,
        holder,
        acquiredAt: at,
        renewedAt: at,
        expiresAt,
        durationS,
        renewCount: 0,
        generation,
      }
      await tx.insert(leases).values(row).onConflictDoUpdate({ target: leases.name, set: row }).run()
      await tx
        .insert(leaseTransitions)
        .values({
          transitionId: newId(),
          leaseName: name,
          at,
          transition: decision.action === 'acquire' ? 'acquired' : 'taken_over',
          fromHolder: decision.action === 'take_over' ? decision.from : null,
          toHolder: holder,
          generation,
        })
        .run()
    }
    const lease = (await findLease(tx, name))!
    const transition =
      decision.action === 'renew' ? 'renewed' : decision.action === 'acquire' ? 'acquired' : 'taken_over'
    return { held: true, transition, lease }
  })
}

export async function releaseLease(storage: Storage, name: string, holder: string): Promise<boolean> {
  return await storage.transaction(async (tx) => {
    const current = await findLease(tx, name)
    if (!current || current.holder !== holder) return false
    await tx.update(leases).set({ holder: null, expiresAt: null }).where(eq(leases.name, name)).run()
    await tx
      .insert(leaseTransitions)
      .values({
        transitionId: newId(),
        leaseName: name,
        at: nowIso(),
        transition: 'released',
        fromHolder: holder,
        toHolder: null,
        generation: current.generation,
      })
      .run()
    return true
  })
}

export const listLeases = guarded(
  async (db: Sql) => await db.select().from(leases).orderBy(asc(leases.name)).all(),
)

export const findLease = guarded(
  async (db: Sql, name: string) => await db.select().from(leases).where(eq(leases.name, name)).get(),
)

export const listTransitions = guarded(async function listTransitions(db: Sql, limit: number) {
  return await db
    .select()
    .from(leaseTransitions)
    .orderBy(desc(leaseTransitions.transitionId))
    .limit(limit)
    .all()
})

// ---------- reconcile runs ----------

export type ReconcileRow = typeof reconcileRuns.$inferSelect

export async function startRun(
  storage: Storage,
  run: { runId: string; startedAt: string; holder: string; trigger: 'schedule' | 'manual' },
): Promise<ReconcileRow> {
  const row = { ...run, outcome: 'running' as const }
  await storage.transaction(async (tx) => {
    await tx.insert(reconcileRuns).values(row).run()
  })
  return { ...row, finishedAt: null, driftItems: null, maxSeverity: null, hostHash: null, error: null }
}

export async function finishRun(
  storage: Storage,
  runId: string,
  r: {
    outcome: 'ok' | 'failed'
    driftItems: number | null
    maxSeverity: string | null
    hostHash: string | null
    error: string | null
  },
): Promise<ReconcileRow> {
  return await storage.transaction(async (tx) => {
    await tx
      .update(reconcileRuns)
      .set({ ...r, finishedAt: nowIso() })
      .where(eq(reconcileRuns.runId, runId))
      .run()
    return (await tx.select().from(reconcileRuns).where(eq(reconcileRuns.runId, runId)).get())!
  })
}

export const lastRuns = guarded(async function lastRuns(db: Sql, limit: number) {
  return await db.select().from(reconcileRuns).orderBy(desc(reconcileRuns.runId)).limit(limit).all()
})

export const lastFinishedRun = guarded(async function lastFinishedRun(db: Sql) {
  return await db
    .select()
    .from(reconcileRuns)
    .where(sql`${reconcileRuns.finishedAt} IS NOT NULL`)
    .orderBy(desc(reconcileRuns.finishedAt))
    .limit(1)
    .get()
})

export const reconcileCounts = guarded(async function reconcileCounts(db: Sql) {
  return await db
    .select({ outcome: reconcileRuns.outcome, n: count() })
    .from(reconcileRuns)
    .groupBy(reconcileRuns.outcome)
    .all()
})

// ---------- learning proposals ----------

export type ProposalRow = typeof learningProposals.$inferSelect

export async function insertProposal(w: Sql, row: typeof learningProposals.$inferInsert) {
  await w.insert(learningProposals).values(row).run()
}

export const findProposal = guarded(
  async (db: Sql, slug: string, id: string) =>
    await db
      .select()
      .from(learningProposals)
      .where(and(eq(learningProposals.agentSlug, slug), eq(learningProposals.proposalId, id)))
      .get(),
)

export const listProposals = guarded(async function listProposals(db: Sql, slug: string) {
  return await db
    .select()
    .from(learningProposals)
    .where(eq(learningProposals.agentSlug, slug))
    .orderBy(desc(learningProposals.proposalId))
    .all()
})

export async function updateProposal(
  w: Sql,
  id: string,
  set: Partial<typeof learningProposals.$inferInsert>,
) {
  await w.update(learningProposals).set(set).where(eq(learningProposals.proposalId, id)).run()
}

export const proposalCounts = guarded(async function proposalCounts(db: Sql) {
  return await db
    .select({ state: learningProposals.state, n: count() })
    .from(learningProposals)
    .groupBy(learningProposals.state)
    .all()
})

export const pendingProposalsByAgent = guarded(async function pendingProposalsByAgent(db: Sql) {
  const rows = await db
    .select({ slug: learningProposals.agentSlug, n: count() })
    .from(learningProposals)
    .where(eq(learningProposals.state, 'pending_review'))
    .groupBy(learningProposals.agentSlug)
    .all()
  return new Map(rows.map((r) => [r.slug, r.n]))
})

// ---------- execution approvals ----------

export type ApprovalRow = typeof executionApprovals.$inferSelect

export const findApproval = guarded(
  async (db: Sql, id: string) =>
    await db.select().from(executionApprovals).where(eq(executionApprovals.approvalId, id)).get(),
)

export async function saveApproval(w: Sql, row: typeof executionApprovals.$inferInsert) {
  await w
    .insert(executionApprovals)
    .values(row)
    .onConflictDoUpdate({ target: executionApprovals.approvalId, set: row })
    .run()
}

export const listApprovals = guarded(async function listApprovals(db: Sql, limit: number) {
  return await db
    .select()
    .from(executionApprovals)
    .orderBy(desc(executionApprovals.recordedAt))
    .limit(limit)
    .all()
})

import { and, asc, count, desc, eq, lt, sql } from 'drizzle-orm'
import { newId, nowIso } from '../../common/time.ts'
import { enqueue, outboxSummary } from '../../db/outbox.ts'
import type { Db } from '../../db/sqlite.ts'
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

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type Writer = Db | Tx

// ---------- desired state ----------

export function loadDesired(db: Db): Map<string, DesiredResource> {
  const out = new Map<string, DesiredResource>()
  for (const r of db.select().from(desiredResources).all()) {
    const kind = r.kind as ResourceKind
    out.set(resourceKey(kind, r.resourceId), { kind, id: r.resourceId, doc: r.document, hash: r.hash })
  }
  return out
}

export const desiredCount = (db: Db) => db.select({ n: count() }).from(desiredResources).get()?.n ?? 0

export function upsertDesired(
  w: Writer,
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
  w.insert(desiredResources)
    .values(row)
    .onConflictDoUpdate({
      target: [desiredResources.kind, desiredResources.resourceId],
      set: { document: doc, hash: row.hash, updatedAt: row.updatedAt, updatedBy: actor },
    })
    .run()
}

export function removeDesired(w: Writer, kind: ResourceKind, id: string) {
  w.delete(desiredResources)
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

export function audit(w: Writer, e: AuditInput, sinkConfigured: boolean): string {
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
  w.insert(auditEvents).values(row).run()
  // In the same transaction as the audit row: the event is delivered if and only if it was recorded.
  if (sinkConfigured)
    enqueue(w, { id: eventId, target: EVENT_SINK, payload: JSON.stringify(auditView(row)), at })
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

export function listAudit(db: Db, q: { kindPrefix?: string; before?: string; limit: number }) {
  const where = and(
    q.kindPrefix ? sql`substr(${auditEvents.kind}, 1, ${q.kindPrefix.length}) = ${q.kindPrefix}` : undefined,
    q.before ? lt(auditEvents.eventId, q.before) : undefined,
  )
  return db
    .select()
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.eventId))
    .limit(q.limit)
    .all()
    .map(auditView)
}

/** Audit events in the outbox to the event sink, by state. */
export async function outboxCounts(db: Db) {
  const s = await outboxSummary(db, EVENT_SINK)
  return { pending: s.pending, delivered: s.delivered, dead: s.dead }
}

// ---------- patch plans and rollouts ----------

export type PlanRow = typeof patchPlans.$inferSelect
export type RolloutRow = typeof rollouts.$inferSelect

export function insertPlan(w: Writer, plan: typeof patchPlans.$inferInsert) {
  w.insert(patchPlans).values(plan).run()
}

export function updatePlanStatus(w: Writer, planId: string, status: 'applied' | 'failed', rolloutId: string) {
  w.update(patchPlans).set({ status, rolloutId }).where(eq(patchPlans.planId, planId)).run()
}

export function insertRollout(w: Writer, row: typeof rollouts.$inferInsert) {
  w.insert(rollouts).values(row).run()
}

export const findPlan = (db: Db, planId: string) =>
  db.select().from(patchPlans).where(eq(patchPlans.planId, planId)).get()

export function listRollouts(db: Db, limit: number) {
  return db.select().from(rollouts).orderBy(desc(rollouts.startedAt)).limit(limit).all()
}

export const rolloutCount = (db: Db) => db.select({ n: count() }).from(rollouts).get()?.n ?? 0

// ---------- leases ----------

export type LeaseRow = typeof leases.$inferSelect

export type LeaseOutcome =
  | { held: true; transition: 'acquired' | 'taken_over' | 'renewed'; lease: LeaseRow }
  | { held: false; lease: LeaseRow }

/**
 * Acquire or renew a lease inside one IMMEDIATE transaction: SQLite serializes writers across
 * processes, so two RMS processes on one file can never both come out holding it.
 */
export function acquireLease(
  db: Db,
  name: string,
  holder: string,
  durationS: number,
  now = new Date(),
): LeaseOutcome {
  return db.transaction(
    (tx) => {
      const current = tx.select().from(leases).where(eq(leases.name, name)).get()
      const decision = decideLease(current, holder, now)
      const at = now.toISOString()
      const expiresAt = new Date(now.getTime() + durationS * 1000).toISOString()
      if (decision.action === 'refuse') return { held: false as const, lease: current! }
      if (decision.action === 'renew') {
        tx.update(leases)
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
        tx.insert(leases).values(row).onConflictDoUpdate({ target: leases.name, set: row }).run()
        tx.insert(leaseTransitions)
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
      const lease = tx.select().from(leases).where(eq(leases.name, name)).get()!
      const transition =
        decision.action === 'renew' ? 'renewed' : decision.action === 'acquire' ? 'acquired' : 'taken_over'
      return { held: true as const, transition, lease }
    },
    { behavior: 'immediate' },
  )
}

export function releaseLease(db: Db, name: string, holder: string): boolean {
  return db.transaction(
    (tx) => {
      const current = tx.select().from(leases).where(eq(leases.name, name)).get()
      if (!current || current.holder !== holder) return false
      tx.update(leases).set({ holder: null, expiresAt: null }).where(eq(leases.name, name)).run()
      tx.insert(leaseTransitions)
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
    },
    { behavior: 'immediate' },
  )
}

export const listLeases = (db: Db) => db.select().from(leases).orderBy(asc(leases.name)).all()

export function listTransitions(db: Db, limit: number) {
  return db.select().from(leaseTransitions).orderBy(desc(leaseTransitions.transitionId)).limit(limit).all()
}

// ---------- reconcile runs ----------

export type ReconcileRow = typeof reconcileRuns.$inferSelect

export function startRun(db: Db, holder: string, trigger: 'schedule' | 'manual'): ReconcileRow {
  const row = { runId: newId(), holder, trigger, startedAt: nowIso(), outcome: 'running' as const }
  db.insert(reconcileRuns).values(row).run()
  return { ...row, finishedAt: null, driftItems: null, maxSeverity: null, hostHash: null, error: null }
}

export function finishRun(
  db: Db,
  runId: string,
  r: {
    outcome: 'ok' | 'failed'
    driftItems: number | null
    maxSeverity: string | null
    hostHash: string | null
    error: string | null
  },
): ReconcileRow {
  db.update(reconcileRuns)
    .set({ ...r, finishedAt: nowIso() })
    .where(eq(reconcileRuns.runId, runId))
    .run()
  return db.select().from(reconcileRuns).where(eq(reconcileRuns.runId, runId)).get()!
}

export function lastRuns(db: Db, limit: number) {
  return db.select().from(reconcileRuns).orderBy(desc(reconcileRuns.runId)).limit(limit).all()
}

export function lastFinishedRun(db: Db) {
  return db
    .select()
    .from(reconcileRuns)
    .where(sql`${reconcileRuns.finishedAt} IS NOT NULL`)
    .orderBy(desc(reconcileRuns.finishedAt))
    .limit(1)
    .get()
}

export function reconcileCounts(db: Db) {
  return db
    .select({ outcome: reconcileRuns.outcome, n: count() })
    .from(reconcileRuns)
    .groupBy(reconcileRuns.outcome)
    .all()
}

// ---------- learning proposals ----------

export type ProposalRow = typeof learningProposals.$inferSelect

export function insertProposal(w: Writer, row: typeof learningProposals.$inferInsert) {
  w.insert(learningProposals).values(row).run()
}

export const findProposal = (db: Writer, slug: string, id: string) =>
  db
    .select()
    .from(learningProposals)
    .where(and(eq(learningProposals.agentSlug, slug), eq(learningProposals.proposalId, id)))
    .get()

export function listProposals(db: Db, slug: string) {
  return db
    .select()
    .from(learningProposals)
    .where(eq(learningProposals.agentSlug, slug))
    .orderBy(desc(learningProposals.proposalId))
    .all()
}

export function updateProposal(w: Writer, id: string, set: Partial<typeof learningProposals.$inferInsert>) {
  w.update(learningProposals).set(set).where(eq(learningProposals.proposalId, id)).run()
}

export function proposalCounts(db: Db) {
  return db
    .select({ state: learningProposals.state, n: count() })
    .from(learningProposals)
    .groupBy(learningProposals.state)
    .all()
}

export function pendingProposalsByAgent(db: Db) {
  const rows = db
    .select({ slug: learningProposals.agentSlug, n: count() })
    .from(learningProposals)
    .where(eq(learningProposals.state, 'pending_review'))
    .groupBy(learningProposals.agentSlug)
    .all()
  return new Map(rows.map((r) => [r.slug, r.n]))
}

// ---------- execution approvals ----------

export type ApprovalRow = typeof executionApprovals.$inferSelect

export const findApproval = (db: Writer, id: string) =>
  db.select().from(executionApprovals).where(eq(executionApprovals.approvalId, id)).get()

export function saveApproval(w: Writer, row: typeof executionApprovals.$inferInsert) {
  w.insert(executionApprovals)
    .values(row)
    .onConflictDoUpdate({ target: executionApprovals.approvalId, set: row })
    .run()
}

export function listApprovals(db: Db, limit: number) {
  return db.select().from(executionApprovals).orderBy(desc(executionApprovals.recordedAt)).limit(limit).all()
}

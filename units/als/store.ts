import type { Database } from 'bun:sqlite'
import { and, asc, count, eq, gte, min, ne, sql } from 'drizzle-orm'
import { PersistenceGuard } from '../../db/guard.ts'
import { type IdempotencyRequest, idempotencyStatements, type Lookup } from '../../db/idempotency.ts'
import { columnPlaceholders } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import type { RuntimeState } from './rules/promotion.ts'
import type { ProposalState, RunState } from './rules/states.ts'
import { proposals, replays, runs, runtimeTargets, transitions } from './tables.ts'

/**
 * What store functions work on: the unit's prepared statements (one connection, so they take
 * part in whatever transaction is open). Drizzle's query builder costs hundreds of microseconds
 * per call here, so every query is built once and prepared.
 */
export type Q = Statements
/** The same handle, inside a write transaction. */
export type Tx = Statements

export type RunRow = typeof runs.$inferSelect
export type NewRun = typeof runs.$inferInsert
export type ReplayRow = typeof replays.$inferSelect
export type NewReplay = typeof replays.$inferInsert
export type ProposalRow = typeof proposals.$inferSelect
export type NewProposal = typeof proposals.$inferInsert
export type NewTransition = typeof transitions.$inferInsert

/**
 * The unit's persistence: the shared guard (db/guard.ts) over ALS's prepared statements. Any
 * storage failure is a 503 `persistence_unavailable` and is remembered for readiness.
 */
export class Persistence extends PersistenceGuard<Statements> {
  constructor(db: Db, sqlite: Database, onFailure: (err: unknown) => void) {
    super(db, sqlite, {
      prepare: prepareStatements,
      onFailure,
      code: 'persistence_unavailable',
      message: 'The learning store is unavailable; nothing was written.',
    })
  }
}

// ---- prepared statements ----

const p = (name: string) => sql.placeholder(name)

const MUTABLE_PROPOSAL_FIELDS = [
  'state',
  'approvalId',
  'policyApproved',
  'humanApproved',
  'staleInvalidated',
  'approvalCheckedAt',
  'runtimeStateBefore',
  'runtimeStateAfter',
  'activatedAt',
  'rollbackReason',
  'rollbackRestored',
  'rolledBackAt',
  'updatedAt',
] as const
type MutableProposal = Pick<ProposalRow, (typeof MUTABLE_PROPOSAL_FIELDS)[number]>

function prepareStatements(db: Db) {
  const target = (t: {
    targetType: typeof runtimeTargets.targetType
    targetId: typeof runtimeTargets.targetId
  }) => and(eq(t.targetType, p('targetType')), eq(t.targetId, p('targetId')))
  const runtimeValues = {
    activeProposalId: p('activeProposalId'),
    candidateHash: p('candidateHash'),
    decision: p('decision'),
    updatedAt: p('updatedAt'),
  }
  return {
    insertRun: db.insert(runs).values(columnPlaceholders(runs)).prepare(),
    runById: db
      .select()
      .from(runs)
      .where(eq(runs.runId, p('runId')))
      .prepare(),
    runByTrace: db
      .select()
      .from(runs)
      .where(eq(runs.traceId, p('traceId')))
      .prepare(),
    correlationElsewhere: db
      .select({ runId: runs.runId, tenantRef: runs.tenantRef })
      .from(runs)
      .where(and(eq(runs.correlationId, p('correlationId')), ne(runs.tenantRef, p('tenantRef'))))
      .limit(1)
      .prepare(),
    markRunProposed: db
      .update(runs)
      .set({ state: 'proposed' })
      .where(eq(runs.runId, p('runId')))
      .prepare(),
    runsByState: db.select({ state: runs.state, n: count() }).from(runs).groupBy(runs.state).prepare(),

    insertReplay: db.insert(replays).values(columnPlaceholders(replays)).prepare(),
    replaysSince: db
      .select({ n: count(), oldest: min(replays.evaluatedAt) })
      .from(replays)
      .where(gte(replays.evaluatedAt, p('since')))
      .prepare(),

    insertProposal: db.insert(proposals).values(columnPlaceholders(proposals)).prepare(),
    proposalById: db
      .select()
      .from(proposals)
      .where(eq(proposals.proposalId, p('proposalId')))
      .prepare(),
    updateProposal: db
      .update(proposals)
      .set(Object.fromEntries(MUTABLE_PROPOSAL_FIELDS.map((f) => [f, p(f)])))
      .where(eq(proposals.proposalId, p('proposalId')))
      .prepare(),
    activeOnTarget: db
      .select({ proposalId: proposals.proposalId })
      .from(proposals)
      .where(
        and(
          eq(proposals.targetType, p('targetType')),
          eq(proposals.targetId, p('targetId')),
          eq(proposals.state, 'activated'),
          ne(proposals.proposalId, p('exceptId')),
        ),
      )
      .limit(1)
      .prepare(),
    proposalsByState: db
      .select({ state: proposals.state, n: count() })
      .from(proposals)
      .groupBy(proposals.state)
      .prepare(),

    insertTransition: db
      .insert(transitions)
      .values({
        proposalId: p('proposalId'),
        targetType: p('targetType'),
        targetId: p('targetId'),
        trigger: p('trigger'),
        fromState: p('fromState'),
        toState: p('toState'),
        stateKeyBefore: p('stateKeyBefore'),
        stateKeyAfter: p('stateKeyAfter'),
        at: p('at'),
      })
      .prepare(),
    activationsSince: db
      .select({ n: count() })
      .from(transitions)
      .where(and(eq(transitions.toState, 'activated'), gte(transitions.at, p('since'))))
      .prepare(),
    targetChangesSince: db
      .select({ before: transitions.stateKeyBefore, after: transitions.stateKeyAfter })
      .from(transitions)
      .where(
        and(
          eq(transitions.targetType, p('targetType')),
          eq(transitions.targetId, p('targetId')),
          gte(transitions.at, p('since')),
          sql`${transitions.stateKeyAfter} IS NOT NULL`,
        ),
      )
      .orderBy(asc(transitions.id))
      .prepare(),

    runtimeTarget: db.select().from(runtimeTargets).where(target(runtimeTargets)).prepare(),
    saveRuntimeTarget: db
      .insert(runtimeTargets)
      .values({ targetType: p('targetType'), targetId: p('targetId'), ...runtimeValues })
      .onConflictDoUpdate({
        target: [runtimeTargets.targetType, runtimeTargets.targetId],
        // Drizzle types update sets by value; placeholders are filled (and JSON-encoded) at run time.
        set: runtimeValues as unknown as Partial<typeof runtimeTargets.$inferInsert>,
      })
      .prepare(),

    idempotency: idempotencyStatements(db),
  }
}

export type Statements = ReturnType<typeof prepareStatements>

// ---- runs ----

export const insertRun = (q: Q, row: NewRun): void => void q.insertRun.run(row)

export const findRun = (q: Q, runId: string): RunRow | undefined => q.runById.get({ runId })

export const findRunByTrace = (q: Q, traceId: string): RunRow | undefined => q.runByTrace.get({ traceId })

/** A run with this correlation id under another tenant, if any. */
export const findCorrelationElsewhere = (q: Q, correlationId: string, tenantRef: string) =>
  q.correlationElsewhere.get({ correlationId, tenantRef })

export const markRunProposed = (q: Q, runId: string): void => void q.markRunProposed.run({ runId })

export const countRunsByState = (q: Q): Partial<Record<RunState, number>> =>
  Object.fromEntries(q.runsByState.all().map((r) => [r.state, r.n]))

// ---- replays ----

export const insertReplay = (q: Q, row: NewReplay): void => void q.insertReplay.run(row)

/** Replays inside the window, and the oldest of them (when the next budget slot frees up). */
export function replaysSince(q: Q, since: string): { count: number; oldest: string | null } {
  const r = q.replaysSince.get({ since })
  return { count: r?.n ?? 0, oldest: r?.oldest ?? null }
}

// ---- proposals ----

export const insertProposal = (q: Q, row: ProposalRow): void => void q.insertProposal.run(row)

export const findProposal = (q: Q, proposalId: string): ProposalRow | undefined =>
  q.proposalById.get({ proposalId })

/** Write a proposal's mutable fields: the stored row with `set` applied. */
export function updateProposal(q: Q, current: ProposalRow, set: Partial<MutableProposal>): void {
  const next = { ...current, ...set }
  const params: Record<string, unknown> = { proposalId: current.proposalId }
  for (const f of MUTABLE_PROPOSAL_FIELDS) params[f] = next[f]
  q.updateProposal.run(params)
}

/** Another proposal currently activated on the same target. */
export const findActiveOnTarget = (q: Q, targetType: string, targetId: string, exceptId: string) =>
  q.activeOnTarget.get({ targetType, targetId, exceptId })

export const countProposalsByState = (q: Q): Partial<Record<ProposalState, number>> =>
  Object.fromEntries(q.proposalsByState.all().map((r) => [r.state, r.n]))

// ---- transitions and runtime targets ----

export function insertTransition(q: Q, row: NewTransition): void {
  q.insertTransition.run({ fromState: null, stateKeyBefore: null, stateKeyAfter: null, ...row })
}

export const countActivationsSince = (q: Q, since: string): number =>
  q.activationsSince.get({ since })?.n ?? 0

/** Runtime changes of a target (activations and rollbacks) since a moment, oldest first. */
export const targetChangesSince = (q: Q, targetType: string, targetId: string, since: string) =>
  q.targetChangesSince.all({ targetType, targetId, since })

export const findRuntimeTarget = (q: Q, targetType: string, targetId: string) =>
  q.runtimeTarget.get({ targetType, targetId })

export function saveRuntimeTarget(q: Q, state: RuntimeState, at: string): void {
  q.saveRuntimeTarget.run({
    targetType: state.target_type,
    targetId: state.target_id,
    activeProposalId: state.active_proposal_id,
    candidateHash: state.candidate_hash,
    decision: state.decision ?? null,
    updatedAt: at,
  })
}

// ---- idempotency ----

export const findIdempotent = (q: Q, req: IdempotencyRequest): Lookup => q.idempotency.lookup(req)

/** Remember an answer (JSON) for its key, in the transaction that made the effect. */
export const saveIdempotent = (q: Q, req: IdempotencyRequest, answer: unknown, at: string): void =>
  q.idempotency.save(
    req,
    { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(answer)) },
    at,
  )

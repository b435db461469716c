import type { Database } from 'bun:sqlite'
import { and, asc, count, eq, gte, ne, sql } from 'drizzle-orm'
import { AppError, unavailable } from '../../common/errors.ts'
import type { Db } from '../../db/sqlite.ts'
import type { RuntimeState } from './rules/promotion.ts'
import type { ProposalState, RunState } from './rules/states.ts'
import { idempotency, proposals, replays, runs, runtimeTargets, transitions } from './tables.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Either the database or an open transaction: store functions work on both. */
export type Q = Db | Tx

export type RunRow = typeof runs.$inferSelect
export type NewRun = typeof runs.$inferInsert
export type ReplayRow = typeof replays.$inferSelect
export type NewReplay = typeof replays.$inferInsert
export type ProposalRow = typeof proposals.$inferSelect
export type NewProposal = typeof proposals.$inferInsert
export type NewTransition = typeof transitions.$inferInsert
export type IdempotencyRow = typeof idempotency.$inferSelect

/**
 * The unit's persistence: every read and write goes through `read` or `write`, which turn any
 * storage failure into a 503 `persistence_unavailable` and remember it for readiness.
 * Refusals thrown inside a write (AppError) roll the transaction back and pass through.
 */
export class Persistence {
  private failing = false
  private readonly probe: () => void

  constructor(
    readonly db: Db,
    sqlite: Database,
    private readonly onFailure: (err: unknown) => void,
  ) {
    this.probe = () => void sqlite.query('SELECT 1').get()
  }

  /** Whether the database answers and the last write did not fail. Never blocks: SQLite is local. */
  ready(): boolean {
    try {
      this.probe()
      return !this.failing
    } catch {
      return false
    }
  }

  read<T>(fn: (q: Q) => T): T {
    return this.guard(() => fn(this.db))
  }

  /** One IMMEDIATE transaction, committed before this returns (synchronous callback only). */
  write<T>(fn: (tx: Tx) => T): T {
    const result = this.guard(() => this.db.transaction(fn, { behavior: 'immediate' }))
    this.failing = false
    return result
  }

  /**
   * Group commit: queue `fn` and run it with every other write queued in the same event-loop
   * turn, in one IMMEDIATE transaction; each promise settles only after that transaction
   * committed. A refusal (AppError) settles only its own caller, so `fn` must refuse before it
   * writes anything; a storage failure fails the whole group with 503.
   */
  writeGrouped<T>(fn: (tx: Tx) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.group.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      if (this.group.length === 1) setImmediate(() => this.flushGroup())
    })
  }

  private group: {
    fn: (tx: Tx) => unknown
    resolve: (value: unknown) => void
    reject: (err: unknown) => void
  }[] = []

  private flushGroup(): void {
    const batch = this.group
    this.group = []
    let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[]
    try {
      outcomes = this.write((tx) =>
        batch.map((item) => {
          try {
            return { ok: true as const, value: item.fn(tx) }
          } catch (error) {
            if (error instanceof AppError) return { ok: false as const, error }
            throw error
          }
        }),
      )
    } catch (err) {
      for (const item of batch) item.reject(err)
      return
    }
    outcomes.forEach((outcome, i) => {
      const item = batch[i]!
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn()
    } catch (err) {
      if (err instanceof AppError) throw err
      this.failing = true
      this.onFailure(err)
      throw unavailable('persistence_unavailable', 'The learning store is unavailable; nothing was written.')
    }
  }
}

// ---- runs ----

const p = (name: string) => sql.placeholder(name)

/** Intake is the hot path: its statements are prepared once per database (Drizzle's builder is slow). */
function prepareRunStatements(db: Db) {
  return {
    insert: db
      .insert(runs)
      .values({
        runId: p('runId'),
        tenantRef: p('tenantRef'),
        traceId: p('traceId'),
        correlationId: p('correlationId'),
        outcome: p('outcome'),
        guardrailDecision: p('guardrailDecision'),
        familyVersionSet: p('familyVersionSet'),
        state: p('state'),
        signalEmitted: p('signalEmitted'),
        sampledIn: p('sampledIn'),
        priorityScore: p('priorityScore'),
        runHash: p('runHash'),
        provenanceHash: p('provenanceHash'),
        serviceMode: p('serviceMode'),
        recordedAt: p('recordedAt'),
      })
      .prepare(),
    byTrace: db
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
  }
}

const runStatements = new WeakMap<Db, ReturnType<typeof prepareRunStatements>>()

/** Prepared statements of the intake path; they run on the one connection, inside any open transaction. */
export function intakeStatements(db: Db) {
  let statements = runStatements.get(db)
  if (!statements) {
    statements = prepareRunStatements(db)
    runStatements.set(db, statements)
  }
  return statements
}

export const insertRun = (q: Q, row: NewRun): void => void q.insert(runs).values(row).run()

export const findRun = (q: Q, runId: string): RunRow | undefined =>
  q.select().from(runs).where(eq(runs.runId, runId)).get()

export const findRunByTrace = (q: Q, traceId: string): RunRow | undefined =>
  q.select().from(runs).where(eq(runs.traceId, traceId)).get()

/** A run with this correlation id under another tenant, if any. */
export const findCorrelationElsewhere = (q: Q, correlationId: string, tenantRef: string) =>
  q
    .select({ runId: runs.runId, tenantRef: runs.tenantRef })
    .from(runs)
    .where(and(eq(runs.correlationId, correlationId), ne(runs.tenantRef, tenantRef)))
    .limit(1)
    .get()

export const markRunProposed = (q: Q, runId: string): void =>
  void q.update(runs).set({ state: 'proposed' }).where(eq(runs.runId, runId)).run()

// ---- replays ----

export const insertReplay = (q: Q, row: NewReplay): void => void q.insert(replays).values(row).run()

export const countReplaysSince = (q: Q, since: string): number =>
  q.select({ n: count() }).from(replays).where(gte(replays.evaluatedAt, since)).get()?.n ?? 0

/** The oldest replay inside the window: when the next budget slot frees up. */
export const oldestReplaySince = (q: Q, since: string): string | undefined =>
  q
    .select({ at: replays.evaluatedAt })
    .from(replays)
    .where(gte(replays.evaluatedAt, since))
    .orderBy(asc(replays.evaluatedAt))
    .limit(1)
    .get()?.at

// ---- proposals ----

export const insertProposal = (q: Q, row: NewProposal): void => void q.insert(proposals).values(row).run()

export const findProposal = (q: Q, proposalId: string): ProposalRow | undefined =>
  q.select().from(proposals).where(eq(proposals.proposalId, proposalId)).get()

export const updateProposal = (q: Q, proposalId: string, set: Partial<NewProposal>): void =>
  void q.update(proposals).set(set).where(eq(proposals.proposalId, proposalId)).run()

/** Another proposal currently activated on the same target. */
export const findActiveOnTarget = (q: Q, targetType: string, targetId: string, exceptId: string) =>
  q
    .select({ proposalId: proposals.proposalId })
    .from(proposals)
    .where(
      and(
        eq(proposals.targetType, targetType),
        eq(proposals.targetId, targetId),
        eq(proposals.state, 'activated'),
        ne(proposals.proposalId, exceptId),
      ),
    )
    .limit(1)
    .get()

export const countProposalsByState = (q: Q): Partial<Record<ProposalState, number>> => {
  const rows = q.select({ state: proposals.state, n: count() }).from(proposals).groupBy(proposals.state).all()
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

export const countRunsByState = (q: Q): Partial<Record<RunState, number>> => {
  const rows = q.select({ state: runs.state, n: count() }).from(runs).groupBy(runs.state).all()
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

// ---- transitions and runtime targets ----

export const insertTransition = (q: Q, row: NewTransition): void =>
  void q.insert(transitions).values(row).run()

export const countActivationsSince = (q: Q, since: string): number =>
  q
    .select({ n: count() })
    .from(transitions)
    .where(and(eq(transitions.toState, 'activated'), gte(transitions.at, since)))
    .get()?.n ?? 0

/** Runtime changes of a target (activations and rollbacks) since a moment, oldest first. */
export const targetChangesSince = (q: Q, targetType: string, targetId: string, since: string) =>
  q
    .select({ before: transitions.stateKeyBefore, after: transitions.stateKeyAfter })
    .from(transitions)
    .where(
      and(
        eq(transitions.targetType, targetType),
        eq(transitions.targetId, targetId),
        gte(transitions.at, since),
        sql`${transitions.stateKeyAfter} IS NOT NULL`,
      ),
    )
    .orderBy(asc(transitions.id))
    .all()

export const findRuntimeTarget = (q: Q, targetType: string, targetId: string) =>
  q
    .select()
    .from(runtimeTargets)
    .where(and(eq(runtimeTargets.targetType, targetType), eq(runtimeTargets.targetId, targetId)))
    .get()

export function saveRuntimeTarget(q: Q, state: RuntimeState, at: string): void {
  const values = {
    activeProposalId: state.active_proposal_id,
    candidateHash: state.candidate_hash,
    decision: state.decision ?? null,
    updatedAt: at,
  }
  q.insert(runtimeTargets)
    .values({ targetType: state.target_type, targetId: state.target_id, ...values })
    .onConflictDoUpdate({ target: [runtimeTargets.targetType, runtimeTargets.targetId], set: values })
    .run()
}

// ---- idempotency ----

export const findIdempotent = (
  q: Q,
  operation: 'activate' | 'rollback',
  key: string,
): IdempotencyRow | undefined =>
  q
    .select()
    .from(idempotency)
    .where(and(eq(idempotency.operation, operation), eq(idempotency.idempotencyKey, key)))
    .get()

export const saveIdempotent = (q: Q, row: typeof idempotency.$inferInsert): void =>
  void q.insert(idempotency).values(row).run()

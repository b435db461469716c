import { and, asc, count, eq, gte, min, ne, sql } from 'drizzle-orm'
import { StorageGuard, SyncGroupCommit } from '../../db/guard.ts'
import { columnPlaceholders, perHandle } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import type { Sql, Storage } from '../../db/storage.ts'
import type { RuntimeState } from './rules/promotion.ts'
import type { ProposalState, RunState } from './rules/states.ts'
import { idempotencyKeys, proposals, replays, runs, runtimeTargets, transitions } from './tables.ts'

/**
 * Store functions read through `storage.db` (committed data) or run inside a write transaction
 * on its `tx`; both are the query builder of `db/storage.ts`, on either driver.
 */
export type Q = Sql
/** The handle inside a write transaction. */
export type Tx = Sql

export type RunRow = typeof runs.$inferSelect
export type NewRun = typeof runs.$inferInsert
export type ReplayRow = typeof replays.$inferSelect
export type NewReplay = typeof replays.$inferInsert
export type ProposalRow = typeof proposals.$inferSelect
export type NewProposal = typeof proposals.$inferInsert
export type NewTransition = typeof transitions.$inferInsert

/** What a signals intake found stored for its trace. */
export interface IntakeFound {
  /** The run already recorded for this trace_id. */
  existing: RunRow | undefined
  /** Whether a run with this correlation_id is recorded under another tenant_ref. */
  correlationElsewhere: boolean
}

/** The intake's keys, looked up in its transaction. */
export type IntakeKeys = {
  traceId: string
  correlationId: string
  tenantRef: string
}

/**
 * Judge an intake against what is stored: throw a refusal (AppError, before anything is written),
 * or name the run to insert (if any) and the answer. Synchronous: it runs inside the group commit.
 */
export type IntakeStep<T> = (found: IntakeFound) => { insert?: NewRun; answer: T }

/**
 * The unit's persistence: the shared guard (db/guard.ts) on `ctx.storage`. Any storage failure is
 * a 503 `persistence_unavailable` and is remembered for readiness.
 */
export class Persistence extends StorageGuard {
  private readonly intakes: SyncGroupCommit<IntakeStatements> | undefined

  constructor(storage: Storage, onFailure: (err: unknown) => void) {
    super(storage, {
      onFailure,
      code: 'persistence_unavailable',
      message: 'The learning store is unavailable; nothing was written.',
    })
    const e = storage.embedded
    if (e) {
      this.intakes = new SyncGroupCommit((run) =>
        this.writeWith(() => e.write(() => run(intakeStatements(e.writerDb)))),
      )
    }
  }

  /**
   * Record a signals intake, committed before the promise settles. On the embedded driver the
   * hot path: a group commit (db/guard.ts) of the intakes queued in one event-loop turn, in one
   * IMMEDIATE transaction on the writer, through prepared statements (a refusal settles only its
   * own caller; a storage failure fails the whole group with 503). On a server: one transaction
   * each.
   */
  recordIntake<T>(keys: IntakeKeys, step: IntakeStep<T>): Promise<T> {
    if (this.intakes) {
      return this.intakes.add((s) => {
        const { insert, answer } = step({
          existing: s.runByTrace.get(keys),
          correlationElsewhere: s.correlationElsewhere.get(keys) !== undefined,
        })
        if (insert) s.insertRun.run(insert)
        return answer
      })
    }
    return this.write(async (tx) => {
      const found: IntakeFound = {
        existing: await tx.select().from(runs).where(eq(runs.traceId, keys.traceId)).get(),
        correlationElsewhere: (await correlationElsewhere(tx, keys).get()) !== undefined,
      }
      const { insert, answer } = step(found)
      if (insert) await tx.insert(runs).values(insert)
      return answer
    })
  }
}

// ---- the intake hot path: prepared once per embedded writer ----

const p = (name: string) => sql.placeholder(name)

/** A run with this correlation id under another tenant (the libSQL branch of the intake). */
const correlationElsewhere = (tx: Sql, keys: IntakeKeys) =>
  tx
    .select({ runId: runs.runId })
    .from(runs)
    .where(and(eq(runs.correlationId, keys.correlationId), ne(runs.tenantRef, keys.tenantRef)))
    .limit(1)

function prepareIntake(db: Db) {
  return {
    insertRun: db.insert(runs).values(columnPlaceholders(runs)).prepare(),
    runByTrace: db
      .select()
      .from(runs)
      .where(eq(runs.traceId, p('traceId')))
      .prepare(),
    correlationElsewhere: db
      .select({ runId: runs.runId })
      .from(runs)
      .where(and(eq(runs.correlationId, p('correlationId')), ne(runs.tenantRef, p('tenantRef'))))
      .limit(1)
      .prepare(),
  }
}

type IntakeStatements = ReturnType<typeof prepareIntake>
const intakeStatements = perHandle(prepareIntake)

// ---- runs ----

export const findRun = (q: Q, runId: string): Promise<RunRow | undefined> =>
  q.select().from(runs).where(eq(runs.runId, runId)).get()

export async function markRunProposed(tx: Tx, runId: string): Promise<void> {
  await tx.update(runs).set({ state: 'proposed' }).where(eq(runs.runId, runId))
}

export async function countRunsByState(q: Q): Promise<Partial<Record<RunState, number>>> {
  const rows = await q.select({ state: runs.state, n: count() }).from(runs).groupBy(runs.state)
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

// ---- replays ----

export async function insertReplay(tx: Tx, row: NewReplay): Promise<void> {
  await tx.insert(replays).values(row)
}

/** Replays inside the window, and the oldest of them (when the next budget slot frees up). */
export async function replaysSince(q: Q, since: string): Promise<{ count: number; oldest: string | null }> {
  const r = await q
    .select({ n: count(), oldest: min(replays.evaluatedAt) })
    .from(replays)
    .where(gte(replays.evaluatedAt, since))
    .get()
  return { count: r?.n ?? 0, oldest: r?.oldest ?? null }
}

// ---- proposals ----

export async function insertProposal(tx: Tx, row: ProposalRow): Promise<void> {
  await tx.insert(proposals).values(row)
}

export const findProposal = (q: Q, proposalId: string): Promise<ProposalRow | undefined> =>
  q.select().from(proposals).where(eq(proposals.proposalId, proposalId)).get()

/** Write some of a proposal's mutable fields. */
export async function updateProposal(
  tx: Tx,
  proposalId: string,
  set: Partial<Omit<NewProposal, 'proposalId'>>,
): Promise<void> {
  await tx.update(proposals).set(set).where(eq(proposals.proposalId, proposalId))
}

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

export async function countProposalsByState(q: Q): Promise<Partial<Record<ProposalState, number>>> {
  const rows = await q.select({ state: proposals.state, n: count() }).from(proposals).groupBy(proposals.state)
  return Object.fromEntries(rows.map((r) => [r.state, r.n]))
}

// ---- transitions and runtime targets ----

export async function insertTransition(tx: Tx, row: NewTransition): Promise<void> {
  await tx.insert(transitions).values({ fromState: null, stateKeyBefore: null, stateKeyAfter: null, ...row })
}

export async function countActivationsSince(q: Q, since: string): Promise<number> {
  const r = await q
    .select({ n: count() })
    .from(transitions)
    .where(and(eq(transitions.toState, 'activated'), gte(transitions.at, since)))
    .get()
  return r?.n ?? 0
}

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

export const findRuntimeTarget = (q: Q, targetType: string, targetId: string) =>
  q
    .select()
    .from(runtimeTargets)
    .where(and(eq(runtimeTargets.targetType, targetType), eq(runtimeTargets.targetId, targetId)))
    .get()

export async function saveRuntimeTarget(tx: Tx, state: RuntimeState, at: string): Promise<void> {
  const values = {
    activeProposalId: state.active_proposal_id,
    candidateHash: state.candidate_hash,
    decision: state.decision ?? null,
    updatedAt: at,
  }
  await tx
    .insert(runtimeTargets)
    .values({ targetType: state.target_type, targetId: state.target_id, ...values })
    .onConflictDoUpdate({ target: [runtimeTargets.targetType, runtimeTargets.targetId], set: values })
}

// ---- idempotency ----

/** The stored answer body for an activate or rollback key, if it has one. */
export async function storedAnswer(q: Q, scope: string, key: string): Promise<Uint8Array | undefined> {
  const row = await q
    .select({ body: idempotencyKeys.body })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
    .get()
  return row?.body ? new Uint8Array(row.body) : undefined
}

/**
 * The outbox: messages a unit must deliver to a peer, written in the same transaction as the
 * change they announce, delivered in the background through `callPeer` with a timeout. A message
 * leaves `pending` only on a 2xx (`delivered`) or after `maxAttempts` failures (`dead`, kept and
 * listed). Failures wait `backoffDelayMs` before the next attempt. Delivery claims rows with one
 * UPDATE … RETURNING, so two processes on one database never send the same row at once.
 * Adopt the `outboxMessages` table by re-exporting it from the unit's `tables.ts`.
 *
 *   enqueue(tx, { target: 'event-sink', payload: JSON.stringify(event) })     // in the write transaction
 *   const outbox = createOutbox({ db, log, registry, targets: { 'event-sink': { url, timeoutMs } } })
 *   return { routes: routes.use(outboxRoutes(db, { path: '/api/v1/outbox' })), background: [outbox] }
 */
import { and, asc, count, desc, eq, inArray, isNull, lte, min, or, type SQL, sql } from 'drizzle-orm'
import { Elysia, t } from 'elysia'
import { type Backoff, backoffDelayMs } from '../common/backoff.ts'
import type { Logger } from '../common/logger.ts'
import { Counter, Gauge, type Registry } from '../common/metrics.ts'
import { callPeer, type PeerFailure } from '../common/peer.ts'
import { createPoller, type Poller, type PollerLease } from '../common/poller.ts'
import { newId } from '../common/time.ts'
import { newHolderId } from './lease.ts'
import { perHandle } from './prepared.ts'
import type { Db } from './sqlite.ts'
import { asSql, isStorage, type Sql, type Storage, syncValue } from './storage.ts'
import { outboxMessages } from './tables.ts'

export { outboxMessages }

export type OutboxMessage = typeof outboxMessages.$inferSelect
export type OutboxState = OutboxMessage['state']
export const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'delivered', 'dead']

export interface NewMessage {
  target: string
  /** The exact body to send (usually JSON text). */
  payload: string
  /** Defaults to a new id; give one to make enqueueing idempotent (an existing id is kept). */
  id?: string
  headers?: Record<string, string>
  /** ISO time; defaults to now. */
  at?: string
}

/** The database or a transaction on it: `enqueue` joins the caller's write transaction. */
export type DbWriter = Db | Parameters<Parameters<Db['transaction']>[0]>[0]

/** Where the outbox lives: the pre-storage handle (`ctx.db`) or the unit's storage (either driver). */
export type OutboxDb = Db | Storage

/** The reads of either: committed data. */
const readerOf = (d: OutboxDb): Sql => (isStorage(d) ? d.db : asSql(d))
/** One write statement on either, in its own transaction on storage. */
const writeOn = <T>(d: OutboxDb, q: (db: Sql) => Promise<T>): Promise<T> =>
  isStorage(d) ? d.transaction(q) : Promise.resolve(syncValue(q(asSql(d))))

function enqueueQuery(db: Sql, m: NewMessage) {
  const id = m.id ?? newId()
  const at = m.at ?? new Date().toISOString()
  const query = db
    .insert(outboxMessages)
    .values({
      id,
      target: m.target,
      payload: m.payload,
      headers: m.headers ?? {},
      state: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
    })
    .onConflictDoNothing()
  return { id, query }
}

/**
 * Add a message (synchronous, so it can run inside the unit's write transaction). Returns its id.
 */
export function enqueue(db: DbWriter, m: NewMessage): string {
  const { id, query } = enqueueQuery(asSql(db as Db), m)
  syncValue(query.run())
  return id
}

/** Add a message inside a storage transaction (`ctx.storage.transaction(async (tx) => …)`). */
export async function enqueueIn(tx: Sql, m: NewMessage): Promise<string> {
  const { id, query } = enqueueQuery(tx, m)
  await query.run()
  return id
}

type ClaimOptions = {
  holder: string
  now: number
  claimMs: number
  limit: number
  targets?: readonly string[]
}

function claimQuery(db: Sql, o: ClaimOptions) {
  const at = new Date(o.now).toISOString()
  const due = db
    .select({ id: outboxMessages.id })
    .from(outboxMessages)
    .where(
      and(
        eq(outboxMessages.state, 'pending'),
        lte(outboxMessages.nextAttemptAt, at),
        or(isNull(outboxMessages.claimedUntil), lte(outboxMessages.claimedUntil, at)),
        o.targets ? inArray(outboxMessages.target, [...o.targets]) : undefined,
      ),
    )
    .orderBy(asc(outboxMessages.nextAttemptAt))
    .limit(o.limit)
  return db
    .update(outboxMessages)
    .set({ claimedUntil: new Date(o.now + o.claimMs).toISOString(), claimedBy: o.holder })
    .where(
      and(
        inArray(outboxMessages.id, due),
        or(isNull(outboxMessages.claimedUntil), lte(outboxMessages.claimedUntil, at)),
      ),
    )
    .returning()
    .all()
}

const byDue = (rows: OutboxMessage[]) =>
  rows.sort((a, b) => (a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : 0))

/**
 * Claim up to `limit` due pending rows for `holder` until `now + claimMs`: one statement, so a
 * row claimed by one process is skipped by every other until delivered, failed or expired.
 */
export function claimDue(db: Db, o: ClaimOptions): OutboxMessage[] {
  return byDue(syncValue(claimQuery(asSql(db), o)))
}

/** `claimDue` on either: one UPDATE … RETURNING in one write transaction. */
export async function claimDueOn(d: OutboxDb, o: ClaimOptions): Promise<OutboxMessage[]> {
  return byDue(await writeOn(d, (db) => claimQuery(db, o)))
}

const deliveredQuery = (db: Sql, id: string, holder: string, status: number, at: string) =>
  db
    .update(outboxMessages)
    .set({
      state: 'delivered',
      attempts: sql`${outboxMessages.attempts} + 1`,
      lastStatus: status,
      lastError: null,
      deliveredAt: at,
      claimedUntil: null,
      claimedBy: null,
    })
    .where(and(eq(outboxMessages.id, id), eq(outboxMessages.claimedBy, holder)))
    .run()

export function markDelivered(db: Db, id: string, holder: string, status: number, at: string): void {
  syncValue(deliveredQuery(asSql(db), id, holder, status, at))
}

type Failure = { status: number | null; error: string; nextAttemptAt: string; dead: boolean }

const failedQuery = (db: Sql, id: string, holder: string, f: Failure) =>
  db
    .update(outboxMessages)
    .set({
      state: f.dead ? 'dead' : 'pending',
      attempts: sql`${outboxMessages.attempts} + 1`,
      lastStatus: f.status,
      lastError: f.error,
      nextAttemptAt: f.nextAttemptAt,
      claimedUntil: null,
      claimedBy: null,
    })
    .where(and(eq(outboxMessages.id, id), eq(outboxMessages.claimedBy, holder)))
    .run()

/** Count the failed attempt; the row is retried at `nextAttemptAt`, or is dead when `dead`. */
export function markFailed(db: Db, id: string, holder: string, f: Failure): void {
  syncValue(failedQuery(asSql(db), id, holder, f))
}

/** Put a dead message back in line (an operator's retry). */
export async function retryDead(d: OutboxDb, id: string, at = new Date().toISOString()): Promise<boolean> {
  const rows = await writeOn(d, (db) =>
    db
      .update(outboxMessages)
      .set({ state: 'pending', attempts: 0, nextAttemptAt: at })
      .where(and(eq(outboxMessages.id, id), eq(outboxMessages.state, 'dead')))
      .returning({ id: outboxMessages.id })
      .all(),
  )
  return rows.length === 1
}

export interface OutboxSummary {
  pending: number
  delivered: number
  dead: number
  oldestPendingAt: string | null
  /** The error of the pending row that failed last. */
  lastError: string | null
}

/**
 * The summary's two reads, built and prepared once per reader handle: liveness routes read it on
 * every probe, and building the queries cost ~140 µs a call (db/prepared.ts).
 */
const summaryStatements = perHandle((db: Sql) => {
  const target = sql.placeholder('target')
  const byState = (where: SQL | undefined) =>
    db
      .select({ state: outboxMessages.state, n: count(), oldest: min(outboxMessages.createdAt) })
      .from(outboxMessages)
      .where(where)
      .groupBy(outboxMessages.state)
      .prepare()
  const lastError = (where: SQL | undefined) =>
    db
      .select({ e: outboxMessages.lastError })
      .from(outboxMessages)
      .where(and(where, eq(outboxMessages.state, 'pending')))
      .orderBy(desc(outboxMessages.nextAttemptAt))
      .limit(1)
      .prepare()
  return {
    all: { byState: byState(undefined), last: lastError(undefined) },
    target: {
      byState: byState(eq(outboxMessages.target, target)),
      last: lastError(eq(outboxMessages.target, target)),
    },
  }
})

export async function outboxSummary(d: OutboxDb, target?: string): Promise<OutboxSummary> {
  const statements = summaryStatements(readerOf(d))
  const q = target === undefined ? statements.all : statements.target
  const values = { target }
  const byState = await q.byState.all(values)
  const n = (s: OutboxState) => byState.find((r) => r.state === s)?.n ?? 0
  const last = await q.last.get(values)
  return {
    pending: n('pending'),
    delivered: n('delivered'),
    dead: n('dead'),
    oldestPendingAt: byState.find((r) => r.state === 'pending')?.oldest ?? null,
    lastError: last?.e ?? null,
  }
}

export async function listOutbox(
  d: OutboxDb,
  q: { state?: OutboxState; target?: string; limit: number },
): Promise<OutboxMessage[]> {
  return readerOf(d)
    .select()
    .from(outboxMessages)
    .where(
      and(
        q.state ? eq(outboxMessages.state, q.state) : undefined,
        q.target ? eq(outboxMessages.target, q.target) : undefined,
      ),
    )
    .orderBy(desc(outboxMessages.createdAt))
    .limit(q.limit)
    .all()
}

export interface OutboxTarget {
  /** Absolute URL; undefined leaves the target's messages pending (not configured). */
  url: string | undefined
  timeoutMs: number
  /** Headers computed at each attempt (signatures, credentials), over the stored ones. */
  headers?(m: OutboxMessage): Record<string, string>
}

export interface OutboxOptions {
  /** The background task's name; default `outbox`. */
  name?: string
  /** `ctx.db` (embedded, pre-storage) or `ctx.storage` (either driver). */
  db: OutboxDb
  log: Logger
  registry: Registry
  targets: Record<string, OutboxTarget>
  /** Poll interval of the background loop; default 5 s. */
  pollMs?: number
  /** Rows per pass; default 50. */
  batch?: number
  /** Failed attempts after which a message is dead; default 25. */
  maxAttempts?: number
  /** Retry delays; default from 1 s doubling to 10 min, 20 % jitter. */
  backoff?: Backoff
  /** How long a claim holds a row against other processes; default 2 × the longest timeout + 30 s. */
  claimMs?: number
  lease?: PollerLease
  /**
   * Called after each attempt (for a unit's own counters or records); a returned promise is
   * awaited before the pass goes on, so a pass ends with its attempts recorded. Must not throw.
   */
  onAttempt?(m: OutboxMessage, result: 'delivered' | 'failed' | 'dead'): void | Promise<void>
  now?(): number
}

export interface Outbox extends Poller {
  /** One delivery pass now; resolves with the number delivered. */
  deliverDue(): Promise<number>
}

export const OUTBOX_DEFAULTS = {
  pollMs: 5000,
  batch: 50,
  maxAttempts: 25,
  backoff: { baseMs: 1000, maxMs: 10 * 60_000, jitter: 0.2 } satisfies Backoff,
}

/** The delivery worker: a poller over `deliverDue`, with `svc_outbox_*` metrics. */
export function createOutbox(o: OutboxOptions): Outbox {
  const now = o.now ?? Date.now
  const holder = newHolderId()
  const maxAttempts = o.maxAttempts ?? OUTBOX_DEFAULTS.maxAttempts
  const backoff = o.backoff ?? OUTBOX_DEFAULTS.backoff
  const longest = Math.max(0, ...Object.values(o.targets).map((tg) => tg.timeoutMs))
  const claimMs = o.claimMs ?? 2 * longest + 30_000
  const targets = Object.keys(o.targets)
  const attempts = new Counter({
    name: 'svc_outbox_delivery_attempts_total',
    help: 'Outbox delivery attempts, by target and result (delivered, failed, dead).',
    labelNames: ['target', 'result'] as const,
    registers: [o.registry],
  })
  new Gauge({
    name: 'svc_outbox_messages',
    help: 'Outbox messages, by target and state (pending, delivered, dead).',
    labelNames: ['target', 'state'] as const,
    registers: [o.registry],
    async collect() {
      const summaries = await Promise.all(targets.map((target) => outboxSummary(o.db, target)))
      this.reset()
      summaries.forEach((s, i) => {
        for (const state of OUTBOX_STATES) this.set({ target: targets[i] ?? '', state }, s[state])
      })
    },
  })

  async function deliver(m: OutboxMessage, target: OutboxTarget): Promise<boolean> {
    const answer = await callPeer({
      url: target.url,
      method: 'POST',
      body: m.payload,
      headers: { 'content-type': 'application/json; charset=utf-8', ...m.headers, ...target.headers?.(m) },
      timeoutMs: target.timeoutMs,
    })
    const at = now()
    if (answer.ok) {
      await writeOn(o.db, (db) => deliveredQuery(db, m.id, holder, answer.status, new Date(at).toISOString()))
      attempts.inc({ target: m.target, result: 'delivered' })
      await o.onAttempt?.(m, 'delivered')
      return true
    }
    const dead = m.attempts + 1 >= maxAttempts
    const delay = backoffDelayMs(m.attempts + 1, backoff)
    const failure = {
      status: answer.status ?? null,
      error: failureText(answer.reason, answer.message),
      nextAttemptAt: new Date(at + delay).toISOString(),
      dead,
    }
    await writeOn(o.db, (db) => failedQuery(db, m.id, holder, failure))
    const result = dead ? 'dead' : 'failed'
    attempts.inc({ target: m.target, result })
    await o.onAttempt?.(m, result)
    o.log[dead ? 'error' : 'warn'](
      {
        outbox_id: m.id,
        target: m.target,
        reason: answer.reason,
        status: answer.status,
        attempts: m.attempts + 1,
        ...(dead ? {} : { retry_in_ms: delay }),
      },
      dead ? 'outbox message dead after its last attempt' : 'outbox delivery failed',
    )
    return false
  }

  async function deliverDue(): Promise<number> {
    const configured = targets.filter((name) => o.targets[name]?.url)
    if (configured.length === 0) return 0
    const rows = await claimDueOn(o.db, {
      holder,
      now: now(),
      claimMs,
      limit: o.batch ?? OUTBOX_DEFAULTS.batch,
      targets: configured,
    })
    let delivered = 0
    for (const m of rows) if (await deliver(m, o.targets[m.target]!)) delivered++
    return delivered
  }

  let lastDelivered = 0
  const poller = createPoller({
    name: o.name ?? 'outbox',
    intervalMs: o.pollMs ?? OUTBOX_DEFAULTS.pollMs,
    lease: o.lease,
    log: o.log,
    run: async () => {
      lastDelivered = await deliverDue()
    },
  })
  return {
    ...poller,
    deliverDue: async () => {
      await poller.runOnce()
      return lastDelivered
    },
  }
}

const failureText = (reason: PeerFailure, message: string) => `${reason}: ${message}`

const OutboxStateSchema = t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('dead')])

const MessageView = t.Object({
  id: t.String(),
  target: t.String(),
  state: OutboxStateSchema,
  attempts: t.Integer(),
  next_attempt_at: t.String(),
  last_error: t.Union([t.String(), t.Null()]),
  last_status: t.Union([t.Integer(), t.Null()]),
  created_at: t.String(),
  delivered_at: t.Union([t.String(), t.Null()]),
})

export const OUTBOX_LIST_MAX = 500

/**
 * GET `path`?state=pending|dead|delivered&target=&limit=: the messages, newest first, with their
 * last error (never the payload or headers, which may carry personal data or credentials).
 * Mount it behind the unit's own access guard.
 */
export function outboxRoutes(db: OutboxDb, o: { path: string; detail?: Record<string, unknown> }) {
  return new Elysia({ name: `outbox-routes:${o.path}` }).get(
    o.path,
    async ({ query }) => {
      const rows = await listOutbox(db, {
        state: query.state,
        target: query.target,
        limit: query.limit ?? 100,
      })
      return {
        items: rows.map((m) => ({
          id: m.id,
          target: m.target,
          state: m.state,
          attempts: m.attempts,
          next_attempt_at: m.nextAttemptAt,
          last_error: m.lastError,
          last_status: m.lastStatus,
          created_at: m.createdAt,
          delivered_at: m.deliveredAt,
        })),
        summary: await outboxSummary(db, query.target).then((s) => ({
          pending: s.pending,
          delivered: s.delivered,
          dead: s.dead,
          oldest_pending_at: s.oldestPendingAt,
          last_error: s.lastError,
        })),
      }
    },
    {
      query: t.Object({
        state: t.Optional(OutboxStateSchema),
        target: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: OUTBOX_LIST_MAX })),
      }),
      response: {
        200: t.Object({
          items: t.Array(MessageView),
          summary: t.Object({
            pending: t.Integer(),
            delivered: t.Integer(),
            dead: t.Integer(),
            oldest_pending_at: t.Union([t.String(), t.Null()]),
            last_error: t.Union([t.String(), t.Null()]),
          }),
        }),
      },
      detail: { summary: 'Outbox messages by state (pending, dead, delivered)', ...o.detail },
    },
  )
}

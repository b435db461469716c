/**
 * Idempotency store: (scope, key) plus a fingerprint of the request → the first stored answer.
 *
 * - Same key, same fingerprint: the stored answer again, byte for byte (`Idempotent-Replayed: true`
 *   through `replayable`).
 * - Same key, another fingerprint: 409 `idempotency_conflict` (the envelope, through AppError).
 * - Concurrent requests with one key: the first claims the key (a row with no answer yet, locked
 *   until `lockedUntil`), the others wait for its answer, so the effect happens exactly once, even
 *   across processes on one SQLite file. A claim whose process died is taken over once it expires.
 * - Answers that should not be remembered (by default anything but 2xx) release the claim, so the
 *   client may retry the same key.
 *
 * A unit adopts it by re-exporting `idempotencyKeys` from its `tables.ts` and generating a migration
 * (`npx bun db/generate.ts <unit>`). Two ways to use it:
 *
 *   replayable(db, { scope, key, request }, async () => ({ status: 201, body }))  // in a route handler
 *   idempotencyStatements(db).lookup(...) / .save(...)  // inside a synchronous write transaction
 */
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { type AppError, conflict } from '../common/errors.ts'
import { canonicalHash } from '../common/hash.ts'
import type { Db } from './sqlite.ts'
import { asSql, isStorage, type Sql, type Storage, syncValue } from './storage.ts'
import { idempotencyKeys } from './tables.ts'

export { idempotencyKeys }

export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

export interface IdempotencyRequest {
  scope: string
  key: string
  /** `requestFingerprint(request)`: SHA-256 hex of the canonical JSON of what was asked. */
  fingerprint: string
}

export type Lookup =
  | { state: 'new' }
  | { state: 'replay'; response: StoredResponse }
  | { state: 'conflict'; response: StoredResponse }
  | { state: 'in_flight'; lockedUntil: string }

export const REPLAYED_HEADER = 'Idempotent-Replayed'

/** SHA-256 hex of the canonical JSON (RFC 8785) of a request: body, and whatever else identifies it. */
export const requestFingerprint = (request: unknown): string => canonicalHash(request)

export function idempotencyConflict(scope: string): AppError {
  return conflict('idempotency_conflict', 'This idempotency key was already used with another request.', {
    scope,
  })
}

type Row = typeof idempotencyKeys.$inferSelect

function classify(row: Row | undefined, fingerprint: string): Lookup {
  if (!row) return { state: 'new' }
  if (row.status === null || row.body === null)
    return { state: 'in_flight', lockedUntil: row.lockedUntil ?? '' }
  const response = { status: row.status, headers: row.headers, body: new Uint8Array(row.body) }
  if (row.fingerprint !== null && row.fingerprint !== fingerprint) return { state: 'conflict', response }
  return { state: 'replay', response }
}

const p = (name: string) => sql.placeholder(name)

/** What a later answer replaces in a claimed row (the key and its first time stay). */
const upsertSet = {
  fingerprint: sql`excluded.fingerprint`,
  status: sql`excluded.status`,
  headers: sql`excluded.headers`,
  body: sql`excluded.body`,
  lockedUntil: sql`excluded.locked_until`,
  completedAt: sql`excluded.completed_at`,
}

function prepare(db: Db) {
  const byKey = and(eq(idempotencyKeys.scope, p('scope')), eq(idempotencyKeys.key, p('key')))
  return {
    find: db.select().from(idempotencyKeys).where(byKey).prepare(),
    upsert: db
      .insert(idempotencyKeys)
      .values({
        scope: p('scope'),
        key: p('key'),
        fingerprint: p('fingerprint'),
        status: p('status'),
        headers: p('headers'),
        body: p('body'),
        lockedUntil: p('lockedUntil'),
        createdAt: p('createdAt'),
        completedAt: p('completedAt'),
      })
      .onConflictDoUpdate({ target: [idempotencyKeys.scope, idempotencyKeys.key], set: upsertSet })
      .prepare(),
    release: db
      .delete(idempotencyKeys)
      .where(and(byKey, isNull(idempotencyKeys.status)))
      .prepare(),
  }
}

export interface IdempotencyStatements {
  /** What the store holds for this key, judged against this request's fingerprint. */
  lookup(req: IdempotencyRequest): Lookup
  /** Remember the answer (replaces a claim). Call inside the transaction that made the effect. */
  save(req: IdempotencyRequest, response: StoredResponse, at: string): void
  /** Take the key for a request now running, until `lockedUntil`. */
  claim(req: IdempotencyRequest, at: string, lockedUntil: string): void
  /** Drop an unanswered claim, so the key may be used again. */
  release(req: Pick<IdempotencyRequest, 'scope' | 'key'>): void
  /** `then(lookup(req))` in one IMMEDIATE transaction (it may claim). */
  lookupAndClaim<T>(req: IdempotencyRequest, then: (found: Lookup) => T): T
}

const statements = new WeakMap<Db, IdempotencyStatements>()

/**
 * Prepared, synchronous access (one per database handle): for use inside a unit's own
 * synchronous write transaction, where the lookup and the effect must commit together.
 */
export function idempotencyStatements(db: Db): IdempotencyStatements {
  let s = statements.get(db)
  if (s) return s
  const q = prepare(db)
  s = {
    lookup: (req) => classify(q.find.get({ scope: req.scope, key: req.key }), req.fingerprint),
    save(req, response, at) {
      q.upsert.run(answerRow(req, response, at))
    },
    claim(req, at, lockedUntil) {
      q.upsert.run({ ...claimRow(req, 0, 0), lockedUntil, createdAt: at })
    },
    lookupAndClaim: (req, then) => db.transaction(() => then(s!.lookup(req)), { behavior: 'immediate' }),
    release: (req) => void q.release.run({ scope: req.scope, key: req.key }),
  }
  statements.set(db, s)
  return s
}

export interface RunOptions {
  /** Which answers are remembered; others release the key. Default: 2xx only. */
  remember?(status: number): boolean
  /** How long a claim holds before another process may take it over. Default 60 s. */
  lockMs?: number
  /** How long a concurrent request waits for the first one's answer. Default 30 s. */
  waitMs?: number
  /** Poll interval while waiting. Default 10 ms. */
  pollMs?: number
  now?(): number
  /**
   * `execute` saves its remembered answer itself, with `saveAnswerIn` in the transaction of its
   * effect (so the effect and the answer commit together): it is not saved a second time.
   */
  savedByExecute?: boolean
}

export interface RunResult {
  replayed: boolean
  response: StoredResponse
}

const DEFAULTS = { lockMs: 60_000, waitMs: 30_000, pollMs: 10 }
const is2xx = (status: number) => status >= 200 && status < 300

/**
 * Run `execute` at most once per (scope, key): the first caller runs it and its answer is stored;
 * later and concurrent callers with the same fingerprint get that answer (`replayed: true`); a
 * caller with another fingerprint gets the 409 `idempotency_conflict` AppError thrown.
 * If `execute` throws, the key is released and the error passes through.
 */
export async function runIdempotent(
  db: Db | Storage,
  req: IdempotencyRequest,
  execute: () => Promise<StoredResponse>,
  options: RunOptions = {},
): Promise<RunResult> {
  const o = { ...DEFAULTS, ...options }
  const now = o.now ?? Date.now
  const remember = o.remember ?? is2xx
  const keys = isStorage(db) ? storageKeys(db) : syncKeys(idempotencyStatements(db))
  const giveUpAt = now() + o.waitMs
  for (;;) {
    const t = now()
    const seen = await keys.claimUnlessAnswered(req, t, o.lockMs)
    if (seen.state === 'replay') return { replayed: true, response: seen.response }
    if (seen.state === 'conflict') throw idempotencyConflict(req.scope)
    if (seen.state === 'claimed') break
    if (now() >= giveUpAt) {
      throw conflict('idempotency_in_progress', 'A request with this idempotency key is still running.', {
        scope: req.scope,
      })
    }
    await Bun.sleep(o.pollMs)
  }
  let response: StoredResponse
  try {
    response = await execute()
  } catch (err) {
    await keys.release(req)
    throw err
  }
  if (!remember(response.status)) await keys.release(req)
  else if (!o.savedByExecute) await keys.save(req, response, new Date(now()).toISOString())
  return { replayed: false, response }
}

type Seen = Exclude<Lookup, { state: 'new' }> | { state: 'claimed' }

/** The steps of `runIdempotent`, on the synchronous handle or on storage. */
interface KeySteps {
  /** In one write transaction: the stored answer, or a claim taken now (new key or expired claim). */
  claimUnlessAnswered(req: IdempotencyRequest, t: number, lockMs: number): Promise<Seen>
  save(req: IdempotencyRequest, response: StoredResponse, at: string): Promise<void>
  release(req: IdempotencyRequest): Promise<void>
}

function decide(found: Lookup, t: number, claim: () => void): Seen {
  const expired = found.state === 'in_flight' && found.lockedUntil <= new Date(t).toISOString()
  if (found.state !== 'new' && !expired) return found as Seen
  claim()
  return { state: 'claimed' }
}

const claimRow = (req: IdempotencyRequest, t: number, lockMs: number) => ({
  ...req,
  status: null,
  headers: {},
  body: null,
  lockedUntil: new Date(t + lockMs).toISOString(),
  createdAt: new Date(t).toISOString(),
  completedAt: null,
})

const answerRow = (req: IdempotencyRequest, response: StoredResponse, at: string) => ({
  ...req,
  status: response.status,
  headers: response.headers,
  body: Buffer.from(response.body),
  lockedUntil: null,
  createdAt: at,
  completedAt: at,
})

function syncKeys(s: IdempotencyStatements): KeySteps {
  return {
    claimUnlessAnswered: async (req, t, lockMs) =>
      s.lookupAndClaim(req, (found) =>
        decide(found, t, () => s.claim(req, new Date(t).toISOString(), new Date(t + lockMs).toISOString())),
      ),
    save: async (req, response, at) => s.save(req, response, at),
    release: async (req) => s.release(req),
  }
}

const upsert = (tx: Sql, row: typeof idempotencyKeys.$inferInsert) =>
  tx
    .insert(idempotencyKeys)
    .values(row)
    .onConflictDoUpdate({ target: [idempotencyKeys.scope, idempotencyKeys.key], set: upsertSet })
    .run()

/**
 * Remember the answer inside the caller's storage transaction, the one that made the effect, so
 * that the effect and its answer commit together (`runIdempotent` saves it again afterwards).
 */
export async function saveAnswerIn(
  tx: Sql,
  req: IdempotencyRequest,
  response: StoredResponse,
  at: string,
): Promise<void> {
  await upsert(tx, answerRow(req, response, at))
}

const byKey = (req: Pick<IdempotencyRequest, 'scope' | 'key'>) =>
  and(eq(idempotencyKeys.scope, req.scope), eq(idempotencyKeys.key, req.key))

/**
 * What the store holds for this key, judged against the request's fingerprint, read inside the
 * caller's storage transaction: with `saveAnswerIn` in the same transaction, the check, the effect
 * and its answer commit together (the storage form of `idempotencyStatements(db).lookup`).
 */
export async function lookupIn(tx: Sql, req: IdempotencyRequest): Promise<Lookup> {
  return classify(await tx.select().from(idempotencyKeys).where(byKey(req)).get(), req.fingerprint)
}

function storageKeys(storage: Storage): KeySteps {
  return {
    claimUnlessAnswered: (req, t, lockMs) =>
      storage.transaction(async (tx) => {
        const found = await lookupIn(tx, req)
        let claimed = false
        const seen = decide(found, t, () => {
          claimed = true
        })
        if (claimed) await upsert(tx, claimRow(req, t, lockMs))
        return seen
      }),
    save: (req, response, at) =>
      storage.transaction(async (tx) => void (await upsert(tx, answerRow(req, response, at)))),
    release: (req) =>
      storage.transaction(
        async (tx) =>
          void (await tx.delete(idempotencyKeys).where(and(byKey(req), isNull(idempotencyKeys.status)))),
      ),
  }
}

/** What a route handler answers through `replayable`: JSON `body` (or raw bytes), status, headers. */
export interface Answer {
  status: number
  body: unknown
  headers?: Record<string, string>
}

const JSON_TYPE = 'application/json; charset=utf-8'

function encode(answer: Answer): StoredResponse {
  if (answer.body instanceof Uint8Array) {
    return { status: answer.status, headers: answer.headers ?? {}, body: answer.body }
  }
  return {
    status: answer.status,
    headers: { 'content-type': JSON_TYPE, ...answer.headers },
    body: new TextEncoder().encode(JSON.stringify(answer.body)),
  }
}

function toResponse(stored: StoredResponse, replayed: boolean): Response {
  const headers = new Headers(stored.headers)
  if (replayed) headers.set(REPLAYED_HEADER, 'true')
  return new Response(stored.body, { status: stored.status, headers })
}

/**
 * The Elysia helper: return this from a handler. Without a key, `execute` simply runs. The
 * fingerprint is taken over `request` (the body, plus whatever else identifies the request).
 *
 *   .post('/things', ({ body, headers }) =>
 *     replayable(db, { scope: 'POST /things', key: headers['idempotency-key'], request: body },
 *       async () => ({ status: 201, body: await createThing(body) })))
 */
export async function replayable(
  db: Db | Storage,
  req: { scope: string; key: string | undefined; request: unknown },
  execute: () => Promise<Answer>,
  options?: RunOptions,
): Promise<Response> {
  if (req.key === undefined || req.key === '') return toResponse(encode(await execute()), false)
  const result = await runIdempotent(
    db,
    { scope: req.scope, key: req.key, fingerprint: requestFingerprint(req.request) },
    async () => encode(await execute()),
    options,
  )
  return toResponse(result.response, result.replayed)
}

/** Delete answered keys older than `before` (ISO time); returns how many went. */
export async function pruneIdempotencyKeys(db: Db | Storage, before: string): Promise<number> {
  const prune = (w: Sql) =>
    w
      .delete(idempotencyKeys)
      .where(
        or(
          lt(idempotencyKeys.completedAt, before),
          and(isNull(idempotencyKeys.completedAt), lt(idempotencyKeys.lockedUntil, before)),
        ),
      )
      .returning({ key: idempotencyKeys.key })
      .all()
  const gone = isStorage(db) ? await db.transaction(prune) : syncValue(prune(asSql(db)))
  return gone.length
}

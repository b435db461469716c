/**
 * The persistence guard (`StorageGuard`): every read and write of a unit goes through `read` or
 * `write`, which turn any storage failure into a 503 envelope (nothing written) and remember it
 * for readiness, so `/ready` degrades instead of erroring and a dead database never crashes a
 * request. Refusals thrown inside a write (AppError) roll the transaction back and pass through
 * unchanged. `SyncGroupCommit` groups synchronous writes on the embedded writer.
 */
import { AppError, unavailable } from '../common/errors.ts'
import type { Sql, Storage } from './storage.ts'

export interface GuardOptions {
  /** Called with every storage failure (log it; never the request's data). */
  onFailure?(err: unknown): void
  /** The 503's error code and message. */
  code?: string
  message?: string
}

/** How one queued write of a group ended: its value, or its own refusal. */
type GroupOutcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/**
 * Group commit of synchronous writes on the embedded writer: `add(fn)` queues a synchronous write and runs it with every other write queued
 * in the same event-loop turn, through `commit`, which runs the whole batch in one transaction;
 * each promise settles only after that transaction committed. A refusal (AppError) settles only
 * its own caller, so `fn` must refuse before it writes anything; anything else `commit` throws
 * fails the whole group. The bodies never await, so they keep prepared statements at full speed
 * (ALS's signals intake). `db/group-commit.ts` is the same idea for async bodies on
 * `storage.transaction`, on either driver (EIS, the mailbox).
 */
export class SyncGroupCommit<S> {
  private group: {
    fn: (s: S) => unknown
    resolve: (value: unknown) => void
    reject: (err: unknown) => void
  }[] = []

  constructor(private readonly commit: (run: (s: S) => GroupOutcome[]) => Promise<GroupOutcome[]>) {}

  add<T>(fn: (s: S) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.group.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      if (this.group.length === 1) setImmediate(() => void this.flush())
    })
  }

  private async flush(): Promise<void> {
    const batch = this.group
    this.group = []
    let outcomes: GroupOutcome[]
    try {
      outcomes = await this.commit((s) =>
        batch.map((item): GroupOutcome => {
          try {
            return { ok: true, value: item.fn(s) }
          } catch (error) {
            if (error instanceof AppError) return { ok: false, error }
            throw error
          }
        }),
      )
    } catch (err) {
      for (const item of batch) item.reject(err)
      return
    }
    outcomes.forEach((outcome, i) => {
      const item = batch[i]
      if (!item) return
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }
}

/** A refusal passes through; anything else is reported and becomes the 503. */
function storageFailure(err: unknown, o: GuardOptions): unknown {
  if (err instanceof AppError) return err
  o.onFailure?.(err)
  return unavailable(
    o.code ?? 'persistence_unavailable',
    o.message ?? 'The store is unavailable; nothing was written.',
  )
}

/**
 * The guard on the storage interface (either driver): the same 503 and readiness, with async
 * callbacks that receive the query builder.
 *
 *   const store = new StorageGuard(ctx.storage, { onFailure: (err) => ctx.log.error({ err: errorFields(err) }, 'store') })
 *   await store.write(async (tx) => { await tx.insert(things).values(row) })   // one transaction
 *   const rows = await store.read((db) => db.select().from(things))
 */
export class StorageGuard {
  private failing = false

  constructor(
    readonly storage: Storage,
    private readonly options: GuardOptions = {},
  ) {}

  /** Whether the database answers and the last write did not fail. */
  async ready(): Promise<boolean> {
    return (await this.storage.ready()) && !this.failing
  }

  read<T>(fn: (db: Sql) => Promise<T>): Promise<T> {
    return this.guard(() => fn(this.storage.db))
  }

  /** One write transaction; a refusal (AppError) thrown inside rolls it back and passes through. */
  write<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.writeWith(() => this.storage.transaction(fn))
  }

  /**
   * Writing work of the unit's own under the same guard (a hot path on `storage.embedded`,
   * `runIdempotent`): a failure is the 503 and degrades readiness, a success clears it as `write` does.
   */
  async writeWith<T>(fn: () => Promise<T>): Promise<T> {
    const result = await this.guard(fn)
    this.failing = false
    return result
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof AppError)) this.failing = true
      throw storageFailure(err, this.options)
    }
  }
}

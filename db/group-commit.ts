/**
 * Group commit on the storage interface (either driver): every write queued in the same
 * event-loop turn runs in one write transaction, and each caller's promise settles only after
 * the commit that holds its rows, so an acknowledged write is never lost (and nothing is
 * acknowledged that a later rollback could undo). One commit per group instead of one per
 * request is what lets a write-per-request route keep up with a bare insert (EIS's webhooks,
 * the mailbox's publish). `SyncGroupCommit` (db/guard.ts) is the same idea for synchronous
 * bodies on the embedded writer (ALS's intake).
 *
 * A work item that throws rolls the whole group back; then every item of the group runs again
 * in a transaction of its own, so one failing request (a refusal, a broken row) settles only its
 * own caller and never takes the others' writes with it.
 *
 *   const group = new GroupCommit((fn) => storage.transaction(fn))
 *   const row = await group.run(async (tx) => { await tx.insert(things).values(v); return v })
 */

import { perHandle } from './prepared.ts'
import type { Sql, Storage } from './storage.ts'

/** Runs `fn` in one write transaction and resolves once it has committed (`storage.transaction`). */
export type Writer = <T>(fn: (tx: Sql) => Promise<T>) => Promise<T>

type Work<T> = (tx: Sql) => Promise<T>

interface Item {
  fn: Work<unknown>
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
}

export class GroupCommit {
  private queue: Item[] = []

  constructor(private readonly write: Writer) {}

  /**
   * Queue `fn` for the next group; its result once committed. `fn` runs inside the group's
   * transaction after the items queued before it, and may see their writes.
   */
  run<T>(fn: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      if (this.queue.length === 1) setImmediate(() => void this.flush())
    })
  }

  private async flush(): Promise<void> {
    const batch = this.queue
    this.queue = []
    if (batch.length === 1) {
      const only = batch[0] as Item
      return this.write(only.fn).then(only.resolve, only.reject)
    }
    let values: unknown[]
    try {
      values = await this.write(async (tx) => {
        const out: unknown[] = []
        for (const item of batch) out.push(await item.fn(tx))
        return out
      })
    } catch {
      // One item (or the database) failed: each item again alone, so each settles on its own.
      for (const item of batch) await this.write(item.fn).then(item.resolve, item.reject)
      return
    }
    for (const [i, item] of batch.entries()) item.resolve(values[i])
  }
}

/** The one group of a storage (all writers of a unit share it, so they share its commits). */
export const groupOf = perHandle((storage: Storage) => new GroupCommit((fn) => storage.transaction(fn)))

/**
 * Group commit for the webhook intake: every delivery queued in the same event-loop turn is
 * written in one IMMEDIATE transaction, and each caller's promise settles only after the commit
 * that holds its rows, so an acknowledged delivery is never lost (and nothing is acknowledged
 * that a later rollback could undo). One commit per group instead of one per request is what
 * makes the intake keep up with a bare insert (docs/units/eis.md, "Throughput").
 *
 * A work item that throws rolls the whole group back; then every item of the group runs again
 * in a transaction of its own, so one failing delivery (a refusal, a broken row) settles only its
 * own caller and never takes the others' writes with it.
 */

import type { Sql } from '../../../db/storage.ts'

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

/** One group per write handle: `key` is the handle the unit writes through. */
export function groupFor<K extends object>(
  groups: WeakMap<K, GroupCommit>,
  key: K,
  write: Writer,
): GroupCommit {
  let group = groups.get(key)
  if (group === undefined) {
    group = new GroupCommit(write)
    groups.set(key, group)
  }
  return group
}

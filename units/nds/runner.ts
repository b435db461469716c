/**
 * A durable work queue drained in process: items live in SQLite (queued → running → terminal);
 * `kick()` after an insert starts a drain, one item at a time, single flight. At start, items
 * a crash left `running` go back to `queued` (the work is idempotent: an unchanged redelivery
 * writes nothing) until they have been attempted `maxAttempts` times, then they are failed.
 * No polling: nothing else inserts work into this unit's database.
 */

import type { BackgroundTask } from '../../common/background.ts'
import type { Logger } from '../../common/logger.ts'
import { errorFields } from '../../common/logger.ts'

export interface Queue<T> {
  recover(): Promise<{ requeued: number; failed: number }>
  claim(): Promise<T | undefined>
  execute(item: T): Promise<void>
  /** Mark an item failed when execute threw, so nothing is left `running`. */
  fail(item: T, message: string): Promise<void>
}

export interface Drainer extends BackgroundTask {
  kick(): void
  /** Resolves when nothing is being drained (tests). */
  idle(): Promise<void>
}

export function createDrainer<T>(name: string, queue: Queue<T>, log: Logger): Drainer {
  let started = false
  let stopping = false
  let current: Promise<void> | undefined
  let again = false

  const drain = async () => {
    do {
      again = false
      for (;;) {
        if (stopping) return
        const item = await queue.claim()
        if (!item) break
        try {
          await queue.execute(item)
        } catch (err) {
          log.error({ queue: name, err: errorFields(err) }, 'work item failed unexpectedly')
          await queue.fail(item, (err as Error).message).catch(() => undefined)
        }
      }
    } while (again && !stopping)
  }

  const kick = () => {
    if (!started || stopping) return
    if (current) {
      again = true
      return
    }
    current = drain().finally(() => {
      current = undefined
    })
  }

  return {
    name,
    start() {
      if (started) return
      started = true
      void queue
        .recover()
        .then((r) => {
          if (r.requeued + r.failed > 0) log.warn({ queue: name, ...r }, 'recovered interrupted work')
          kick()
        })
        .catch((err) => log.error({ queue: name, err: errorFields(err) }, 'recovery failed'))
    },
    kick,
    async idle() {
      while (current) await current
    },
    async stop() {
      stopping = true
      await current
    },
  }
}

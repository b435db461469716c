/**
 * The one background loop of the suite: run `run()` every `intervalMs` (never sooner than
 * `floorMs` after the previous run ended), with jitter, backing off exponentially (bounded by
 * `maxBackoffMs`) while runs throw, one run at a time, and, given a `lease`, only while this
 * process holds it (renewed before each run and while a run lasts). `stop()` waits for the run
 * in flight and releases the lease. Time is injectable for tests (`timer`, `random`).
 *
 *   const poller = createPoller({ name: 'web:outbox', intervalMs: 5000, run: () => deliverDue() })
 *   return { routes, background: [poller] }      // the runtime starts and stops it
 *   await poller.runOnce()                         // run now (joins a run in flight)
 */

import type { BackgroundTask } from './background.ts'
import { type Backoff, backoffDelayMs } from './backoff.ts'
import type { Logger } from './logger.ts'

/** A lease across processes (see `db/lease.ts`): at most one holder runs the poller. */
export interface PollerLease {
  /** Take or renew the lease; true while this process holds it. */
  acquire(): boolean | Promise<boolean>
  release(): void | Promise<void>
  /** How long a renewal holds; the poller renews at a third of it while a run lasts. */
  durationMs: number
}

export interface Timer {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const realTimer: Timer = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms)
    t.unref?.()
    return t
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
}

export interface PollerOptions {
  name: string
  /** The work of one round; a throw counts as a failure and backs off. */
  run(): Promise<unknown>
  intervalMs: number
  /** No run starts sooner than this after the previous one ended; default 100 ms. */
  floorMs?: number
  /** Jitter of the interval, as a fraction drawn uniformly in [0, jitter); default 0.1. */
  jitter?: number
  /** First delay after a failure (doubling per failure); default `intervalMs`. */
  errorBaseMs?: number
  /** Bound of the delay after failures; default ten times the interval. */
  maxBackoffMs?: number
  /** Delay before the first run after start; default 0. */
  initialDelayMs?: number
  lease?: PollerLease
  log?: Logger
  timer?: Timer
  random?: () => number
}

export interface PollerStats {
  runs: number
  failures: number
  /** Consecutive failures now (0 after a success). */
  consecutive_failures: number
  last_run_at: string | null
  last_error: string | null
  running: boolean
  next_run_at: string | null
  holds_lease: boolean | null
}

export interface Poller extends BackgroundTask {
  /** Run now, or join the run in flight; resolves when it ends (never rejects). */
  runOnce(): Promise<void>
  /** Ask for a run soon (after an enqueue), without waiting. */
  kick(): void
  stats(): PollerStats
  /** Whether start() was called and stop() not yet. */
  started(): boolean
  /** Stop scheduling, wait for the run in flight, release the lease. */
  stop(): Promise<void>
}

export const DEFAULT_FLOOR_MS = 100
export const DEFAULT_JITTER = 0.1

export function createPoller(o: PollerOptions): Poller {
  const timer = o.timer ?? realTimer
  const random = o.random ?? Math.random
  const floorMs = o.floorMs ?? DEFAULT_FLOOR_MS
  const intervalMs = Math.max(o.intervalMs, floorMs)
  const backoff: Backoff = {
    baseMs: Math.max(o.errorBaseMs ?? intervalMs, floorMs),
    maxMs: Math.max(o.maxBackoffMs ?? intervalMs * 10, floorMs),
    jitter: o.jitter ?? DEFAULT_JITTER,
  }
  let handle: unknown
  let active = false
  let inFlight: Promise<void> | undefined
  let again = false
  let nextAt: number | null = null
  let lastEndedAt = Number.NEGATIVE_INFINITY
  let holdsLease: boolean | null = o.lease ? false : null
  const s = {
    runs: 0,
    failures: 0,
    consecutive: 0,
    lastRunAt: null as string | null,
    lastError: null as string | null,
  }

  function schedule(delayMs: number) {
    if (!active) return
    if (handle !== undefined) timer.clearTimeout(handle)
    const earliest = lastEndedAt + floorMs - timer.now()
    const ms = Math.max(delayMs, earliest, 0)
    nextAt = timer.now() + ms
    handle = timer.setTimeout(() => {
      handle = undefined
      nextAt = null
      void runOnce()
    }, ms)
  }

  const nextDelay = () =>
    s.consecutive > 0
      ? backoffDelayMs(s.consecutive, backoff, random)
      : Math.round(intervalMs * (1 + backoff.jitter! * random()))

  async function renewWhileRunning(work: Promise<void>) {
    const lease = o.lease
    if (!lease) return work
    let renewal: unknown
    const renew = () => {
      renewal = timer.setTimeout(async () => {
        try {
          holdsLease = await lease.acquire()
        } catch (err) {
          // A lease that cannot be confirmed is not held; the run finishes, the next round retries.
          holdsLease = false
          o.log?.warn({ poller: o.name, err: (err as Error)?.message }, 'background lease renewal failed')
        }
        renew()
      }, lease.durationMs / 3)
    }
    renew()
    try {
      await work
    } finally {
      timer.clearTimeout(renewal)
    }
  }

  async function round(): Promise<void> {
    if (o.lease) {
      holdsLease = await o.lease.acquire()
      if (!holdsLease) return
    }
    s.lastRunAt = new Date(timer.now()).toISOString()
    try {
      await renewWhileRunning(o.run().then(() => undefined))
      s.consecutive = 0
      s.lastError = null
    } catch (err) {
      s.failures++
      s.consecutive++
      s.lastError = err instanceof Error ? err.message : String(err)
      o.log?.warn({ poller: o.name, err: s.lastError, failures: s.consecutive }, 'background run failed')
    } finally {
      s.runs++
    }
  }

  function runOnce(): Promise<void> {
    if (inFlight) {
      again = true
      return inFlight
    }
    if (handle !== undefined) {
      timer.clearTimeout(handle)
      handle = undefined
    }
    inFlight = round()
      .catch((err: unknown) => {
        o.log?.error({ poller: o.name, err: (err as Error)?.message }, 'background lease check failed')
      })
      .finally(() => {
        inFlight = undefined
        lastEndedAt = timer.now()
        if (again) {
          again = false
          schedule(0)
        } else schedule(nextDelay())
      })
    return inFlight
  }

  return {
    name: o.name,
    runOnce,
    kick: () => void runOnce(),
    start() {
      if (active) return
      active = true
      schedule(o.initialDelayMs ?? 0)
    },
    async stop() {
      active = false
      if (handle !== undefined) timer.clearTimeout(handle)
      handle = undefined
      nextAt = null
      await inFlight
      if (o.lease && holdsLease) {
        await o.lease.release()
        holdsLease = false
      }
    },
    started: () => active,
    stats: () => ({
      runs: s.runs,
      failures: s.failures,
      consecutive_failures: s.consecutive,
      last_run_at: s.lastRunAt,
      last_error: s.lastError,
      running: inFlight !== undefined,
      next_run_at: nextAt === null ? null : new Date(nextAt).toISOString(),
      holds_lease: holdsLease,
    }),
  }
}

/**
 * The control agent: a background loop that, while it holds the `reconcile` lease, scans the
 * runtime host, records the drift it sees, refreshes the tool-policy projection and delivers the
 * outbox. It never writes the host: changing the host takes an authorized patch apply.
 */
import { hostname } from 'node:os'
import { AppError } from '../../common/errors.ts'
import type { Logger } from '../../common/logger.ts'
import { Counter, Gauge, type Registry } from '../../common/metrics.ts'
import { callPeer } from '../../common/peer.ts'
import { newId, nowIso } from '../../common/time.ts'
import type { Db } from '../../db/sqlite.ts'
import type { BackgroundTask } from '../../runtime/unit.ts'
import type { AuthorityService } from './authority.ts'
import { watchdogVerdict } from './rules/watchdog.ts'
import type { RuntimeService } from './service/runtime.ts'
import * as store from './store.ts'

export const RECONCILE_LEASE = 'reconcile'

export interface ControlOptions {
  db: Db
  log: Logger
  registry: Registry
  runtime: RuntimeService
  authority: AuthorityService
  intervalS: number
  leaseDurationS: number
  stallAfterS: number
  watchdogIntervalS: number
  sink: { url: string; token: string | undefined; timeoutMs: number } | undefined
}

export type ControlAgent = ReturnType<typeof createControlAgent>

const OUTBOX_BATCH = 50
const OUTBOX_MAX_BACKOFF_MS = 15 * 60_000

export function createControlAgent(opts: ControlOptions) {
  const holder = `${hostname()}:${process.pid}:${newId().slice(-12)}`
  const startedAt = nowIso()
  let timer: ReturnType<typeof setInterval> | undefined
  let watchdogTimer: ReturnType<typeof setInterval> | undefined
  let running: { runId: string; startedAt: string; promise: Promise<unknown> } | null = null
  let nextRunAt: string | null = null
  let lastWatchdog: (ReturnType<typeof watchdog> & { checked_at: string }) | null = null

  const runs = new Counter({
    name: 'svc_rms_reconcile_runs_total',
    help: 'Control-agent reconcile attempts, by outcome (ok, failed, skipped_lease_held).',
    labelNames: ['outcome'] as const,
    registers: [opts.registry],
  })
  new Gauge({
    name: 'svc_rms_control_lease_held',
    help: '1 while this process holds the reconcile lease.',
    registers: [opts.registry],
    collect() {
      this.set(holdsLease() ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_watchdog_stalled',
    help: '1 when the watchdog sees a stalled reconcile.',
    registers: [opts.registry],
    collect() {
      this.set(watchdog().state === 'stalled' ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_last_reconcile_timestamp_seconds',
    help: 'When the last reconcile finished (any holder), as a Unix time.',
    registers: [opts.registry],
    collect() {
      const last = store.lastFinishedRun(opts.db)
      this.set(last?.finishedAt ? Date.parse(last.finishedAt) / 1000 : 0)
    },
  })
  const delivered = new Counter({
    name: 'svc_rms_outbox_delivery_attempts_total',
    help: 'Outbox delivery attempts to the event sink, by result.',
    labelNames: ['result'] as const,
    registers: [opts.registry],
  })

  function currentLease() {
    return store.listLeases(opts.db).find((l) => l.name === RECONCILE_LEASE)
  }
  function holdsLease(): boolean {
    const l = currentLease()
    return l?.holder === holder && l.expiresAt !== null && Date.parse(l.expiresAt) > Date.now()
  }

  async function deliverOutbox(): Promise<number> {
    if (!opts.sink) return 0
    let n = 0
    for (const row of store.dueOutbox(opts.db, nowIso(), OUTBOX_BATCH)) {
      const answer = await callPeer({
        url: opts.sink.url,
        method: 'POST',
        body: row.payload,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'x-svc-event-id': row.eventId,
          ...(opts.sink.token ? { authorization: `Bearer ${opts.sink.token}` } : {}),
        },
        timeoutMs: opts.sink.timeoutMs,
      })
      if (answer.ok) {
        store.markOutbox(opts.db, row.eventId, { delivered: true })
        delivered.inc({ result: 'delivered' })
        n++
      } else {
        const backoff = Math.min(OUTBOX_MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.attempts, 20))
        store.markOutbox(opts.db, row.eventId, {
          delivered: false,
          error: `${answer.reason}: ${answer.message}`,
          nextAttemptAt: new Date(Date.now() + backoff).toISOString(),
        })
        delivered.inc({ result: 'failed' })
      }
    }
    return n
  }

  async function work(runId: string) {
    try {
      await opts.authority.refreshProjection()
      const d = opts.runtime.drift()
      if (!d.snapshot.readable) throw new Error(`runtime host unreadable: ${d.snapshot.error}`)
      await deliverOutbox()
      const row = store.finishRun(opts.db, runId, {
        outcome: 'ok',
        driftItems: d.entries.length,
        maxSeverity: d.summary.severity,
        hostHash: d.snapshot.host_hash,
        error: null,
      })
      runs.inc({ outcome: 'ok' })
      if (d.entries.length > 0) {
        opts.log.warn({ drift_items: d.entries.length, severity: d.summary.severity }, 'runtime host drift')
      }
      return row
    } catch (err) {
      runs.inc({ outcome: 'failed' })
      opts.log.error({ err: (err as Error).message }, 'reconcile failed')
      return store.finishRun(opts.db, runId, {
        outcome: 'failed',
        driftItems: null,
        maxSeverity: null,
        hostHash: null,
        error: (err as Error).message,
      })
    }
  }

  /** One reconcile: only the lease holder runs it; a second process gets `lease_held`. */
  async function reconcile(trigger: 'schedule' | 'manual') {
    const lease = store.acquireLease(opts.db, RECONCILE_LEASE, holder, opts.leaseDurationS)
    if (!lease.held) {
      runs.inc({ outcome: 'skipped_lease_held' })
      return { outcome: 'skipped' as const, lease: lease.lease, run: null }
    }
    if (lease.transition !== 'renewed') {
      opts.log.info({ lease: RECONCILE_LEASE, holder, transition: lease.transition }, 'lease transition')
    }
    if (running) return { outcome: 'already_running' as const, lease: lease.lease, run: null }
    const run = store.startRun(opts.db, holder, trigger)
    const promise = work(run.runId)
    running = { runId: run.runId, startedAt: run.startedAt, promise }
    try {
      const finished = await promise
      return {
        outcome: finished.outcome === 'ok' ? ('reconciled' as const) : ('failed' as const),
        lease: lease.lease,
        run: finished,
      }
    } finally {
      running = null
    }
  }

  function watchdog() {
    const last = store.lastRuns(opts.db, 20).find((r) => r.holder === holder && r.finishedAt !== null)
    return watchdogVerdict(
      {
        intervalS: opts.intervalS,
        stallAfterS: opts.stallAfterS,
        holdsLease: holdsLease(),
        running: running ? { startedAt: running.startedAt } : null,
        lastFinishedAt: last?.finishedAt ?? null,
        startedAt,
      },
      new Date(),
    )
  }

  const tick = () => {
    nextRunAt = new Date(Date.now() + opts.intervalS * 1000).toISOString()
    void reconcile('schedule').catch((err: unknown) => {
      opts.log.error({ err: (err as Error).message }, 'reconcile tick failed')
    })
  }

  const task: BackgroundTask = {
    name: 'rms-control-agent',
    start() {
      if (timer) return
      timer = setInterval(tick, opts.intervalS * 1000)
      watchdogTimer = setInterval(() => {
        lastWatchdog = { ...watchdog(), checked_at: nowIso() }
        if (lastWatchdog.state === 'stalled' || lastWatchdog.state === 'overdue') {
          opts.log.error({ watchdog: lastWatchdog }, 'control-agent watchdog')
        }
      }, opts.watchdogIntervalS * 1000)
      tick()
    },
    async stop() {
      if (timer) clearInterval(timer)
      if (watchdogTimer) clearInterval(watchdogTimer)
      timer = undefined
      watchdogTimer = undefined
      nextRunAt = null
      await running?.promise
      try {
        store.releaseLease(opts.db, RECONCILE_LEASE, holder)
      } catch (err) {
        opts.log.warn({ err: (err as Error).message }, 'lease release failed')
      }
    },
  }

  return {
    task,
    holder,
    reconcile,
    watchdog,
    holdsLease,
    currentLease,
    deliverOutbox,
    loopRunning: () => timer !== undefined,
    runningNow: () => (running ? { run_id: running.runId, started_at: running.startedAt } : null),
    nextRunAt: () => nextRunAt,
    lastWatchdogCheck: () => lastWatchdog,
    startedAt,
  }
}

/** A reconcile that found the lease held elsewhere is refused with the holder named. */
export function leaseHeldError(lease: store.LeaseRow) {
  return new AppError(409, 'lease_held', 'Another RMS instance holds the reconcile lease.', {
    lease: RECONCILE_LEASE,
    holder: lease.holder,
    expires_at: lease.expiresAt,
  })
}

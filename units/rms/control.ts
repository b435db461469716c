/**
 * The control agent: a background loop (the suite's poller) that, while it holds the `reconcile`
 * lease, scans the runtime host, records the drift it sees, refreshes the tool-policy projection
 * and delivers the outbox (the shared one, target `event-sink`). It never writes the host:
 * changing the host takes an authorized patch apply. The lease is RMS's own (generation, renewal
 * count, transition log), offered to the poller as a `PollerLease`.
 */
import { AppError } from '../../common/errors.ts'
import type { Logger } from '../../common/logger.ts'
import { errorFields } from '../../common/logger.ts'
import { Counter, Gauge, type Registry } from '../../common/metrics.ts'
import { createPoller, type PollerLease } from '../../common/poller.ts'
import { newId, nowIso } from '../../common/time.ts'
import { newHolderId } from '../../db/lease.ts'
import { createOutbox } from '../../db/outbox.ts'
import type { Storage } from '../../db/storage.ts'
import type { BackgroundTask } from '../../runtime/unit.ts'
import type { AuthorityService } from './authority.ts'
import { watchdogVerdict } from './rules/watchdog.ts'
import type { RuntimeService } from './service/runtime.ts'
import * as store from './store.ts'

export const RECONCILE_LEASE = 'reconcile'

export interface ControlOptions {
  storage: Storage
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

/** Outbox retries: from one second, doubling, capped at 15 minutes; dead after 25 attempts. */
const OUTBOX_BACKOFF = { baseMs: 1000, maxMs: 15 * 60_000 }

export function createControlAgent(opts: ControlOptions) {
  const holder = newHolderId()
  const startedAt = nowIso()
  let running: { runId: string; startedAt: string; promise: Promise<store.ReconcileRow> } | null = null
  let lastWatchdog: (Awaited<ReturnType<typeof watchdog>> & { checked_at: string }) | null = null

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
    async collect() {
      await scrapeSafely(async () => this.set((await holdsLease()) ? 1 : 0))
    },
  })
  new Gauge({
    name: 'svc_rms_watchdog_stalled',
    help: '1 when the watchdog sees a stalled reconcile.',
    registers: [opts.registry],
    async collect() {
      await scrapeSafely(async () => this.set((await watchdog()).state === 'stalled' ? 1 : 0))
    },
  })
  new Gauge({
    name: 'svc_rms_last_reconcile_timestamp_seconds',
    help: 'When the last reconcile finished (any holder), as a Unix time.',
    registers: [opts.registry],
    async collect() {
      await scrapeSafely(async () => {
        const last = await store.lastFinishedRun(opts.storage.db)
        this.set(last?.finishedAt ? Date.parse(last.finishedAt) / 1000 : 0)
      })
    },
  })
  const delivered = new Counter({
    name: 'svc_rms_outbox_delivery_attempts_total',
    help: 'Outbox delivery attempts to the event sink, by result.',
    labelNames: ['result'] as const,
    registers: [opts.registry],
  })
  const sink = opts.sink
  const outbox = createOutbox({
    name: 'rms-outbox',
    db: opts.storage,
    log: opts.log,
    registry: opts.registry,
    backoff: OUTBOX_BACKOFF,
    targets: {
      [store.EVENT_SINK]: {
        url: sink?.url,
        timeoutMs: sink?.timeoutMs ?? 0,
        // Computed per attempt: the token is configuration, never stored with the message.
        headers: (m) => ({
          'x-svc-event-id': m.id,
          ...(sink?.token ? { authorization: `Bearer ${sink.token}` } : {}),
        }),
      },
    },
    onAttempt: (_m, result) => delivered.inc({ result: result === 'delivered' ? 'delivered' : 'failed' }),
  })

  /** The reconcile lease as stored (committed): the database is the one source, never a copy. */
  const currentLease = () => store.findLease(opts.storage.db, RECONCILE_LEASE)
  async function holdsLease(): Promise<boolean> {
    const l = await currentLease()
    return l?.holder === holder && l.expiresAt !== null && Date.parse(l.expiresAt) > Date.now()
  }

  /** Take or renew the reconcile lease; a refusal is counted, a change of holder logged. */
  async function takeLease(): Promise<store.LeaseOutcome> {
    const lease = await store.acquireLease(opts.storage, RECONCILE_LEASE, holder, opts.leaseDurationS)
    if (!lease.held) runs.inc({ outcome: 'skipped_lease_held' })
    else if (lease.transition !== 'renewed') {
      opts.log.info({ lease: RECONCILE_LEASE, holder, transition: lease.transition }, 'lease transition')
    }
    return lease
  }

  /** RMS's lease (generation, renewals, transitions) as the poller's lease. */
  const reconcileLease: PollerLease = {
    durationMs: opts.leaseDurationS * 1000,
    // A database that does not answer is no lease held (the poller also renews from a timer,
    // where a rejection would go unhandled).
    acquire: async () => {
      try {
        return (await takeLease()).held
      } catch (err) {
        opts.log.error({ err: errorFields(err) }, 'reconcile lease check failed')
        return false
      }
    },
    // After the reconcile in flight (a manual one may run while the loop stops). A release the
    // database does not take (a server gone) is logged: the lease then simply runs out.
    release: async () => {
      try {
        await running?.promise.catch(() => undefined)
        await store.releaseLease(opts.storage, RECONCILE_LEASE, holder)
      } catch (err) {
        opts.log.warn({ err: errorFields(err) }, 'lease release failed')
      }
    },
  }

  async function work(runId: string) {
    try {
      await opts.authority.refreshProjection()
      const d = await opts.runtime.drift()
      if (!d.snapshot.readable) throw new Error(`runtime host unreadable: ${d.snapshot.error}`)
      await outbox.deliverDue()
      const row = await store.finishRun(opts.storage, runId, {
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
      opts.log.error({ err: errorFields(err) }, 'reconcile failed')
      return await store.finishRun(opts.storage, runId, {
        outcome: 'failed',
        driftItems: null,
        maxSeverity: null,
        hostHash: null,
        error: (err as Error).message,
      })
    }
  }

  /** Run one reconcile under a lease already held; null when one is running already. */
  async function runHeld(trigger: 'schedule' | 'manual'): Promise<store.ReconcileRow | null> {
    if (running) return null
    // Claimed synchronously, before the first await, so one process never runs two at once.
    const run = { runId: newId(), startedAt: nowIso(), holder, trigger }
    const promise = store.startRun(opts.storage, run).then(() => work(run.runId))
    running = { runId: run.runId, startedAt: run.startedAt, promise }
    try {
      return await promise
    } finally {
      running = null
    }
  }

  /** One reconcile now: only the lease holder runs it; a second process gets `lease_held`. */
  async function reconcile(trigger: 'schedule' | 'manual') {
    const lease = await takeLease()
    if (!lease.held) return { outcome: 'skipped' as const, lease: lease.lease, run: null }
    const finished = await runHeld(trigger)
    if (!finished) return { outcome: 'already_running' as const, lease: lease.lease, run: null }
    return {
      outcome: finished.outcome === 'ok' ? ('reconciled' as const) : ('failed' as const),
      lease: lease.lease,
      run: finished,
    }
  }

  // The schedule: at the reconcile cadence while this process holds the lease. A failed reconcile
  // backs off (doubling from one interval, capped at two so the watchdog never calls it overdue).
  const loop = createPoller({
    name: 'rms-control-agent',
    intervalMs: opts.intervalS * 1000,
    maxBackoffMs: 2 * opts.intervalS * 1000,
    lease: reconcileLease,
    log: opts.log,
    run: async () => {
      const finished = await runHeld('schedule')
      if (finished?.outcome === 'failed') throw new Error(finished.error ?? 'reconcile failed')
    },
  })

  async function watchdog() {
    const [recent, holds] = await Promise.all([store.lastRuns(opts.storage.db, 20), holdsLease()])
    const last = recent.find((r) => r.holder === holder && r.finishedAt !== null)
    return watchdogVerdict(
      {
        intervalS: opts.intervalS,
        stallAfterS: opts.stallAfterS,
        holdsLease: holds,
        running: running ? { startedAt: running.startedAt } : null,
        lastFinishedAt: last?.finishedAt ?? null,
        startedAt,
      },
      new Date(),
    )
  }

  const watchdogLoop = createPoller({
    name: 'rms-watchdog',
    intervalMs: opts.watchdogIntervalS * 1000,
    initialDelayMs: opts.watchdogIntervalS * 1000,
    jitter: 0,
    log: opts.log,
    run: async () => {
      lastWatchdog = { ...(await watchdog()), checked_at: nowIso() }
      if (lastWatchdog.state === 'stalled' || lastWatchdog.state === 'overdue') {
        opts.log.error({ watchdog: lastWatchdog }, 'control-agent watchdog')
      }
    },
  })

  const task: BackgroundTask = {
    name: 'rms-control-agent',
    start() {
      loop.start()
      watchdogLoop.start()
    },
    async stop() {
      await Promise.all([loop.stop(), watchdogLoop.stop()])
      // A manual reconcile may hold the lease while the loop never ran: release it either way.
      await reconcileLease.release()
    },
  }

  return {
    task,
    holder,
    reconcile,
    watchdog,
    holdsLease,
    currentLease,
    deliverOutbox: () => outbox.deliverDue(),
    loopRunning: () => loop.started(),
    runningNow: () => (running ? { run_id: running.runId, started_at: running.startedAt } : null),
    nextRunAt: () => loop.stats().next_run_at,
    lastWatchdogCheck: () => lastWatchdog,
    startedAt,
  }
}

/** Run one gauge's read; a scrape never fails because one signal could not be read. */
export async function scrapeSafely(read: () => unknown): Promise<void> {
  try {
    await read()
  } catch {
    // the gauge keeps its last value
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

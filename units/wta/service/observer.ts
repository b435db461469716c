/**
 * The observers (spec, Limits: WTA observers and restart recovery), both on the shared poller:
 *  - flow control: polls the tool every WTA_FLOW_CONTROL_POLL_SECONDS (default 45, hard floor
 *    30, refused at start below it), snapshots the workflows and logs what changed; while the
 *    tool is idle (no active workflow, nothing changed) it polls only every idle poll (120 s);
 *  - upgrade: every idle poll, makes the scheduled upgrade report (`/upgrade/scheduled/latest`).
 * Failures back off exponentially from the poll, bounded at 300 s, with up to 3 s of jitter and
 * never sooner than the 30 s floor, so errors cannot cause a tight loop. Each holds a lease named
 * after the gateway target (the tool's URL), so one observer is active per target across
 * processes sharing the database. After a restart the first poll waits out the floor since the
 * last recorded one.
 */

import type { BackgroundTask } from '../../../common/background.ts'
import type { Logger } from '../../../common/logger.ts'
import { createPoller, type Poller, realTimer, type Timer } from '../../../common/poller.ts'
import { storageLease } from '../../../db/lease.ts'
import { OBSERVER_LIMITS } from '../config.ts'
import { lastSync } from '../store.ts'
import { makeReport } from './upgrade.ts'
import { readWorkflows } from './workflows.ts'
import type { Wta } from './wta.ts'

const S = 1000

/** The lease name of an observer for a gateway target (the tool's root URL, normalized). */
export const observerLeaseName = (kind: string, target: string | undefined) =>
  `wta:${kind}:${(target ?? 'unconfigured').replace(/\/+$/, '').toLowerCase()}`

export interface ObserverOptions {
  timer?: Timer
  random?: () => number
  log?: Logger
  /** Holder id of the leases (tests run two "processes" in one). */
  holder?: string
}

export interface Observers {
  flow: Poller
  upgrade: Poller
  /** Whether the flow observer is in its idle cadence now. */
  idle(): boolean
  /** What the runtime starts and stops. */
  tasks: BackgroundTask[]
}

/** The poller settings of the spec for an interval, shared by both observers. */
export function observerCadence(intervalMs: number) {
  return {
    intervalMs,
    floorMs: OBSERVER_LIMITS.floorSeconds * S,
    jitter: (OBSERVER_LIMITS.jitterSeconds * S) / intervalMs,
    errorBaseMs: intervalMs,
    maxBackoffMs: OBSERVER_LIMITS.maxBackoffSeconds * S,
  }
}

export async function restartDelayMs(wta: Wta, nowMs: number, random: () => number): Promise<number> {
  const last = await lastSync(wta.storage)
  const sinceLast = last ? nowMs - Date.parse(last.at) : Number.POSITIVE_INFINITY
  const wait = Math.max(0, OBSERVER_LIMITS.floorSeconds * S - sinceLast)
  return Math.round(wait + OBSERVER_LIMITS.jitterSeconds * S * random())
}

export function createObservers(wta: Wta, o: ObserverOptions = {}): Observers {
  const timer = o.timer
  const now = () => timer?.now() ?? Date.now()
  const random = o.random ?? Math.random
  const pollMs = wta.config.WTA_FLOW_CONTROL_POLL_SECONDS * S
  const idleMs = wta.config.WTA_IDLE_POLL_SECONDS * S
  const target = wta.config.WTA_AUTOMATION_URL
  let idle = false
  let lastPolledAt = Number.NEGATIVE_INFINITY
  let failing = false

  async function observe() {
    if (idle && now() - lastPolledAt < idleMs) return
    lastPolledAt = now()
    const set = await readWorkflows(wta).catch((err: Error) => ({ failure: err.message }))
    const problem =
      'failure' in set
        ? set.failure
        : set.meta.stale
          ? (set.meta.reason ?? 'the tool could not be read')
          : undefined
    if (problem !== undefined || 'failure' in set) {
      if (!failing) wta.events.append('observer.failing', { target, reason: problem })
      failing = true
      throw new Error(problem)
    }
    if (failing) wta.events.append('observer.recovered', { target })
    failing = false
    const active = set.workflows.filter((w) => w.active).length
    const nowIdle = active === 0
    if (nowIdle !== idle)
      wta.events.append(nowIdle ? 'observer.idle' : 'observer.busy', { target, active_workflows: active })
    idle = nowIdle
  }

  const lease = (kind: string, intervalMs: number) =>
    storageLease(wta.storage, observerLeaseName(kind, target), {
      durationMs: 3 * intervalMs,
      holder: o.holder,
      now,
    })

  const flow = createPoller({
    name: 'wta:flow-control-observer',
    ...observerCadence(pollMs),
    lease: lease('observer', pollMs),
    run: observe,
    log: o.log,
    timer,
    random,
  })
  const upgrade = createPoller({
    name: 'wta:upgrade-observer',
    ...observerCadence(idleMs),
    initialDelayMs: idleMs,
    lease: lease('upgrade', idleMs),
    run: () => makeReport(wta, 'scheduled'),
    log: o.log,
    timer,
    random,
  })
  // Restart recovery: the first poll waits out the floor since the last recorded one, plus jitter.
  let stopped = true
  const flowTask: BackgroundTask = {
    name: flow.name,
    start() {
      stopped = false
      void restartDelayMs(wta, now(), random).then((delay) => {
        if (stopped) return
        wta.events.append('observer.started', { target, first_poll_in_ms: delay, poll_seconds: pollMs / S })
        ;(timer ?? realTimer).setTimeout(() => {
          if (!stopped) flow.start()
        }, delay)
      })
    },
    stop() {
      stopped = true
      return flow.stop()
    },
  }
  return { flow, upgrade, idle: () => idle, tasks: [flowTask, upgrade] }
}

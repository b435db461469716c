/**
 * The bounded observation schedule: every interval, one GET per declared surface of every unit in
 * SVC_UNIT_URLS (liveness, manifest, PWS facts), each bounded by a timeout; rounds never overlap
 * (the suite's poller runs them: single flight, jitter, backoff if a round throws).
 */
import type { UnitContract } from '../../common/contract.ts'
import type { Logger } from '../../common/logger.ts'
import { errorFields } from '../../common/logger.ts'
import { callPeer } from '../../common/peer.ts'
import { createPoller } from '../../common/poller.ts'
import { nowIso } from '../../common/time.ts'
import type { Storage } from '../../db/storage.ts'
import type { BackgroundTask } from '../../runtime/unit.ts'
import type { Observation, SurfaceKind } from './rules/drift.ts'
import { recordObservations } from './store.ts'

/** Bodies larger than this are observed but not kept. */
export const MAX_KEPT_BODY_CHARS = 65_536

export interface ObserverOptions {
  storage: Storage
  log: Logger
  contracts: readonly UnitContract[]
  urls: Record<string, string>
  intervalMs: number
  timeoutMs: number
  keep: number
  /** Called after every round: how many observations were stored, and whether any state changed. */
  onRound(round: { stored: number; changed: boolean }): void | Promise<void>
}

export interface Observer extends BackgroundTask {
  /** One round now (tests and the first tick); resolves when stored. */
  runOnce(): Promise<Observation[]>
  stats(): { rounds: number; last_round_at: string | null; last_round_ms: number | null; running: boolean }
}

const FACTS: Record<string, SurfaceKind> = {
  '/platform-workspace-facts': 'workspace_facts',
  '/platform-membership-facts': 'membership_facts',
}

export function surfacesOf(c: UnitContract): { surface: SurfaceKind; path: string }[] {
  const out: { surface: SurfaceKind; path: string }[] = []
  if (c.liveness) out.push({ surface: 'liveness', path: c.liveness })
  if (c.manifest_path) out.push({ surface: 'manifest', path: c.manifest_path })
  for (const r of c.readiness_surfaces) {
    const kind = FACTS[r.path]
    if (r.kind === 'facts' && kind) out.push({ surface: kind, path: r.path })
  }
  return out
}

export async function probe(
  unit: string,
  surface: SurfaceKind,
  url: string,
  timeoutMs: number,
): Promise<Observation> {
  const started = performance.now()
  const res = await callPeer({ url, timeoutMs })
  const latency = Math.round(performance.now() - started)
  const observed_at = nowIso()
  if (!res.ok) {
    return {
      unit,
      surface,
      url,
      observed_at,
      ok: false,
      status: res.status ?? null,
      reason: res.reason,
      message: res.message,
      latency_ms: latency,
      body: null,
    }
  }
  // Liveness may answer in any format; manifests and facts are JSON or they are unusable.
  const isJson = typeof res.body !== 'string'
  if (surface !== 'liveness' && !isJson) {
    return {
      unit,
      surface,
      url,
      observed_at,
      ok: false,
      status: res.status,
      reason: 'bad_body',
      message: 'answer is not JSON',
      latency_ms: latency,
      body: null,
    }
  }
  let body: unknown = isJson ? res.body : null
  let message: string | null = null
  if (body !== null && JSON.stringify(body).length > MAX_KEPT_BODY_CHARS) {
    body = null
    message = `body larger than ${MAX_KEPT_BODY_CHARS} characters, not kept`
  }
  return {
    unit,
    surface,
    url,
    observed_at,
    ok: true,
    status: res.status,
    reason: null,
    message,
    latency_ms: latency,
    body,
  }
}

/** What counts as a change: reachability, status or body of any surface. */
const signatureOf = (round: Observation[]) =>
  JSON.stringify(round.map((o) => [o.unit, o.surface, o.ok, o.status, o.reason, JSON.stringify(o.body)]))

export function createObserver(opts: ObserverOptions): Observer {
  let rounds = 0
  let lastAt: string | null = null
  let lastMs: number | null = null
  let lastSignature = ''
  let lastRound: Observation[] = []
  const targets = opts.contracts
    .filter((c) => opts.urls[c.unit])
    .map((c) => ({ c, base: opts.urls[c.unit]!.replace(/\/+$/, '') }))

  const round = async (): Promise<void> => {
    const started = performance.now()
    // Units in parallel, a unit's surfaces in sequence: at most one open request per unit.
    const results = await Promise.all(
      targets.map(async ({ c, base }) => {
        const out: Observation[] = []
        for (const s of surfacesOf(c)) out.push(await probe(c.unit, s.surface, base + s.path, opts.timeoutMs))
        return out
      }),
    )
    const flat = results.flat()
    try {
      await recordObservations(opts.storage, flat, opts.keep)
    } catch (err) {
      opts.log.error({ err: errorFields(err) }, 'storing observations failed')
    }
    rounds++
    lastAt = nowIso()
    lastMs = Math.round(performance.now() - started)
    const signature = signatureOf(flat)
    const changed = signature !== lastSignature
    lastSignature = signature
    lastRound = flat
    await opts.onRound({ stored: flat.length, changed })
  }

  const poller = createPoller({
    name: 'prs:observer',
    intervalMs: opts.intervalMs,
    log: opts.log,
    run: round,
  })

  return {
    name: 'prs:observer',
    runOnce: async () => {
      await poller.runOnce()
      return lastRound
    },
    start: () => poller.start(),
    stop: () => poller.stop(),
    stats: () => ({
      rounds,
      last_round_at: lastAt,
      last_round_ms: lastMs,
      running: poller.stats().running,
    }),
  }
}

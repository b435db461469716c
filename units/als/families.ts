import { Type as T } from '@sinclair/typebox'
import type { Logger } from '../../common/logger.ts'
import { callPeer } from '../../common/peer.ts'
import { createPoller } from '../../common/poller.ts'
import type { BackgroundTask } from '../../runtime/unit.ts'

/** The part of PRS's `GET /api/v1/contracts/matrix` ALS relies on (CONTRACTS.md §4). */
export const MatrixAnswer = T.Object(
  {
    producer_families: T.Array(T.String()),
    consumer_families: T.Array(T.String()),
    version: T.String(),
  },
  { additionalProperties: true },
)

export const MATRIX_PATH = '/api/v1/contracts/matrix'

/** First retry delay after a failed fetch; it doubles up to the refresh period. */
const FIRST_RETRY_MS = 500

export interface FamilySettings {
  /** SVC_REGISTRY_URL; undefined: no family truth at all. */
  registryUrl: string | undefined
  timeoutMs: number
  /** Families older than this are not shown (and readiness degrades). */
  maxAgeMs: number
  refreshMs: number
}

export type FamilyState = 'fresh' | 'stale' | 'unavailable' | 'not_configured'

export interface FamilySnapshot {
  state: FamilyState
  /** Empty unless fresh: ALS never shows family truth it cannot vouch for. */
  producer_families: string[]
  consumer_families: string[]
  version: string | null
  fetched_at: string | null
  age_ms: number | null
  /** Whether the last attempt reached PRS with a usable answer. */
  reachable: boolean
  last_error: string | null
}

export interface FamilyCache extends BackgroundTask {
  readonly maxAgeMs: number
  /** The cached truth, judged by age now. Never waits for PRS. */
  snapshot(): FamilySnapshot
  /** Fetch now (single flight), bounded by the peer timeout. */
  refresh(): Promise<FamilySnapshot>
  /** Refresh only when the cache is not fresh; for views that may wait briefly. */
  ensureFresh(): Promise<FamilySnapshot>
}

interface Cached {
  producer: string[]
  consumer: string[]
  version: string
  fetchedAt: number
}

/** Family truth from PRS, cached with a bounded age, refreshed in the background and on demand. */
export function createFamilyCache(
  settings: FamilySettings,
  log: Logger,
  now = () => Date.now(),
): FamilyCache {
  let cached: Cached | undefined
  let reachable = false
  let lastError: string | null = settings.registryUrl ? 'not fetched yet' : 'SVC_REGISTRY_URL is not set'
  let inflight: Promise<FamilySnapshot> | undefined

  function snapshot(): FamilySnapshot {
    const age = cached ? now() - cached.fetchedAt : null
    let state: FamilyState
    if (!settings.registryUrl) state = 'not_configured'
    else if (!cached) state = 'unavailable'
    else state = age !== null && age <= settings.maxAgeMs ? 'fresh' : 'stale'
    const fresh = state === 'fresh' ? cached : undefined
    return {
      state,
      producer_families: fresh ? [...fresh.producer] : [],
      consumer_families: fresh ? [...fresh.consumer] : [],
      version: cached?.version ?? null,
      fetched_at: cached ? new Date(cached.fetchedAt).toISOString() : null,
      age_ms: age,
      reachable,
      last_error: lastError,
    }
  }

  async function fetchMatrix(): Promise<FamilySnapshot> {
    const answer = await callPeer({
      url: settings.registryUrl ? new URL(MATRIX_PATH, settings.registryUrl).href : undefined,
      timeoutMs: settings.timeoutMs,
      schema: MatrixAnswer,
    })
    if (answer.ok) {
      cached = {
        producer: [...new Set(answer.body.producer_families)].sort(),
        consumer: [...new Set(answer.body.consumer_families)].sort(),
        version: answer.body.version,
        fetchedAt: now(),
      }
      reachable = true
      lastError = null
    } else {
      if (reachable || lastError === 'not fetched yet') {
        log.warn({ reason: answer.reason, message: answer.message }, 'PRS matrix unavailable')
      }
      reachable = false
      lastError = `${answer.reason}: ${answer.message}`
    }
    return snapshot()
  }

  function refresh(): Promise<FamilySnapshot> {
    if (!settings.registryUrl) return Promise.resolve(snapshot())
    inflight ??= fetchMatrix().finally(() => {
      inflight = undefined
    })
    return inflight
  }

  // In the background: every refresh period; while PRS fails, sooner (from half a second, doubling
  // up to the refresh period). A failed fetch throws so that the poller backs off.
  const poller = createPoller({
    name: 'als:prs-families',
    intervalMs: settings.refreshMs,
    errorBaseMs: FIRST_RETRY_MS,
    maxBackoffMs: settings.refreshMs,
    run: async () => {
      const snap = await refresh()
      if (!snap.reachable) throw new Error(snap.last_error ?? 'PRS matrix unavailable')
    },
  })

  return {
    name: 'als:prs-families',
    maxAgeMs: settings.maxAgeMs,
    snapshot,
    refresh,
    ensureFresh: () => (snapshot().state === 'fresh' ? Promise.resolve(snapshot()) : refresh()),
    start() {
      if (settings.registryUrl) poller.start()
    },
    async stop() {
      await poller.stop()
      await inflight?.catch(() => undefined)
    },
  }
}

/** Catalog baseline, upstream release and execution hotspots. */
import { readFileSync } from 'node:fs'
import { badRequest, unavailable } from '../../../common/errors.ts'
import { callPeer } from '../../../common/peer.ts'
import { OBSERVER_LIMITS } from '../config.ts'
import { catalogBaseline } from '../rules/baseline.ts'
import { executionHotspots } from '../rules/hotspots.ts'
import { parseVersion } from '../rules/versions.ts'
import { latestUpstream, recordBaseline, recordUpstream, snapshotWorkflows } from '../store.ts'
import { answer } from './answer.ts'
import { readWorkflows, toolFailure } from './workflows.ts'
import type { Wta } from './wta.ts'

/**
 * The latest catalog baseline, read from the workflows (live, or the snapshot when the tool fails)
 * and stored when it changed. `key` names everything the answer shows besides the time it was
 * made (the stored baseline and where the workflows came from): the API serves the same answer,
 * as the same bytes with an ETag, while the key stays the same (routes/catalog.ts).
 */
export async function baselineParts(wta: Wta) {
  const set = await readWorkflows(wta)
  const document = catalogBaseline(set.workflows, wta.nodeTypes)
  const row = await recordBaseline(wta.storage, document, wta.now().toISOString())
  const key = JSON.stringify([row.id, set.meta])
  const build = () =>
    answer(
      { baseline_id: row.id, taken_at: row.takenAt, content_hash: row.contentHash, ...document },
      set.meta,
      wta.now(),
    )
  return { key, build }
}

export async function baselineLatest(wta: Wta) {
  return (await baselineParts(wta)).build()
}

export interface UpstreamRelease {
  version: string
  published_at: string | null
}

/**
 * The latest release in an upstream document: npm registry metadata (`dist-tags.latest`,
 * `time[version]`), a version manifest (`version`), or WTA's own file shape (`version`,
 * `published_at`). Undefined when the document says neither.
 */
export function parseUpstream(doc: unknown): UpstreamRelease | undefined {
  if (doc === null || typeof doc !== 'object') return undefined
  const d = doc as {
    'dist-tags'?: { latest?: unknown }
    time?: Record<string, unknown>
    version?: unknown
    published_at?: unknown
  }
  const version = d['dist-tags']?.latest ?? d.version
  if (typeof version !== 'string' || !parseVersion(version)) return undefined
  const published = d.time?.[version] ?? d.published_at
  return { version, published_at: typeof published === 'string' ? published : null }
}

async function readUpstream(
  wta: Wta,
): Promise<{ release: UpstreamRelease; source: 'file' | 'registry' } | { error: string }> {
  const file = wta.config.WTA_UPSTREAM_FILE
  if (file) {
    try {
      const release = parseUpstream(JSON.parse(readFileSync(file, 'utf8')))
      return release ? { release, source: 'file' } : { error: `${file} names no release version` }
    } catch (err) {
      return { error: `${file}: ${(err as Error).message}` }
    }
  }
  const res = await callPeer({
    url: wta.config.WTA_UPSTREAM_URL,
    timeoutMs: wta.config.WTA_UPSTREAM_TIMEOUT_MS,
  })
  if (!res.ok) return { error: `${res.reason}: ${res.message}` }
  const release = parseUpstream(res.body)
  return release
    ? { release, source: 'registry' }
    : { error: 'the upstream document names no release version' }
}

/** The latest upstream release, read now and stored; the stored one (stale) when the source fails. */
export async function upstreamLatest(wta: Wta) {
  const read = await readUpstream(wta)
  const at = wta.now().toISOString()
  if ('error' in read) {
    wta.events.append('upstream.failed', { reason: read.error })
    const stored = await latestUpstream(wta.storage)
    if (!stored)
      throw unavailable('upstream_unavailable', 'The upstream release source could not be read.', {
        reason: read.error,
      })
    return answer(
      {
        version: stored.version,
        published_at: stored.publishedAt,
        checked_at: stored.checkedAt,
        source: stored.source,
      },
      { source: 'stored', stale: true, reason: read.error },
      wta.now(),
    )
  }
  const where = read.source === 'file' ? (wta.config.WTA_UPSTREAM_FILE ?? '') : wta.config.WTA_UPSTREAM_URL
  const previous = await latestUpstream(wta.storage)
  await recordUpstream(wta.storage, {
    version: read.release.version,
    publishedAt: read.release.published_at,
    source: where,
    at,
  })
  if (previous?.version !== read.release.version)
    wta.events.append('upstream.release', { version: read.release.version })
  return answer({ ...read.release, checked_at: at, source: where }, { source: read.source }, wta.now())
}

export const HOTSPOT_LIMIT_MAX = 100

/** Failing and slow workflows and nodes over the last `hours` (at most the log window of executions). */
export async function hotspots(wta: Wta, o: { hours?: number; limit?: number }) {
  const hours = o.hours ?? wta.config.WTA_HOTSPOT_WINDOW_HOURS
  const limit = o.limit ?? 10
  if (!Number.isInteger(hours) || hours < 1 || hours > 720)
    throw badRequest('invalid_window', 'hours must be an integer 1-720.')
  if (!Number.isInteger(limit) || limit < 1 || limit > HOTSPOT_LIMIT_MAX)
    throw badRequest('invalid_limit', `limit must be an integer 1-${HOTSPOT_LIMIT_MAX}.`)
  const until = wta.now()
  const since = new Date(until.getTime() - hours * 3_600_000).toISOString()
  const res = await wta.client.executions({ since, max: OBSERVER_LIMITS.logWindowLines, includeData: true })
  if (!res.ok) throw toolFailure(res)
  const names = new Map((await snapshotWorkflows(wta.storage)).map((r) => [r.workflow.id, r.workflow.name]))
  return answer(
    {
      window_hours: hours,
      ...executionHotspots(res.value, names, { since, until: until.toISOString(), limit }),
    },
    { source: 'live' },
    wta.now(),
  )
}

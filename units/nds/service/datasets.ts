/**
 * Dataset snapshots (a query frozen into JSONL with a manifest; the bytes are stored, so a
 * snapshot id always yields the same bytes) and simulation exports (time-bucketed series).
 */
import { notFound, unprocessable } from '../../../common/errors.ts'
import { canonicalJson, sha256Hex } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Caller } from '../auth.ts'
import { ftsQuery } from '../rules/query.ts'
import type { ArticleRow, Bucket, SearchFilters } from '../store.ts'
import type { NdsDeps } from './deps.ts'

export const SNAPSHOT_FILE = 'articles.jsonl'
const JSONL = 'application/x-ndjson'

/** One JSONL line: canonical JSON (RFC 8785), so equal records are equal bytes. */
const record = (a: ArticleRow) =>
  canonicalJson({
    article_id: a.articleId,
    version: a.version,
    canonical_url: a.canonicalUrl,
    title: a.title,
    body: a.body,
    language: a.language,
    published_at: a.publishedAt,
    source: a.source,
    source_name: a.sourceName,
    entities: a.entities,
    content_hash: a.contentHash,
    cluster_id: a.clusterId,
  })

export interface SnapshotBody {
  query?: string
  filters?: SearchFilters
  max_articles?: number
}

const downloadUrl = (snapshotId: string, name: string) => `/v1/datasets/snapshots/${snapshotId}/files/${name}`

export async function createSnapshot(deps: NdsDeps, caller: Caller, body: SnapshotBody) {
  const limit = body.max_articles ?? 10_000
  const rows = await deps.store.selectArticles(
    { match: ftsQuery(body.query), filters: body.filters ?? {} },
    limit,
  )
  const text = rows.map((r) => `${record(r)}\n`).join('')
  const bytes = new TextEncoder().encode(text)
  const snapshotId = newId()
  const sha256 = sha256Hex(bytes)
  const manifest = {
    snapshot_id: snapshotId,
    format: 'jsonl',
    query: { query: body.query ?? null, filters: body.filters ?? {}, max_articles: limit },
    counts: { articles: rows.length, bytes: bytes.byteLength, truncated: rows.length === limit ? 1 : 0 },
    files: [
      {
        name: SNAPSHOT_FILE,
        content_type: JSONL,
        bytes: bytes.byteLength,
        records: rows.length,
        sha256,
        download_url: downloadUrl(snapshotId, SNAPSHOT_FILE),
      },
    ],
    created_at: nowIso(),
  }
  const row = await deps.store.insertSnapshot(
    {
      accountId: caller.accountId,
      manifest,
      files: [{ name: SNAPSHOT_FILE, contentType: JSONL, bytes, sha256 }],
    },
    snapshotId,
  )
  return presentSnapshot(row)
}

const presentSnapshot = (row: {
  snapshotId: string
  state: string
  createdAt: string
  manifest: Record<string, unknown>
}) => ({
  snapshot_id: row.snapshotId,
  state: row.state,
  created_at: row.createdAt,
  manifest: row.manifest as ReturnType<typeof manifestShape>,
})
// the stored manifest is the one createSnapshot built; this names its type for the route schema
const manifestShape = () => ({
  snapshot_id: '',
  format: '',
  query: {} as Record<string, unknown>,
  counts: {} as Record<string, number>,
  files: [] as {
    name: string
    content_type: string
    bytes: number
    records: number
    sha256: string
    download_url: string
  }[],
  created_at: '',
})

async function ownedSnapshot(deps: NdsDeps, caller: Caller, snapshotId: string) {
  const row = await deps.store.getSnapshot(snapshotId)
  if (!row || row.accountId !== caller.accountId)
    throw notFound('snapshot_not_found', 'No such dataset snapshot.')
  return row
}

export async function getSnapshot(deps: NdsDeps, caller: Caller, snapshotId: string) {
  return presentSnapshot(await ownedSnapshot(deps, caller, snapshotId))
}

export async function downloadSnapshotFile(deps: NdsDeps, caller: Caller, snapshotId: string, name: string) {
  await ownedSnapshot(deps, caller, snapshotId)
  const file = await deps.store.getSnapshotFile(snapshotId, name)
  if (!file) throw notFound('snapshot_file_not_found', 'No such file in this snapshot.')
  return new Response(file.bytes, {
    headers: {
      'content-type': `${file.contentType}; charset=utf-8`,
      etag: `"${file.sha256}"`,
      'content-disposition': `attachment; filename="${snapshotId}-${name}"`,
    },
  })
}

// ---- simulation exports

export interface ExportBody {
  query?: string
  filters?: SearchFilters
  from: string
  to: string
  bucket?: Bucket
  format?: 'json' | 'csv'
}

const MAX_EXPORT_DAYS = 3660
const SERIES_COLUMNS = [
  'bucket',
  'articles',
  'sources',
  'events',
  'mentions',
  'avg_goldstein',
  'avg_tone',
] as const

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v)
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

export async function createExport(deps: NdsDeps, caller: Caller, body: ExportBody) {
  const from = Date.parse(body.from)
  const to = Date.parse(body.to)
  if (from > to) throw unprocessable('date_range_invalid', '"from" is after "to".')
  if (to - from > MAX_EXPORT_DAYS * 86_400_000)
    throw unprocessable('date_range_too_long', `An export covers at most ${MAX_EXPORT_DAYS} days.`)
  const bucket = body.bucket ?? 'day'
  const format = body.format ?? 'json'
  const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket }
  const articles = await deps.store.articleBuckets({
    match: ftsQuery(body.query),
    filters: body.filters ?? {},
    ...range,
  })
  const events = await deps.store.eventBuckets(range)
  const byBucket = new Map<string, Record<(typeof SERIES_COLUMNS)[number], string | number | null>>()
  const row = (b: string) => {
    let r = byBucket.get(b)
    if (!r) {
      r = { bucket: b, articles: 0, sources: 0, events: 0, mentions: 0, avg_goldstein: null, avg_tone: null }
      byBucket.set(b, r)
    }
    return r
  }
  for (const a of articles) Object.assign(row(a.bucket), { articles: a.articles, sources: a.sources })
  for (const e of events)
    Object.assign(row(e.bucket), {
      events: e.events,
      mentions: e.mentions,
      avg_goldstein: e.avg_goldstein,
      avg_tone: e.avg_tone,
    })
  const series = [...byBucket.values()].sort((a, b) => String(a.bucket).localeCompare(String(b.bucket)))
  const content =
    format === 'csv'
      ? `${SERIES_COLUMNS.join(',')}\n${series.map((r) => SERIES_COLUMNS.map((c) => csvCell(r[c])).join(',')).join('\n')}${series.length ? '\n' : ''}`
      : canonicalJson(series)
  const request = { query: body.query ?? null, filters: body.filters ?? {}, ...range, format }
  const saved = await deps.store.insertExport({
    accountId: caller.accountId,
    state: 'ready',
    request,
    format,
    content,
    sha256: sha256Hex(content),
  })
  return presentExport(saved)
}

const presentExport = (e: {
  exportId: string
  state: string
  format: string
  request: Record<string, unknown>
  sha256: string
  createdAt: string
  content: string
}) => ({
  export_id: e.exportId,
  state: e.state,
  format: e.format,
  request: e.request,
  sha256: e.sha256,
  created_at: e.createdAt,
  ...(e.format === 'csv'
    ? { csv: e.content }
    : { series: JSON.parse(e.content) as Record<string, unknown>[] }),
})

export async function getExport(deps: NdsDeps, caller: Caller, exportId: string) {
  const row = await deps.store.getExport(exportId)
  if (!row || row.accountId !== caller.accountId) throw notFound('export_not_found', 'No such export.')
  return presentExport(row)
}

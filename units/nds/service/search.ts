/** Full-text (FTS5 BM25), semantic (vector index) and hybrid (reciprocal rank fusion) search. */
import { badRequest } from '../../../common/errors.ts'
import { canonicalHash } from '../../../common/hash.ts'
import { ftsQuery } from '../rules/query.ts'
import type { FilterHit, SearchFilters } from '../store.ts'
import type { NdsDeps } from './deps.ts'
import { presentSummary } from './present.ts'

/** RRF's constant (Cormack et al. 2009): damps the weight of the very first ranks. */
export const RRF_K = 60
const HYBRID_DEPTH = 50

interface CursorState {
  f: string
  s: number | null
  k: string
  i: number
}

const fingerprint = (query: string | undefined, filters: SearchFilters | undefined) =>
  canonicalHash({ query: query ?? null, filters: filters ?? {} }).slice(0, 16)

const encodeCursor = (c: CursorState) => Buffer.from(JSON.stringify(c)).toString('base64url')

function decodeCursor(raw: string, expected: string): CursorState {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as CursorState
    if (
      c.f === expected &&
      (typeof c.s === 'number' || c.s === null) &&
      typeof c.k === 'string' &&
      Number.isInteger(c.i)
    )
      return c
  } catch {
    // fall through
  }
  throw badRequest('invalid_cursor', 'The cursor is malformed or belongs to another query.')
}

const toResult = (h: FilterHit) => ({ ...presentSummary(h.row), score: h.score, snippet: h.snippet })

export interface FilterQuery {
  query?: string
  filters?: SearchFilters
  limit?: number
  cursor?: string
}

export async function filterSearch(deps: NdsDeps, body: FilterQuery) {
  const started = performance.now()
  const limit = body.limit ?? 20
  const match = ftsQuery(body.query)
  const fp = fingerprint(match, body.filters)
  const after = body.cursor ? decodeCursor(body.cursor, fp) : undefined
  const hits = await deps.store.filterSearch({
    match,
    filters: body.filters ?? {},
    after: after ? { score: after.s, key: after.k, seq: after.i } : undefined,
    limit: limit + 1,
  })
  const page = hits.slice(0, limit)
  const last = page.at(-1)
  const next =
    hits.length > limit && last
      ? encodeCursor({ f: fp, s: last.score, k: last.row.publishedAt ?? '', i: last.seq })
      : null
  const took = performance.now() - started
  deps.metrics.searchSeconds.observe({ kind: 'filter' }, took / 1000)
  return {
    results: page.map(toResult),
    next_cursor: next,
    ranking: match ? 'bm25' : 'published_desc',
    took_ms: Math.round(took * 100) / 100,
  }
}

export interface SemanticQuery {
  query: string
  filters?: SearchFilters
  limit?: number
  hybrid?: boolean
}

export async function semanticSearch(deps: NdsDeps, body: SemanticQuery) {
  const started = performance.now()
  const limit = body.limit ?? 10
  const [vector] = await deps.embedder.embed([body.query])
  const allowed = await deps.store.allowedSeqs(body.filters ?? {})
  const depth = body.hybrid ? Math.max(HYBRID_DEPTH, limit) : limit
  const semantic = vector ? await deps.store.semanticCandidates(vector, depth, allowed) : []
  let ranked: { seq: number; score: number }[]
  if (body.hybrid) {
    const match = ftsQuery(body.query)
    const lexical = match
      ? await deps.store.filterSearch({ match, filters: body.filters ?? {}, limit: HYBRID_DEPTH })
      : []
    const fused = new Map<number, number>()
    const fuse = (seq: number, rank: number) => {
      fused.set(seq, (fused.get(seq) ?? 0) + 1 / (RRF_K + rank + 1))
    }
    for (const [rank, c] of semantic.entries()) fuse(c.seq, rank)
    for (const [rank, h] of lexical.entries()) fuse(h.seq, rank)
    ranked = [...fused.entries()]
      .map(([seq, score]) => ({ seq, score }))
      .sort((a, b) => b.score - a.score || a.seq - b.seq)
      .slice(0, limit)
  } else {
    ranked = semantic.slice(0, limit)
  }
  const rows = await deps.store.articlesBySeq(ranked.map((r) => r.seq))
  const results = ranked.flatMap((r) => {
    const row = rows.get(r.seq)
    return row
      ? [
          {
            ...presentSummary(row),
            score: Math.round(r.score * 1e6) / 1e6,
            snippet: row.body.slice(0, 200) || null,
          },
        ]
      : []
  })
  const took = performance.now() - started
  deps.metrics.searchSeconds.observe({ kind: body.hybrid ? 'hybrid' : 'semantic' }, took / 1000)
  return {
    results,
    next_cursor: null,
    ranking: body.hybrid
      ? `rrf(k=${RRF_K}; ${deps.embedder.model} cosine, bm25)`
      : `${deps.embedder.model} cosine`,
    took_ms: Math.round(took * 100) / 100,
  }
}

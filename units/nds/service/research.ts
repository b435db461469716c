/** Research runs: asynchronous analyses over a query, run by the durable queue (runner.ts). */
import { notFound } from '../../../common/errors.ts'
import type { Caller } from '../auth.ts'
import { RESEARCH_ANALYSES } from '../model.ts'
import { ftsQuery } from '../rules/query.ts'
import type { Bucket, RunRow, SearchFilters } from '../store.ts'
import type { NdsDeps } from './deps.ts'
import { presentRun } from './present.ts'

const TOP = 10
/** volume_over_time spans all dates the store holds. */
const ALL_TIME = { from: '0000-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.999Z' }

export interface RunBody {
  query?: string
  filters?: SearchFilters
  analyses?: (typeof RESEARCH_ANALYSES)[number][]
  bucket?: Bucket
}

export async function createRun(deps: NdsDeps, caller: Caller, body: RunBody) {
  const request = {
    query: body.query ?? null,
    filters: body.filters ?? {},
    analyses: body.analyses ?? [...RESEARCH_ANALYSES],
    bucket: body.bucket ?? 'day',
  }
  const run = await deps.store.insertRun(caller.accountId, request)
  deps.kickRuns()
  return presentRun(run)
}

export async function getRun(deps: NdsDeps, caller: Caller, runId: string) {
  const run = await deps.store.getRun(runId)
  if (!run || run.accountId !== caller.accountId)
    throw notFound('research_run_not_found', 'No such research run.')
  return presentRun(run)
}

export async function executeRun(deps: NdsDeps, run: RunRow): Promise<void> {
  const req = run.request as {
    query: string | null
    filters: SearchFilters
    analyses: string[]
    bucket: Bucket
  }
  const sel = { match: ftsQuery(req.query ?? undefined), filters: req.filters ?? {} }
  const results: Record<string, unknown> = {}
  for (const analysis of req.analyses) {
    if (analysis === 'volume_over_time')
      results[analysis] = await deps.store.articleBuckets({ ...sel, ...ALL_TIME, bucket: req.bucket })
    if (analysis === 'top_sources') results[analysis] = await deps.store.topSources(sel, TOP)
    if (analysis === 'top_entities') results[analysis] = await deps.store.topEntities(sel, TOP)
    if (analysis === 'cluster_summaries') results[analysis] = await deps.store.clusterSummaries(sel, TOP)
  }
  await deps.store.finishRun(run.runId, 'succeeded', results, null)
}

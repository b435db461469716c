/** Rows to wire shapes (snake_case, as the routes publish them). */
import type { ArticleRow, EvidenceRow, JobRow, RunRow } from '../store.ts'

export const presentJob = (j: JobRow) => ({
  job_id: j.jobId,
  source: j.source,
  mode: j.mode,
  state: j.state as 'queued' | 'running' | 'succeeded' | 'partially_failed' | 'failed',
  attempts: j.attempts,
  request: j.request,
  counts: j.counts,
  errors: j.errors,
  created_at: j.createdAt,
  started_at: j.startedAt,
  finished_at: j.finishedAt,
})

export const presentSummary = (a: ArticleRow) => ({
  article_id: a.articleId,
  title: a.title,
  canonical_url: a.canonicalUrl,
  source: a.source,
  source_name: a.sourceName,
  language: a.language,
  published_at: a.publishedAt,
  version: a.version,
  cluster_id: a.clusterId,
  is_representative: a.clusterId === a.articleId,
})

export const presentArticle = (a: ArticleRow) => ({
  ...presentSummary(a),
  body: a.body,
  entities: a.entities,
  content_hash: a.contentHash,
  first_seen_at: a.firstSeenAt,
  updated_at: a.updatedAt,
})

export const presentRun = (r: RunRow) => ({
  run_id: r.runId,
  state: r.state as 'queued' | 'running' | 'succeeded' | 'failed',
  request: r.request,
  attempts: r.attempts,
  results: r.results,
  error: r.error,
  created_at: r.createdAt,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
})

export const presentEvidence = (e: EvidenceRow) => ({
  evidence_id: e.evidenceId,
  kind: e.kind,
  ref: e.ref,
  origin: e.origin,
  detail: e.detail,
  added_at: e.addedAt,
})

/** Support cases with evidence (articles, searches, snapshots, exports, runs, jobs) and enrichment. */
import { notFound, unprocessable } from '../../../common/errors.ts'
import type { Caller } from '../auth.ts'
import type { EVIDENCE_KINDS } from '../model.ts'
import { ftsQuery } from '../rules/query.ts'
import type { NdsDeps } from './deps.ts'
import { presentEvidence } from './present.ts'

type Kind = (typeof EVIDENCE_KINDS)[number]
const ENRICH_SEARCH_RESULTS = 5
const ENRICH_JOB_ARTICLES = 10

/** What the evidence refers to, resolved for this account; undefined when it does not exist for it. */
async function resolve(
  deps: NdsDeps,
  caller: Caller,
  kind: Kind,
  ref: string,
): Promise<Record<string, unknown> | undefined> {
  const owned = <T extends { accountId: string }>(row: T | undefined) =>
    row && row.accountId === caller.accountId ? row : undefined
  switch (kind) {
    case 'article': {
      const a = await deps.store.getArticle(ref)
      return (
        a && { title: a.title, canonical_url: a.canonicalUrl, version: a.version, cluster_id: a.clusterId }
      )
    }
    case 'search':
      return { query: ref }
    case 'snapshot': {
      const s = owned(await deps.store.getSnapshot(ref))
      return s && { counts: s.manifest.counts, created_at: s.createdAt }
    }
    case 'export': {
      const e = owned(await deps.store.getExport(ref))
      return e && { format: e.format, sha256: e.sha256, created_at: e.createdAt }
    }
    case 'research_run': {
      const r = owned(await deps.store.getRun(ref))
      return r && { state: r.state, created_at: r.createdAt }
    }
    case 'job': {
      const j = owned(await deps.store.getJob(ref))
      return j && { source: j.source, mode: j.mode, state: j.state, counts: j.counts }
    }
  }
}

async function ownedCase(deps: NdsDeps, caller: Caller, caseId: string) {
  const c = await deps.store.getCase(caseId)
  if (!c || c.accountId !== caller.accountId)
    throw notFound('support_case_not_found', 'No such support case.')
  return c
}

export async function openCase(
  deps: NdsDeps,
  caller: Caller,
  accountId: string,
  body: { subject: string; description: string; evidence?: { kind: Kind; ref: string }[] },
) {
  if (accountId !== caller.accountId || !(await deps.store.getAccount(accountId))) {
    throw notFound('account_not_found', 'No such account.')
  }
  const items: { kind: string; ref: string; origin: string; detail: Record<string, unknown> }[] = []
  const missing: { kind: string; ref: string }[] = []
  for (const e of body.evidence ?? []) {
    const detail = await resolve(deps, caller, e.kind, e.ref)
    if (detail) items.push({ kind: e.kind, ref: e.ref, origin: 'customer', detail })
    else missing.push(e)
  }
  if (missing.length > 0)
    throw unprocessable('evidence_not_found', 'Some evidence does not exist for this account.', { missing })
  const c = await deps.store.insertCase({ accountId, subject: body.subject, description: body.description })
  await deps.store.addEvidence(c.caseId, items)
  return {
    case_id: c.caseId,
    account_id: c.accountId,
    subject: c.subject,
    state: c.state,
    created_at: c.createdAt,
    evidence: (await deps.store.caseEvidence(c.caseId)).map(presentEvidence),
  }
}

export async function caseEvidence(deps: NdsDeps, caller: Caller, caseId: string) {
  await ownedCase(deps, caller, caseId)
  return { case_id: caseId, evidence: (await deps.store.caseEvidence(caseId)).map(presentEvidence) }
}

/**
 * Attach what the evidence points at: an article's near-duplicates, a search's top results, the
 * articles a job wrote. Idempotent: an item already attached is not added twice.
 */
export async function enrichCase(deps: NdsDeps, caller: Caller, caseId: string) {
  await ownedCase(deps, caller, caseId)
  const existing = await deps.store.caseEvidence(caseId)
  const related: { kind: string; ref: string; origin: string; detail: Record<string, unknown> }[] = []
  const article = (
    row: { articleId: string; title: string; canonicalUrl: string },
    reason: string,
    of: string,
  ) => ({
    kind: 'article',
    ref: row.articleId,
    origin: 'enrichment',
    detail: { reason, of, title: row.title, canonical_url: row.canonicalUrl },
  })
  for (const e of existing) {
    if (e.kind === 'article') {
      const a = await deps.store.getArticle(e.ref)
      if (!a) continue
      for (const m of await deps.store.clusterMembers(a.clusterId)) {
        if (m.articleId !== a.articleId) related.push(article(m, 'same_duplicate_cluster', e.ref))
      }
    } else if (e.kind === 'search') {
      const match = ftsQuery(e.ref)
      if (!match) continue
      const hits = await deps.store.filterSearch({ match, filters: {}, limit: ENRICH_SEARCH_RESULTS })
      for (const h of hits) related.push(article(h.row, 'search_result', e.ref))
    } else if (e.kind === 'job') {
      for (const a of await deps.store.articlesOfJob(e.ref, ENRICH_JOB_ARTICLES))
        related.push(article(a, 'written_by_job', e.ref))
    }
  }
  const added = await deps.store.addEvidence(caseId, related)
  return { case_id: caseId, added, evidence: (await deps.store.caseEvidence(caseId)).map(presentEvidence) }
}

/** Articles are shared data: every key reads every article; unknown ids are 404. */
import { notFound } from '../../../common/errors.ts'
import { fromBytes, similarity } from '../rules/minhash.ts'
import type { NdsDeps } from './deps.ts'
import { presentArticle, presentSummary } from './present.ts'

async function article(deps: NdsDeps, articleId: string) {
  const row = await deps.store.getArticle(articleId)
  if (!row) throw notFound('article_not_found', 'No such article.')
  return row
}

export async function getArticle(deps: NdsDeps, articleId: string) {
  return presentArticle(await article(deps, articleId))
}

export async function getVersions(deps: NdsDeps, articleId: string) {
  await article(deps, articleId)
  const versions = await deps.store.articleVersions(articleId)
  return {
    article_id: articleId,
    versions: versions.map((v) => ({
      version: v.version,
      content_hash: v.contentHash,
      title: v.title,
      body: v.body,
      published_at: v.publishedAt,
      job_id: v.jobId,
      recorded_at: v.recordedAt,
    })),
  }
}

/** The article's cluster: members with their SimHash similarity to the representative. */
export async function getCluster(deps: NdsDeps, articleId: string) {
  const row = await article(deps, articleId)
  const members = await deps.store.clusterMembers(row.clusterId)
  const representative = members.find((m) => m.articleId === row.clusterId) ?? row
  const rep = fromBytes(representative.minhash)
  return {
    cluster_id: row.clusterId,
    representative_article_id: representative.articleId,
    method:
      'minhash (60 permutations, 20 LSH bands) over word 3-shingles; estimated Jaccard >= 0.5 to a member',
    members: members.map((m) => ({
      ...presentSummary(m),
      similarity: similarity(rep, fromBytes(m.minhash)),
    })),
  }
}

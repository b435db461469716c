/**
 * Delivery records as PWS stores them (normalized from GitHub, GitLab and Gitea shapes) and the
 * views computed from them: review queue, branch queue, release readiness, health summary.
 */

export const PROVIDERS = ['github', 'gitlab', 'gitea'] as const
export type Provider = (typeof PROVIDERS)[number]

export interface PullRequestData {
  number: number
  title: string
  url: string | null
  author: string | null
  head_branch: string
  base_branch: string
  draft: boolean
  review_decision: 'approved' | 'changes_requested' | 'review_required' | 'commented' | 'closed'
  approval_count: number
  requested_reviewer_count: number
  changes_requested_count: number
  comment_count: number
  updated_at: string
}

export interface BranchData {
  name: string
  last_commit_at: string | null
  is_default: boolean
  protected: boolean
}

export interface PipelineData {
  ref: string
  status: string
  created_at: string
  updated_at: string
}

export interface DeploymentData {
  environment: string
  ref: string
  status: string
  created_at: string
}

export interface ReleaseData {
  name: string
  tag: string
  draft: boolean
  prerelease: boolean
  published_at: string | null
}

export interface EnvironmentData {
  name: string
  updated_at: string | null
}

export const isActionableReview = (state: string, pr: PullRequestData) =>
  state === 'open' && !pr.draft && pr.review_decision !== 'approved'

export const isRiskyReview = (state: string, pr: PullRequestData) =>
  state === 'open' && (pr.review_decision === 'changes_requested' || pr.changes_requested_count > 0)

// ---------- branch freshness ----------

/** A branch with no commit for this long is aging, then stale. */
export const AGING_AFTER_DAYS = 7
export const STALE_AFTER_DAYS = 30
const DAY_MS = 86_400_000

export type Freshness = 'stale' | 'aging' | 'fresh' | 'default'
export const FRESHNESS_VALUES: Freshness[] = ['stale', 'aging', 'fresh', 'default']

export function branchAgeDays(b: BranchData, nowMs: number): number {
  if (!b.last_commit_at) return 0
  return Math.max(0, Math.floor((nowMs - Date.parse(b.last_commit_at)) / DAY_MS))
}

export function freshnessOf(b: BranchData, nowMs: number): Freshness {
  if (b.is_default) return 'default'
  const age = branchAgeDays(b, nowMs)
  if (age >= STALE_AFTER_DAYS) return 'stale'
  if (age >= AGING_AFTER_DAYS) return 'aging'
  return 'fresh'
}

export function branchRisks(b: BranchData, nowMs: number, hasOpenReview: boolean): string[] {
  const risks: string[] = []
  const freshness = freshnessOf(b, nowMs)
  if (freshness === 'stale') risks.push('no_commit_in_30_days')
  else if (freshness === 'aging') risks.push('no_commit_in_7_days')
  if (!b.is_default && !hasOpenReview) risks.push('no_open_review')
  if (b.is_default && !b.protected) risks.push('default_branch_unprotected')
  if (!b.last_commit_at) risks.push('last_commit_unknown')
  return risks
}

// ---------- pipelines, deployments, releases ----------

const FAILED = new Set(['failed', 'failure', 'error', 'cancelled', 'canceled', 'timed_out'])
const SUCCEEDED = new Set(['success', 'succeeded', 'passed'])
export const isFailedStatus = (s: string | null) => s !== null && FAILED.has(s)
export const isSucceededStatus = (s: string | null) => s !== null && SUCCEEDED.has(s)

export type GateState = 'blocked' | 'review' | 'ready' | 'published'

export interface ReleaseGateInput {
  release: ReleaseData
  latestPipelineStatus: string | null
  latestDeploymentStatus: string | null
  linkedReviewCount: number
  riskyReviewCount: number
}

export function releaseGate(i: ReleaseGateInput): { gate_state: GateState; gate_reasons: string[] } {
  if (!i.release.draft && i.release.published_at) return { gate_state: 'published', gate_reasons: [] }
  const reasons: string[] = []
  if (isFailedStatus(i.latestPipelineStatus)) reasons.push('latest_pipeline_failed')
  if (isFailedStatus(i.latestDeploymentStatus)) reasons.push('latest_deployment_failed')
  if (i.riskyReviewCount > 0) reasons.push('risky_reviews_unresolved')
  if (reasons.length > 0) return { gate_state: 'blocked', gate_reasons: reasons }
  if (i.linkedReviewCount > 0) return { gate_state: 'review', gate_reasons: ['open_reviews'] }
  if (i.latestPipelineStatus === null) return { gate_state: 'review', gate_reasons: ['no_pipeline_seen'] }
  if (!isSucceededStatus(i.latestPipelineStatus))
    return { gate_state: 'review', gate_reasons: ['pipeline_not_green'] }
  return { gate_state: 'ready', gate_reasons: [] }
}

/** The newest of a list by a timestamp field. */
export function newest<T>(items: T[], at: (item: T) => string | null): T | undefined {
  let best: T | undefined
  let bestAt = ''
  for (const item of items) {
    const t = at(item) ?? ''
    if (best === undefined || t > bestAt) {
      best = item
      bestAt = t
    }
  }
  return best
}

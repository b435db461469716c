/**
 * Code-host REST clients: GitHub, GitLab and Gitea (base URL and token per provider). Each reads
 * one repository's pull requests, branches, pipelines, deployments, releases and environments,
 * following `Link: <…>; rel="next"` pagination, and maps them to PWS's delivery records.
 */
import { callPeer } from '../../common/peer.ts'
import type {
  BranchData,
  DeploymentData,
  EnvironmentData,
  PipelineData,
  Provider,
  PullRequestData,
  ReleaseData,
} from './rules/delivery.ts'
import type { ProviderSettings } from './service/deps.ts'

export interface Fetched<D> {
  externalId: string
  state: string
  data: D
}

export interface RepositorySnapshot {
  pull_request: Fetched<PullRequestData>[]
  branch: Fetched<BranchData>[]
  pipeline: Fetched<PipelineData>[]
  deployment: Fetched<DeploymentData>[]
  release: Fetched<ReleaseData>[]
  environment: Fetched<EnvironmentData>[]
}

export class ProviderError extends Error {
  constructor(
    readonly provider: Provider,
    message: string,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

/** Pages followed at most per list: 100 items each, so 5 000 items per resource. */
export const MAX_PAGES = 50
const PER_PAGE = 100

type J = Record<string, unknown>
const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v)
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
const obj = (v: unknown): J => (v !== null && typeof v === 'object' ? (v as J) : {})
const arr = (v: unknown): J[] => (Array.isArray(v) ? (v as J[]) : [])

/** The URL of the next page from a `Link` header, if any. */
export function nextLink(link: string | null): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part)
    if (m) return m[1]
  }
  return undefined
}

interface Client {
  get(path: string): Promise<unknown>
  list(path: string, pick?: (body: unknown) => unknown[]): Promise<J[]>
  /** A resource not every server has (workflow runs, deployments, environments): 404 is an empty list. */
  optionalList(path: string, pick?: (body: unknown) => unknown[]): Promise<J[]>
  send(method: 'PATCH' | 'PUT' | 'POST', path: string, json: unknown): Promise<unknown>
}

function client(provider: Provider, s: ProviderSettings, timeoutMs: number): Client {
  const headers: Record<string, string> = {}
  if (s.token) {
    if (provider === 'gitlab') headers['private-token'] = s.token
    else headers.authorization = provider === 'gitea' ? `token ${s.token}` : `Bearer ${s.token}`
  }
  if (provider === 'github') headers.accept = 'application/vnd.github+json'
  const call = async (
    url: string,
    method: 'GET' | 'PATCH' | 'PUT' | 'POST' = 'GET',
    json?: unknown,
    acceptStatus?: number[],
  ) => {
    const res = await callPeer({ url, method, headers, json, timeoutMs, acceptStatus })
    if (!res.ok)
      throw new ProviderError(provider, `${method} ${new URL(url).pathname}: ${res.reason} ${res.message}`)
    return res
  }
  const abs = (path: string) => `${s.baseUrl}${path}`
  const pages = async (path: string, pick: (body: unknown) => unknown[], optional: boolean) => {
    const out: J[] = []
    let url: string | undefined = abs(`${path}${path.includes('?') ? '&' : '?'}per_page=${PER_PAGE}`)
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const res = await call(url, 'GET', undefined, optional ? [404] : undefined)
      if (res.status === 404) return out
      out.push(...(pick(res.body) as J[]))
      url = nextLink(res.headers.get('link'))
    }
    return out
  }
  const asArray = (b: unknown) => (Array.isArray(b) ? b : [])
  return {
    get: async (path) => (await call(abs(path))).body,
    list: (path, pick = asArray) => pages(path, pick, false),
    optionalList: (path, pick = asArray) => pages(path, pick, true),
    send: async (method, path, json) => (await call(abs(path), method, json)).body,
  }
}

const reviewDecision = (states: string[]): PullRequestData['review_decision'] => {
  if (states.includes('CHANGES_REQUESTED') || states.includes('REQUEST_CHANGES')) return 'changes_requested'
  if (states.includes('APPROVED')) return 'approved'
  if (states.includes('COMMENTED') || states.includes('COMMENT')) return 'commented'
  return 'review_required'
}

/** The latest review per reviewer decides (GitHub and Gitea semantics). */
function latestReviewStates(reviews: J[]): string[] {
  const byUser = new Map<string, string>()
  for (const r of reviews) byUser.set(str(obj(r.user).login) || str(obj(r.user).username), str(r.state))
  return [...byUser.values()]
}

/** GitHub's REST API (also Gitea's, which follows it for these resources). */
async function githubLike(provider: Provider, c: Client, repo: string): Promise<RepositorySnapshot> {
  const base = `/repos/${repo}`
  const meta = obj(await c.get(base))
  const defaultBranch = str(meta.default_branch) || 'main'
  const pulls = await c.list(`${base}/pulls?state=all`)
  const pull_request: Fetched<PullRequestData>[] = []
  for (const p of pulls) {
    const merged = Boolean(p.merged_at) || p.merged === true
    const state = merged ? 'merged' : str(p.state) === 'open' ? 'open' : 'closed'
    const reviews = state === 'open' ? await c.list(`${base}/pulls/${str(p.number)}/reviews`) : []
    const states = latestReviewStates(reviews)
    pull_request.push({
      externalId: str(p.number),
      state,
      data: {
        number: Number(p.number),
        title: str(p.title),
        url: strOrNull(p.html_url),
        author: strOrNull(obj(p.user).login),
        head_branch: str(obj(p.head).ref),
        base_branch: str(obj(p.base).ref),
        draft: p.draft === true,
        review_decision: state === 'open' ? reviewDecision(states) : 'closed',
        approval_count: states.filter((s) => s === 'APPROVED').length,
        requested_reviewer_count: arr(p.requested_reviewers).length,
        changes_requested_count: states.filter((s) => s === 'CHANGES_REQUESTED' || s === 'REQUEST_CHANGES')
          .length,
        comment_count: Number(p.comments ?? 0) + reviews.filter((r) => str(r.body) !== '').length,
        updated_at: str(p.updated_at),
      },
    })
  }
  const branch: Fetched<BranchData>[] = []
  for (const b of await c.list(`${base}/branches`)) {
    const commit = obj(b.commit)
    let at = strOrNull(commit.timestamp) ?? strOrNull(obj(obj(commit.commit).committer).date)
    if (!at && commit.sha) {
      const full = obj(await c.get(`${base}/commits/${str(commit.sha)}`))
      at = strOrNull(obj(obj(full.commit).committer).date)
    }
    const name = str(b.name)
    branch.push({
      externalId: name,
      state: 'active',
      data: { name, last_commit_at: at, is_default: name === defaultBranch, protected: b.protected === true },
    })
  }
  const runs = await c.optionalList(`${base}/actions/runs`, (body) => arr(obj(body).workflow_runs))
  const pipeline = runs.map((r) => {
    const status = str(r.status) === 'completed' ? str(r.conclusion) : str(r.status)
    return {
      externalId: str(r.id),
      state: status,
      data: { ref: str(r.head_branch), status, created_at: str(r.created_at), updated_at: str(r.updated_at) },
    }
  })
  const deployment: Fetched<DeploymentData>[] = []
  if (provider === 'github') {
    for (const d of await c.optionalList(`${base}/deployments`)) {
      const statuses = arr(await c.get(`${base}/deployments/${str(d.id)}/statuses`))
      const status = statuses.length > 0 ? str(statuses[0]?.state) : 'pending'
      deployment.push({
        externalId: str(d.id),
        state: status,
        data: { environment: str(d.environment), ref: str(d.ref), status, created_at: str(d.created_at) },
      })
    }
  }
  const release = (await c.list(`${base}/releases`)).map((r) => ({
    externalId: str(r.id),
    state: r.draft === true ? 'draft' : 'published',
    data: {
      name: str(r.name) || str(r.tag_name),
      tag: str(r.tag_name),
      draft: r.draft === true,
      prerelease: r.prerelease === true,
      published_at: strOrNull(r.published_at),
    },
  }))
  const environment =
    provider === 'github'
      ? (await c.optionalList(`${base}/environments`, (body) => arr(obj(body).environments))).map((e) => ({
          externalId: str(e.name),
          state: 'active',
          data: { name: str(e.name), updated_at: strOrNull(e.updated_at) },
        }))
      : []
  return { pull_request, branch, pipeline, deployment, release, environment }
}

const GITLAB_STATUS: Record<string, string> = { success: 'success', failed: 'failed', canceled: 'cancelled' }

async function gitlab(c: Client, repo: string): Promise<RepositorySnapshot> {
  const base = `/projects/${encodeURIComponent(repo)}`
  const meta = obj(await c.get(base))
  const defaultBranch = str(meta.default_branch) || 'main'
  const pull_request: Fetched<PullRequestData>[] = []
  for (const m of await c.list(`${base}/merge_requests?state=all`)) {
    const state = str(m.state) === 'opened' ? 'open' : str(m.state) === 'merged' ? 'merged' : 'closed'
    const approvals =
      state === 'open' ? obj(await c.get(`${base}/merge_requests/${str(m.iid)}/approvals`)) : {}
    const approved = arr(approvals.approved_by).length
    pull_request.push({
      externalId: str(m.iid),
      state,
      data: {
        number: Number(m.iid),
        title: str(m.title),
        url: strOrNull(m.web_url),
        author: strOrNull(obj(m.author).username),
        head_branch: str(m.source_branch),
        base_branch: str(m.target_branch),
        draft: m.draft === true || m.work_in_progress === true,
        review_decision:
          state !== 'open'
            ? 'closed'
            : approved > 0
              ? 'approved'
              : m.has_conflicts
                ? 'changes_requested'
                : 'review_required',
        approval_count: approved,
        requested_reviewer_count: arr(m.reviewers).length,
        changes_requested_count: 0,
        comment_count: Number(m.user_notes_count ?? 0),
        updated_at: str(m.updated_at),
      },
    })
  }
  const branch = (await c.list(`${base}/repository/branches`)).map((b) => {
    const name = str(b.name)
    return {
      externalId: name,
      state: 'active',
      data: {
        name,
        last_commit_at: strOrNull(obj(b.commit).committed_date),
        is_default: b.default === true || name === defaultBranch,
        protected: b.protected === true,
      },
    }
  })
  const pipeline = (await c.optionalList(`${base}/pipelines`)).map((p) => {
    const status = GITLAB_STATUS[str(p.status)] ?? str(p.status)
    return {
      externalId: str(p.id),
      state: status,
      data: { ref: str(p.ref), status, created_at: str(p.created_at), updated_at: str(p.updated_at) },
    }
  })
  const deployment = (await c.optionalList(`${base}/deployments`)).map((d) => ({
    externalId: str(d.id),
    state: str(d.status),
    data: {
      environment: str(obj(d.environment).name),
      ref: str(d.ref),
      status: str(d.status),
      created_at: str(d.created_at),
    },
  }))
  const release = (await c.list(`${base}/releases`)).map((r) => ({
    externalId: str(r.tag_name),
    state: r.upcoming_release === true ? 'draft' : 'published',
    data: {
      name: str(r.name) || str(r.tag_name),
      tag: str(r.tag_name),
      draft: r.upcoming_release === true,
      prerelease: false,
      published_at: strOrNull(r.released_at),
    },
  }))
  const environment = (await c.optionalList(`${base}/environments`)).map((e) => ({
    externalId: str(e.name),
    state: str(e.state) || 'available',
    data: { name: str(e.name), updated_at: strOrNull(e.updated_at) },
  }))
  return { pull_request, branch, pipeline, deployment, release, environment }
}

export async function fetchRepository(
  provider: Provider,
  settings: ProviderSettings,
  repo: string,
  timeoutMs: number,
): Promise<RepositorySnapshot> {
  const c = client(provider, settings, timeoutMs)
  return provider === 'gitlab' ? gitlab(c, repo) : githubLike(provider, c, repo)
}

/** Close or reopen a pull request (merge request) at the provider. */
export async function setPullRequestState(
  provider: Provider,
  settings: ProviderSettings,
  repo: string,
  number: string,
  state: 'closed' | 'open',
  timeoutMs: number,
): Promise<void> {
  const c = client(provider, settings, timeoutMs)
  if (provider === 'gitlab') {
    await c.send('PUT', `/projects/${encodeURIComponent(repo)}/merge_requests/${number}`, {
      state_event: state === 'closed' ? 'close' : 'reopen',
    })
  } else {
    await c.send('PATCH', `/repos/${repo}/pulls/${number}`, { state })
  }
}

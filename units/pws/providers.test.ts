/** The GitLab and Gitea clients against fakes speaking their REST shapes (GitHub: routes/delivery.test.ts). */
import { afterAll, describe, expect, test } from 'bun:test'
import { fakePeer, json } from '../../test/harness.ts'
import { fetchRepository, nextLink, setPullRequestState } from './providers.ts'

const now = new Date().toISOString()
const gitlab = fakePeer((req) => {
  if (req.headers.get('private-token') !== 'glpat-x') return json({ message: '401 Unauthorized' }, 401)
  const url = new URL(req.path, 'http://x')
  const base = '/api/v4/projects/acme%2Fops'
  if (req.method === 'PUT' && url.pathname === `${base}/merge_requests/7`)
    return json({ iid: 7, state: 'closed' })
  switch (url.pathname) {
    case base:
      return json({ path_with_namespace: 'acme/ops', default_branch: 'trunk' })
    case `${base}/merge_requests`: {
      const page = url.searchParams.get('page') ?? '1'
      const mr = (iid: number, state: string) => ({
        iid,
        title: `MR ${iid}`,
        state,
        web_url: null,
        author: { username: 'dev' },
        source_branch: `b${iid}`,
        target_branch: 'trunk',
        draft: false,
        reviewers: [{ username: 'r' }],
        user_notes_count: 4,
        updated_at: now,
      })
      const headers =
        page === '1'
          ? { link: `<${gitlab.url}${base}/merge_requests?state=all&per_page=100&page=2>; rel="next"` }
          : {}
      return Response.json(page === '1' ? [mr(7, 'opened')] : [mr(8, 'merged')], { headers })
    }
    case `${base}/merge_requests/7/approvals`:
      return json({ approved_by: [{ user: { username: 'r' } }] })
    case `${base}/repository/branches`:
      return json([{ name: 'trunk', default: true, protected: true, commit: { committed_date: now } }])
    case `${base}/pipelines`:
      return json([{ id: 1, ref: 'trunk', status: 'failed', created_at: now, updated_at: now }])
    case `${base}/deployments`:
      return json([
        { id: 2, ref: 'trunk', status: 'success', created_at: now, environment: { name: 'prod' } },
      ])
    case `${base}/releases`:
      return json([{ tag_name: 'v2', name: 'v2', released_at: now }])
    case `${base}/environments`:
      return json([{ name: 'prod', state: 'available', updated_at: now }])
    default:
      return json({ message: '404 Not Found' }, 404)
  }
})
const gitea = fakePeer((req) => {
  if (req.headers.get('authorization') !== 'token gt-x') return json({ message: 'token' }, 401)
  const p = new URL(req.path, 'http://x').pathname
  if (p === '/api/v1/repos/acme/web') return json({ default_branch: 'main' })
  if (p === '/api/v1/repos/acme/web/pulls')
    return json([
      {
        number: 3,
        title: 'x',
        state: 'open',
        user: { login: 'u' },
        head: { ref: 'f' },
        base: { ref: 'main' },
        updated_at: now,
      },
    ])
  if (p === '/api/v1/repos/acme/web/pulls/3/reviews')
    return json([{ user: { login: 'r' }, state: 'REQUEST_CHANGES', body: 'no' }])
  if (p === '/api/v1/repos/acme/web/branches')
    return json([{ name: 'main', protected: false, commit: { timestamp: now } }])
  if (p === '/api/v1/repos/acme/web/releases') return json([])
  return json({ message: 'not found' }, 404)
})
afterAll(() => {
  gitlab.stop()
  gitea.stop()
})

describe('provider clients', () => {
  test('GitLab: merge requests across Link pages, approvals, branches, pipelines, deployments, releases, environments', async () => {
    const snap = await fetchRepository(
      'gitlab',
      { baseUrl: `${gitlab.url}/api/v4`, token: 'glpat-x', webhookSecrets: [] },
      'acme/ops',
      2000,
    )
    expect(snap.pull_request.map((p) => [p.externalId, p.state, p.data.review_decision])).toEqual([
      ['7', 'open', 'approved'],
      ['8', 'merged', 'closed'],
    ])
    expect(snap.pull_request[0]?.data).toMatchObject({
      approval_count: 1,
      requested_reviewer_count: 1,
      comment_count: 4,
    })
    expect(snap.branch[0]?.data).toMatchObject({ name: 'trunk', is_default: true })
    expect(snap.pipeline[0]).toMatchObject({ state: 'failed' })
    expect(snap.deployment[0]?.data).toMatchObject({ environment: 'prod', status: 'success' })
    expect(snap.release[0]).toMatchObject({ externalId: 'v2', state: 'published' })
    expect(snap.environment).toHaveLength(1)
    await setPullRequestState(
      'gitlab',
      { baseUrl: `${gitlab.url}/api/v4`, token: 'glpat-x', webhookSecrets: [] },
      'acme/ops',
      '7',
      'closed',
      2000,
    )
    expect(JSON.parse(gitlab.requests.at(-1)?.body ?? '{}')).toEqual({ state_event: 'close' })
  })

  test('Gitea: GitHub-style resources with token auth; missing optional APIs are empty lists', async () => {
    const snap = await fetchRepository(
      'gitea',
      { baseUrl: `${gitea.url}/api/v1`, token: 'gt-x', webhookSecrets: [] },
      'acme/web',
      2000,
    )
    expect(snap.pull_request[0]?.data).toMatchObject({
      review_decision: 'changes_requested',
      changes_requested_count: 1,
    })
    expect(snap.branch[0]?.data).toMatchObject({ is_default: true, last_commit_at: now })
    expect(snap.pipeline).toEqual([])
  })

  test('a wrong token fails the whole fetch; Link parsing takes rel="next" only', async () => {
    await expect(
      fetchRepository(
        'gitea',
        { baseUrl: `${gitea.url}/api/v1`, token: 'wrong', webhookSecrets: [] },
        'acme/web',
        2000,
      ),
    ).rejects.toThrow(/bad_status/)
    expect(nextLink('<https://a/x?page=3>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
      'https://a/x?page=3',
    )
    expect(nextLink('<https://a/x?page=9>; rel="last"')).toBeUndefined()
  })
})

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { hmacHex, signBody } from '../../../common/signature.ts'
import type { Json } from '../../../test/harness.ts'
import { fakeCodeHost } from '../fixtures/code-host.ts'
import { bootPwsAsync } from '../testing.ts'

const TOKEN = 'ghp_fake_token_0123456789'
const SECRET = 'webhook-secret-0123456789'
const host = fakeCodeHost(TOKEN)
const t = await bootPwsAsync({
  PWS_GITHUB_URL: host.peer.url,
  PWS_GITHUB_TOKEN: TOKEN,
  PWS_GITHUB_WEBHOOK_SECRET: SECRET,
})
const P = '/api/v1/projects/app'
beforeAll(() => t.project('app', { primary_repo_ref: { provider: 'github', full_name: 'acme/app' } }))
afterAll(async () => {
  await t.u.dispose()
  host.peer.stop()
})

const get = async (path: string): Promise<Json> => {
  const res = await t.get(`${P}${path}`)
  expect(res.status).toBe(200)
  return res.json()
}

describe('provider ingest', () => {
  test('a signed webhook syncs the bound project from the code host, following Link pagination', async () => {
    const body = JSON.stringify({ action: 'opened', repository: { full_name: 'acme/app' } })
    const unsigned = await t.u.request('/api/v1/integrations/github/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(unsigned.status).toBe(401)
    const forged = await t.u.request('/api/v1/integrations/github/webhook', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signBody(hmacHex('X-Hub-Signature-256'), 'wrong-secret-000000', body),
      },
      body,
    })
    expect(forged.status).toBe(401)
    expect((await get('/delivery/review-queue')).items).toEqual([])
    const res = await t.u.request('/api/v1/integrations/github/webhook', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signBody(hmacHex('X-Hub-Signature-256'), SECRET, body),
      },
      body,
    })
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({
      accepted: true,
      projects: [{ project_id: 'app', result: 'synced' }],
    })
    expect(host.peer.requests.some((r) => r.path.includes('page=2'))).toBe(true)
    expect(host.refused).toBe(0)
    const integration = await get('/integrations/github')
    expect(integration).toMatchObject({ configured: true, webhook_verified: true, last_error: null })
    expect(integration.last_webhook_at).not.toBeNull()
  })

  test('review queue: every open pull request with review counts, linked tasks and groups', async () => {
    const q = await get('/delivery/review-queue')
    expect(q.items.map((i: Json) => i.external_id)).toEqual(['1', '2', '3'])
    expect(q.items[0]).toMatchObject({
      provider: 'github',
      repository_label: 'acme/app',
      review_decision: 'approved',
      approval_count: 1,
      requested_reviewer_count: 1,
      changes_requested_count: 0,
      comment_count: 3,
      actionable: false,
      cycle_keys: [],
      linked_tasks: [],
    })
    expect(q.items[1]).toMatchObject({
      review_decision: 'changes_requested',
      changes_requested_count: 1,
      risky: true,
    })
    expect(q.repository_groups).toEqual([{ repository_label: 'acme/app', count: 3 }])
    const summary = await get('/active-workflow')
    expect(summary.branch_pr_pressure.actionable_review_pressure).toBe(2)
  })

  test('create-task links a task to a review item; cycle and module keys follow the task', async () => {
    const res = await t.send('POST', `${P}/delivery/review-queue/github/2/create-task`, {})
    expect(res.status).toBe(201)
    const { task } = await res.json()
    expect(task).toMatchObject({
      lane: 'review',
      source_reference_type: 'pull_request',
      source_reference: 'github:2',
      external_truth: true,
      source_truth_owner: 'github',
    })
    const again = await t.send('POST', `${P}/delivery/review-queue/github/2/create-task`, {})
    expect(again.status).toBe(200)
    expect((await again.json()).task.task_key).toBe(task.task_key)
    const q = await get('/delivery/review-queue')
    expect(q.items[1].linked_tasks).toEqual([{ task_key: task.task_key, lane: 'review' }])
    expect((await t.send('POST', `${P}/delivery/review-queue/github/999/create-task`, {})).status).toBe(404)
  })

  test('branch queue: freshness stale, aging, fresh, default with ages and risks', async () => {
    const b = await get('/delivery/branch-queue')
    const byName = Object.fromEntries(b.items.map((i: Json) => [i.name, i]))
    expect(byName.main).toMatchObject({ freshness_state: 'default', age_days: 0, risk_reasons: [] })
    expect(byName['feature/login']).toMatchObject({ freshness_state: 'fresh', age_days: 2, risk_reasons: [] })
    expect(byName['topic-2']).toMatchObject({
      freshness_state: 'aging',
      age_days: 10,
      risk_reasons: ['no_commit_in_7_days'],
    })
    expect(byName['old-spike']).toMatchObject({ freshness_state: 'stale', age_days: 45 })
    expect(byName['old-spike'].risk_reasons).toEqual(['no_commit_in_30_days', 'no_open_review'])
    expect(b.freshness_groups).toEqual([
      { freshness_state: 'stale', count: 1 },
      { freshness_state: 'aging', count: 1 },
      { freshness_state: 'fresh', count: 1 },
      { freshness_state: 'default', count: 1 },
    ])
    const created = await t.send(
      'POST',
      `${P}/delivery/branch-queue/github/${encodeURIComponent('feature/login')}/create-task`,
      {},
    )
    expect(created.status).toBe(201)
    expect((await created.json()).task.source_reference).toBe('github:feature/login')
    const odd = await t.send(
      'POST',
      `${P}/delivery/branch-queue/github/${encodeURIComponent('100% done')}/create-task`,
      {},
    )
    expect(odd.status).toBe(404)
  })

  test('release readiness, pipelines, deployments and the health summary come from stored data', async () => {
    const r = await get('/delivery/release-readiness')
    const byTag = Object.fromEntries(r.items.map((i: Json) => [i.tag, i]))
    expect(byTag['v1.0.0']).toMatchObject({ gate_state: 'published' })
    expect(byTag['v1.1.0']).toMatchObject({
      gate_state: 'blocked',
      latest_pipeline_status: 'success',
      latest_deployment_status: 'success',
      linked_review_count: 3,
      risky_review_count: 1,
      gate_reasons: ['risky_reviews_unresolved'],
    })
    expect(r).toMatchObject({ blocked_count: 1, review_count: 0, ready_count: 0, published_count: 1 })
    expect((await get('/delivery/pipelines')).items).toHaveLength(3)
    expect((await get('/delivery/deployments')).items[0]).toMatchObject({
      environment: 'production',
      status: 'success',
    })
    expect((await get('/delivery/environments')).items).toHaveLength(1)
    const h = await get('/delivery/health-summary')
    expect(h).toEqual({
      project_id: 'app',
      failing_pipelines: 1,
      failed_deployments: 0,
      active_environments: 1,
      releases_needing_attention: 1,
      latest_pipeline_green: true,
      deployment_healthy: true,
      risky_reviews_unresolved: true,
      open_handoffs: 0,
      doctor_errors: 0,
    })
  })

  test('review action close: applied at the provider, readback required; stale or missing version 409', async () => {
    const item = (await get('/delivery/review-queue')).items.find((i: Json) => i.external_id === '2')
    const missing = await t.send('POST', `${P}/delivery/review-queue/github/2/actions`, {
      state_action: 'close',
      actor: 'ops',
    })
    expect(missing.status).toBe(409)
    expect(await missing.json()).toMatchObject({
      error: { code: 'expected_version_required' },
      consumer_remediation_actions: ['refresh_metadata', 'retry_writeback'],
      current_version: item.version_token,
    })
    const stale = await t.send('POST', `${P}/delivery/review-queue/github/2/actions`, {
      state_action: 'close',
      actor: 'ops',
      expected_version: '2020-01-01T00:00:00.000Z',
    })
    expect(stale.status).toBe(409)
    expect((await stale.json()).consumer_remediation_actions).toContain('open_diff_and_resolve')
    expect(host.pulls[1]?.state).toBe('open')
    const res = await t.send('POST', `${P}/delivery/review-queue/github/2/actions`, {
      state_action: 'close',
      actor: 'ops',
      expected_version: item.version_token,
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({
      provider: 'github',
      external_id: '2',
      requested_actions: ['close'],
      applied: true,
      details: { state: 'closed' },
      expected_version: item.version_token,
      readback_required: true,
      writeback_guard_state: 'pending_confirmation',
      workflow_state: 'verification_required',
      external_truth_state: 'closed',
    })
    expect(body.current_version > item.version_token).toBe(true)
    expect(host.pulls[1]?.state).toBe('closed')
    expect((await get('/delivery/review-queue')).items.map((i: Json) => i.external_id)).toEqual(['1', '3'])
    const linked = (await get('/tasks?workflow_state=verification_required')).items
    expect(linked[0]).toMatchObject({
      source_reference: 'github:2',
      writeback_guard_state: 'pending_confirmation',
      lifecycle_state: 'forced-review-required',
    })
    const bad = await t.send('POST', `${P}/delivery/review-queue/github/1/actions`, {
      state_action: 'merge',
      actor: 'ops',
      expected_version: (await get('/delivery/review-queue')).items[0].version_token,
    })
    expect(bad.status).toBe(422)
  })

  test('a manual sync reports sync_mode auto; an unreachable host is 503 and keeps stored data', async () => {
    const ok = await (await t.send('POST', `${P}/integrations/github/sync`, {})).json()
    expect(ok).toMatchObject({
      project_id: 'app',
      sync_mode: 'auto',
      result: { provider: 'github', items: { pull_request: 3 } },
    })
    host.peer.respond(() => new Response('down', { status: 502 }))
    const down = await t.send('POST', `${P}/integrations/github/sync`, {})
    expect(down.status).toBe(503)
    expect((await down.json()).error.code).toBe('provider_unavailable')
    expect((await get('/delivery/review-queue')).items.length).toBe(2)
    expect((await get('/integrations/github')).last_error).toContain('bad_status')
    expect((await get('/doctor')).checks.find((c: Json) => c.name === 'last_sync_result').status).toBe(
      'error',
    )
  })

  test('GitLab and Gitea webhooks: a token or signature is required; unconfigured secrets fail closed', async () => {
    const body = JSON.stringify({ project: { path_with_namespace: 'acme/ops' } })
    const post = (path: string, headers: Record<string, string>) =>
      t.u.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
    expect((await post('/api/v1/integrations/gitlab/webhook', {})).status).toBe(401)
    expect((await post('/api/v1/integrations/gitlab/webhook', { 'x-gitlab-token': 'guess' })).status).toBe(
      503,
    )
    expect((await post('/api/v1/integrations/gitea/webhook', {})).status).toBe(401)
    const signed = signBody(hmacHex('X-Gitea-Signature'), 'any-secret-0123456789', body)
    expect((await post('/api/v1/integrations/gitea/webhook', signed)).status).toBe(503)
  })
})

describe('poll fallback', () => {
  test('the poller syncs bound projects on its own, holding the lease', async () => {
    const polled = fakeCodeHost(TOKEN)
    const p = await bootPwsAsync({
      PWS_GITHUB_URL: polled.peer.url,
      PWS_GITHUB_TOKEN: TOKEN,
      PWS_POLL_INTERVAL_S: '1',
    })
    try {
      await p.project('polled', { primary_repo_ref: { provider: 'github', full_name: 'acme/app' } })
      const poller = p.u.background.find((b) => b.name === 'pws:provider-poll')
      expect(poller).toBeDefined()
      poller?.start()
      let state: Json
      for (let i = 0; i < 60; i++) {
        state = await (await p.get('/api/v1/projects/polled/integrations/github')).json()
        if (state.last_poll_at) break
        await Bun.sleep(100)
      }
      expect(state.last_poll_at).not.toBeNull()
      expect(state.last_webhook_at).toBeNull()
      expect(
        (await (await p.get('/api/v1/projects/polled/delivery/review-queue')).json()).items,
      ).toHaveLength(3)
      const metrics = await (await p.u.request('/metrics')).text()
      expect(metrics).toContain('svc_pws_sync_events_total{provider="github",source="poll",result="ok"')
    } finally {
      await p.u.dispose()
      polled.peer.stop()
    }
  })
})

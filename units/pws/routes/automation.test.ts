import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { fakePeer, type Json, json } from '../../../test/harness.ts'
import { bootPwsAsync } from '../testing.ts'

const n8n = fakePeer((req) => {
  if (req.headers.get('x-n8n-api-key') !== 'n8n-key') return json({ message: 'unauthorized' }, 401)
  const url = new URL(req.path, 'http://x')
  if (url.pathname === '/api/v1/workflows') {
    return url.searchParams.get('cursor') === 'p2'
      ? json({ data: [{ id: 'w2', name: 'Billing sync', active: false }], nextCursor: null })
      : json({ data: [{ id: 'w1', name: 'Lead intake', active: true }], nextCursor: 'p2' })
  }
  if (url.pathname === '/api/v1/executions' && url.searchParams.get('status') === 'error') {
    return json({
      data: [
        {
          id: 'e1',
          workflowId: 'w1',
          status: 'error',
          startedAt: '2026-11-23T08:00:00.000Z',
          stoppedAt: '2026-11-23T08:00:05.000Z',
        },
        {
          id: 'e2',
          workflowId: 'w1',
          status: 'error',
          startedAt: '2026-11-23T09:00:00.000Z',
          stoppedAt: '2026-11-23T09:00:05.000Z',
        },
      ],
      nextCursor: null,
    })
  }
  return json({ message: 'not found' }, 404)
})
const wta = fakePeer((req) =>
  req.path === '/api/v1/health'
    ? json({ ok: true })
    : json({ operator: { state: 'ok' }, upgrade: { pending: 2 } }),
)
const t = await bootPwsAsync({
  PWS_AUTOMATION_URL: n8n.url,
  PWS_AUTOMATION_API_KEY: 'n8n-key',
  SVC_WTA_URL: wta.url,
})
const P = '/api/v1/projects/ops/integrations'
beforeAll(() => t.project('ops'))
afterAll(async () => {
  await t.u.dispose()
  n8n.stop()
  wta.stop()
})

describe('workflow-automation integrations', () => {
  test('operator: workflows across cursor pages and the failing ones', async () => {
    const res = await t.get(`${P}/automation-operator`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      workflows: 2,
      active_workflows: 1,
      failing: [
        {
          workflow_id: 'w1',
          workflow_name: 'Lead intake',
          failed_executions: 2,
          last_failed_at: '2026-11-23T09:00:05.000Z',
        },
      ],
    })
  })

  test('operator sync: one system_runtime_work task per failing workflow, idempotent', async () => {
    const first: Json = await (await t.send('POST', `${P}/automation-operator/sync`, {})).json()
    expect(first).toMatchObject({ project_id: 'ops', sync_mode: 'auto', result: { failing_workflows: 1 } })
    expect(first.result.tasks[0]).toMatchObject({
      work_class: 'system_runtime_work',
      source_reference_type: 'automation_workflow',
      source_reference: 'w1',
      external_truth_state: 'active',
      lane: 'ready',
    })
    const again: Json = await (await t.send('POST', `${P}/automation-operator/sync`, {})).json()
    expect(again.result.tasks[0].version_token).toBe(first.result.tasks[0].version_token)
    const tasks: Json = await (
      await t.get('/api/v1/projects/ops/tasks?work_class=system_runtime_work')
    ).json()
    expect(tasks.items).toHaveLength(1)
  })

  test('expert: WTA reachability and status; unconfigured, reads say so and sync answers 503', async () => {
    const res: Json = await (await t.get(`${P}/automation-expert`)).json()
    expect(res).toMatchObject({ reachable: true, status: { operator: { state: 'ok' } } })
    const bare = await bootPwsAsync()
    try {
      await bare.project('ops')
      const r = await bare.get('/api/v1/projects/ops/integrations/automation-operator')
      expect(await r.json()).toMatchObject({ configured: false })
      expect(
        (await (await bare.get('/api/v1/projects/ops/integrations/automation-expert')).json()).configured,
      ).toBe(false)
      const sync = await bare.send('POST', '/api/v1/projects/ops/integrations/automation-operator/sync', {})
      expect(sync.status).toBe(503)
      expect((await sync.json()).error.code).toBe('integration_not_configured')
      expect((await bare.get('/api/v1/projects/ops/integrations/github')).status).toBe(200)
    } finally {
      await bare.u.dispose()
    }
  })
})

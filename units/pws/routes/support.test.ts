import { afterAll, describe, expect, test } from 'bun:test'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync } from '../testing.ts'

const TOKEN = 'eis-handoff-token-0123456789'
const t = await bootPwsAsync({ PWS_SUPPORT_HANDOFF_TOKEN: TOKEN })
afterAll(() => t.u.dispose())

const envelope = (extra: Json = {}, ticket: Json = {}): Json => ({
  correlation_id: 'corr-1',
  source: { system: 'zammad', ticket_id: '4711', event: 'ticket.created' },
  ticket: {
    id: '4711',
    state: 'open',
    priority: 'high',
    title: 'Printer on fire',
    article: 'Smoke.',
    ...ticket,
  },
  business_refs: { customer: 'CUST-9' },
  eis_received_at: '2026-11-23T10:00:00.000Z',
  ...extra,
})
const handoff = (body: Json, token = TOKEN) =>
  t.u.send('POST', '/api/v1/support/handoff', body, { authorization: `Bearer ${token}` })

describe('support handoff from EIS', () => {
  test('creates a case_linked_work task in the support project (created on first use)', async () => {
    const res = await handoff(envelope())
    expect(res.status).toBe(201)
    const body = await res.json()
    expect(body).toMatchObject({
      ok: true,
      result: 'created',
      correlation_id: 'corr-1',
      project_id: 'support',
      work_class: 'case_linked_work',
      task: {
        title: 'Printer on fire',
        lane: 'ready',
        work_class: 'case_linked_work',
        source_truth_owner: 'eis',
        source_reference_type: 'support_ticket',
        source_reference: 'zammad:4711',
        external_truth: true,
        external_truth_state: 'open',
        case_lifecycle_guard: 'source_owns_case_state',
        lifecycle_completion_guard: 'source_case_still_open',
        missing_context: false,
      },
    })
    const tasks = await (await t.get('/api/v1/projects/support/tasks?work_class=case_linked_work')).json()
    expect(tasks.items.map((x: Json) => x.task_key)).toEqual([body.task_key])
  })

  test('idempotent on correlation_id: a replay changes nothing', async () => {
    const first = await (await handoff(envelope())).json()
    const again = await handoff(envelope())
    expect(again.status).toBe(200)
    const body = await again.json()
    expect(body).toMatchObject({ result: 'unchanged', task_key: first.task_key })
    expect(body.task.version_token).toBe(first.task.version_token)
    const tasks = await (await t.get('/api/v1/projects/support/tasks')).json()
    expect(tasks.items.length).toBe(1)
  })

  test('a later event for the same ticket updates its task; closing clears the completion guard', async () => {
    const before = await (await t.get('/api/v1/projects/support/tasks')).json()
    const res = await handoff(
      envelope(
        { correlation_id: 'corr-2', source: { system: 'zammad', ticket_id: '4711', event: 'ticket.closed' } },
        { state: 'closed' },
      ),
    )
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({
      result: 'updated',
      task_key: before.items[0].task_key,
      task: { external_truth_state: 'closed', lifecycle_completion_guard: null },
    })
    expect(body.task.version_token > before.items[0].version_token).toBe(true)
    expect((await (await t.get('/api/v1/projects/support/tasks')).json()).items.length).toBe(1)
  })

  test('an envelope without title or article is missing context; another ticket is another task', async () => {
    const res = await handoff(
      envelope(
        { correlation_id: 'corr-3' },
        { id: '5000', title: undefined, article: undefined, priority: 'low' },
      ),
    )
    const body = await res.json()
    expect(body.task).toMatchObject({ title: 'Support ticket 5000', missing_context: true, lane: 'backlog' })
    const summary = await (await t.get('/api/v1/projects/support/active-workflow')).json()
    expect(summary.platform_consumer_contract.state).toBe('degraded')
    expect(summary.external_truth_summary).toMatchObject({ external_truth: true })
  })

  test('business references EIS could not resolve make the task partially visible', async () => {
    const refs = { items: [{ doctype: 'Customer', name: 'C-1', found: false, partial: false }], summary: {} }
    const res = await handoff(envelope({ correlation_id: 'corr-refs', business_refs: refs }, { id: '6000' }))
    expect((await res.json()).task).toMatchObject({ partial_visibility: true })
    const whole = { items: [{ doctype: 'Customer', name: 'C-1', found: true, partial: false }], summary: {} }
    const again = await handoff(
      envelope({ correlation_id: 'corr-refs', business_refs: whole }, { id: '6000' }),
    )
    expect((await again.json()).task).toMatchObject({ partial_visibility: false })
  })

  test('refusals: no token 401, wrong token 401, bad envelope 400, unknown project 422', async () => {
    expect((await t.u.send('POST', '/api/v1/support/handoff', envelope())).status).toBe(401)
    const wrong = await handoff(envelope(), 'not-the-token')
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).not.toContain(TOKEN)
    const bad = await handoff({ correlation_id: 'x', ticket: { id: '1' } })
    expect(bad.status).toBe(400)
    const unknown = await handoff(envelope({ correlation_id: 'corr-9', project_id: 'nowhere' }))
    expect(unknown.status).toBe(422)
    expect((await unknown.json()).error.code).toBe('unknown_project')
  })

  test('unset token: the route fails closed with 503', async () => {
    const bare = await bootPwsAsync()
    try {
      const res = await bare.u.send('POST', '/api/v1/support/handoff', envelope(), {
        authorization: 'Bearer anything',
      })
      expect(res.status).toBe(503)
      expect((await res.json()).error.code).toBe('credentials_not_configured')
    } finally {
      await bare.u.dispose()
    }
  })
})

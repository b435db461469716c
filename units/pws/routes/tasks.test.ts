import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync, sessionCookie } from '../testing.ts'

const t = await bootPwsAsync()
const P = '/api/v1/projects/flow'
beforeAll(() => t.project('flow'))
afterAll(() => t.u.dispose())

const createTask = async (body: Json) => {
  const res = await t.send('POST', `${P}/tasks`, body)
  expect(res.status).toBe(201)
  return res.json()
}

describe('tasks', () => {
  test('a new task carries the spec payload; id is the task_key and version_token its updated_at', async () => {
    const task = await createTask({ title: 'Write the docs' })
    expect(task).toMatchObject({
      id: task.task_key,
      task_key: 'flow-1',
      lane: 'backlog',
      status: 'open',
      work_class: 'project_work',
      work_item_truth_owner: 'pws',
      source_truth_owner: 'pws',
      source_reference_type: 'native',
      workflow_state: 'active',
      external_truth_state: null,
      external_truth: false,
      missing_context: false,
      partial_visibility: false,
      writeback_guard_state: 'clear',
      case_lifecycle_guard: null,
      lifecycle_completion_guard: null,
      consumer_remediation_actions: [],
      lifecycle_state: 'active',
    })
    expect(task.version_token).toBe(task.updated_at)
    expect(Number.isNaN(Date.parse(task.version_token))).toBe(false)
    const second = await createTask({ title: 'Second', lane: 'ready', task_key: 'CUSTOM-7' })
    expect(second).toMatchObject({ task_key: 'CUSTOM-7', lane: 'ready' })
    const dupe = await t.send('POST', `${P}/tasks`, { title: 'again', task_key: 'CUSTOM-7' })
    expect(dupe.status).toBe(409)
    expect((await dupe.json()).error.code).toBe('task_exists')
    const badLane = await t.send('POST', `${P}/tasks`, { title: 'x', lane: 'nowhere' })
    expect(badLane.status).toBe(422)
    expect((await badLane.json()).error.code).toBe('unknown_lane')
  })

  test('PATCH with the current expected_version moves the task and issues a new version', async () => {
    const task = await createTask({ title: 'Move me' })
    const moved = await t.send('PATCH', `${P}/tasks/${task.task_key}`, {
      lane: 'in_progress',
      expected_version: task.version_token,
    })
    expect(moved.status).toBe(200)
    const body = await moved.json()
    expect(body).toMatchObject({ lane: 'in_progress', status: 'in_progress' })
    expect(body.version_token > task.version_token).toBe(true)
    const listed = await (await t.get(`${P}/tasks?lane=in_progress`)).json()
    expect(listed.items.map((x: Json) => x.task_key)).toContain(task.task_key)
    const done = await t.send('PATCH', `${P}/tasks/${task.task_key}`, {
      lane: 'done',
      expected_version: body.version_token,
    })
    expect(await done.json()).toMatchObject({
      lane: 'done',
      status: 'done',
      workflow_state: 'completed',
      lifecycle_state: 'reopen-eligible',
    })
  })

  test('the 409 matrix: missing and stale expected_version change nothing and carry remediation', async () => {
    const task = await createTask({ title: 'Contended' })
    const missing = await t.send('PATCH', `${P}/tasks/${task.task_key}`, { lane: 'ready' })
    expect(missing.status).toBe(409)
    const m = await missing.json()
    expect(m.error.code).toBe('expected_version_required')
    expect(m).toMatchObject({
      consumer_remediation_actions: ['refresh_metadata', 'retry_writeback'],
      current_version: task.version_token,
      expected_version: null,
      writeback_guard_state: 'conflicted',
      conflict: { target_type: 'task', target_key: task.task_key, reason: 'expected_version_missing' },
    })
    const first = await t.send('PATCH', `${P}/tasks/${task.task_key}`, {
      lane: 'ready',
      expected_version: task.version_token,
    })
    expect(first.status).toBe(200)
    const current = (await first.json()).version_token
    const stale = await t.send('PATCH', `${P}/tasks/${task.task_key}`, {
      lane: 'done',
      expected_version: task.version_token,
    })
    expect(stale.status).toBe(409)
    const s = await stale.json()
    expect(s.error.code).toBe('version_conflict')
    expect(s).toMatchObject({
      consumer_remediation_actions: ['refresh_metadata', 'retry_writeback', 'escalate_to_manual'],
      current_version: current,
      expected_version: task.version_token,
      conflict: { reason: 'expected_version_stale', current_lane: 'ready', requested_lane: 'done' },
    })
    const after = await (await t.get(`${P}/tasks/${task.task_key}`)).json()
    expect(after).toMatchObject({ lane: 'ready', version_token: current })
    const metrics = await (await t.u.request('/metrics')).text()
    expect(metrics).toMatch(/svc_pws_writeback_conflicts_total\{target="task",reason="stale",unit="pws"\} 1/)
  })

  test('two writers with the same version: exactly one wins', async () => {
    const task = await createTask({ title: 'Race' })
    const answers = await Promise.all(
      ['ready', 'review'].map((lane) =>
        t.send('PATCH', `${P}/tasks/${task.task_key}`, { lane, expected_version: task.version_token }),
      ),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
  })

  test('unknown task 404, unknown lane 422 with a current version, viewer 403', async () => {
    expect((await t.send('PATCH', `${P}/tasks/none`, { lane: 'ready', expected_version: 'x' })).status).toBe(
      404,
    )
    const task = await createTask({ title: 'Lane check' })
    const res = await t.send('PATCH', `${P}/tasks/${task.task_key}`, {
      lane: 'mars',
      expected_version: task.version_token,
    })
    expect(res.status).toBe(422)
    const viewer = await t.send(
      'PATCH',
      `${P}/tasks/${task.task_key}`,
      { lane: 'ready', expected_version: task.version_token },
      'viewer',
    )
    expect(viewer.status).toBe(403)
  })

  test('lists page by cursor in creation order and filter by work_class', async () => {
    await t.project('many')
    for (let i = 0; i < 5; i++) await t.send('POST', '/api/v1/projects/many/tasks', { title: `t${i}` })
    const keys: string[] = []
    let cursor: string | null = null
    do {
      const page: Json = await (
        await t.get(`/api/v1/projects/many/tasks?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()
      keys.push(...page.items.map((x: Json) => x.task_key))
      cursor = page.next_cursor
    } while (cursor)
    expect(keys).toEqual(['many-1', 'many-2', 'many-3', 'many-4', 'many-5'])
    const none = await (await t.get('/api/v1/projects/many/tasks?work_class=case_linked_work')).json()
    expect(none.items).toEqual([])
  })

  test('the board groups every task under its lane, in lane order', async () => {
    const board = await (await t.get('/api/v1/projects/many/board')).json()
    expect(board.lanes.map((l: Json) => l.lane_key)).toEqual([
      'backlog',
      'ready',
      'in_progress',
      'review',
      'done',
    ])
    expect(board.lanes[0].task_count).toBe(5)
    expect(board.task_count).toBe(5)
  })

  test('tasks survive a restart', async () => {
    const task = await createTask({ title: 'Durable' })
    const again = await t.u.restart()
    const res = await again.request(`${P}/tasks/${task.task_key}`, {
      headers: { cookie: await sessionCookie('viewer') },
    })
    expect((await res.json()).version_token).toBe(task.version_token)
    await again.close()
  })
})

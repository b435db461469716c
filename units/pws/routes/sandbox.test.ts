import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync, type PwsTest } from '../testing.ts'

const ENV = { ADAPTER_SANDBOX_WRITE_ENABLED: 'true', ADAPTER_SANDBOX_OWNER_REPO: 'acme/platform' }
const t = await bootPwsAsync(ENV)
const P = '/api/v1/projects/sandbox-team-a'
const W = `${P}/adapter-sandbox/writes`
afterAll(() => t.u.dispose())

let n = 0
const write = (extra: Json = {}, operation: Json = {}): Json => ({
  scenario: 'project',
  idempotency_key: `key-${++n}`,
  timeout_ms: 2000,
  retry: { max_attempts: 3, backoff_ms: 10 },
  owner_attribution: { owner_repo: 'acme/platform', owner_actor: 'ci-bot', owner_reason: 'seed demo data' },
  operation: { task_key: `SBX-${n}`, title: 'Sandbox task', lane: 'ready', status: 'open', ...operation },
  ...extra,
})
const post = (body: Json, role: 'admin' | 'operator' = 'admin', tu: PwsTest = t, path = W) =>
  tu.send('POST', path, body, role)

describe('adapter sandbox writes', () => {
  test('a project write creates the task, visible in GET …/tasks, with readback and evidence', async () => {
    const body = write()
    const res = await post(body)
    expect(res.status).toBe(200)
    const a = await res.json()
    expect(a).toMatchObject({
      scenario: 'project',
      idempotency_key: body.idempotency_key,
      status: 'applied',
      idempotent_replay: false,
      attempts: 1,
      timeout_ms: 2000,
      owner_attribution: body.owner_attribution,
      handoff_context: null,
      readback: {
        target_type: 'task',
        target_key: body.operation.task_key,
        target_summary: { lane: 'ready', status: 'open' },
      },
      evidence: { event: 'adapter_sandbox_write_applied', project_id: 'sandbox-team-a', handoff: null },
    })
    const tasks = await (await t.get(`${P}/tasks`)).json()
    expect(tasks.items.find((x: Json) => x.task_key === body.operation.task_key)).toMatchObject({
      lane: 'ready',
      title: 'Sandbox task',
    })
    const read = await t.get(`${W}/project/${body.idempotency_key}`, 'admin')
    expect(await read.json()).toMatchObject({ status: 'applied', readback: a.readback })
  })

  test('idempotent per (project_id, scenario, idempotency_key): replay is flagged, nothing is written twice', async () => {
    const body = write()
    const first = await (await post(body)).json()
    const again = await post(body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const replay = await again.json()
    expect(replay).toEqual({ ...first, idempotent_replay: true })
    const task = await (await t.get(`${P}/tasks/${body.operation.task_key}`)).json()
    expect(task.version_token).toBe(first.readback.target_summary.version_token)
    const other = await post({ ...body, operation: { ...body.operation, title: 'changed' } })
    expect(other.status).toBe(409)
    expect((await other.json()).error.code).toBe('idempotency_conflict')
    const otherScenario = await post({
      ...body,
      scenario: 'release',
      operation: { ...body.operation, tag: 'v1.0.0' },
    })
    expect(otherScenario.status).toBe(200)
    expect((await otherScenario.json()).idempotent_replay).toBe(false)
  })

  test('the same key in another project is another write', async () => {
    const body = write()
    await post(body)
    const res = await post(body, 'admin', t, '/api/v1/projects/sandbox-team-b/adapter-sandbox/writes')
    expect((await res.json()).idempotent_replay).toBe(false)
  })

  test('handoff context: echoed in three places; a task or agent mismatch is 409 with no mutation', async () => {
    await t.send('POST', `${P}/tasks`, { task_key: 'HANDOFF-1', title: 'Shared' })
    const h = await (
      await t.send('POST', `${P}/handoffs`, {
        task_key: 'HANDOFF-1',
        from_agent: 'alice',
        to_agent: 'bot',
        summary: 'over to you',
      })
    ).json()
    const ctx = { handoff_id: h.handoff_id, task_key: 'HANDOFF-1', from_agent: 'alice', to_agent: 'bot' }
    const ok = await (
      await post(write({ handoff_context: ctx }, { task_key: 'HANDOFF-1', lane: 'in_progress' }))
    ).json()
    const echo = { ...ctx, status: 'open', ownership_link_state: 'linked' }
    expect(ok.handoff_context).toEqual(echo)
    expect(ok.readback.target_summary.handoff_context).toEqual(echo)
    expect(ok.evidence.handoff).toEqual(echo)
    const before = await (await t.get(`${P}/tasks/HANDOFF-1`)).json()
    for (const [bad, field] of [
      [{ ...ctx, to_agent: 'mallory' }, 'to_agent'],
      [{ ...ctx, from_agent: 'eve' }, 'from_agent'],
      [{ ...ctx, task_key: 'OTHER' }, 'task_key'],
    ] as const) {
      const res = await post(
        write({ handoff_context: bad }, { task_key: 'HANDOFF-1', lane: 'done', title: 'mutated' }),
      )
      expect(res.status).toBe(409)
      const b = await res.json()
      expect(b.error).toMatchObject({ code: 'handoff_mismatch', details: { field } })
    }
    const unknown = await post(
      write(
        { handoff_context: { ...ctx, handoff_id: '0190c9a0-0000-7000-8000-000000000000' } },
        { task_key: 'HANDOFF-1' },
      ),
    )
    expect(unknown.status).toBe(409)
    expect((await unknown.json()).error.code).toBe('handoff_not_in_project')
    expect(await (await t.get(`${P}/tasks/HANDOFF-1`)).json()).toEqual(before)
    const qa = await post(
      write({ scenario: 'qa', handoff_context: ctx }, { check_key: 'smoke', outcome: 'passed' }),
    )
    expect((await qa.json()).error.code).toBe('handoff_context_not_supported')
  })

  test('support, qa and release scenarios write their task kinds; missing operation fields are 422', async () => {
    const support = await (
      await post(write({ scenario: 'support' }, { ticket_id: 'T-9', ticket_state: 'open' }))
    ).json()
    const task = await (await t.get(`${P}/tasks/${support.readback.target_key}`)).json()
    expect(task).toMatchObject({
      work_class: 'case_linked_work',
      source_reference_type: 'support_ticket',
      external_truth: true,
    })
    const qa = await (await post(write({ scenario: 'qa' }, { check_key: 'smoke', outcome: 'passed' }))).json()
    expect(qa.readback.target_summary.lane).toBe('done')
    const missing = await post(write({ scenario: 'release' }))
    expect(missing.status).toBe(422)
    expect((await missing.json()).error).toMatchObject({
      code: 'operation_invalid',
      details: { field: 'tag' },
    })
  })

  test('dry_run checks every rule and writes nothing', async () => {
    const body = write({ dry_run: true })
    const res = await (await post(body)).json()
    expect(res).toMatchObject({ status: 'dry_run', readback: { target_summary: { version_token: null } } })
    expect((await t.get(`${P}/tasks/${body.operation.task_key}`)).status).toBe(404)
    expect((await t.get(`${W}/project/${body.idempotency_key}`, 'admin')).status).toBe(404)
  })

  test('fail closed: prefix, owner repo; admin only; bounds of timeout and retry', async () => {
    const prefix = await post(write(), 'admin', t, '/api/v1/projects/team-a/adapter-sandbox/writes')
    expect(prefix.status).toBe(403)
    expect((await prefix.json()).error.code).toBe('sandbox_project_prefix_mismatch')
    const owner = await post(
      write({ owner_attribution: { owner_repo: 'evil/repo', owner_actor: 'x', owner_reason: 'y' } }),
    )
    expect((await owner.json()).error.code).toBe('sandbox_owner_repo_mismatch')
    expect((await post(write(), 'operator')).status).toBe(403)
    expect((await post(write({ timeout_ms: 60_000 }))).status).toBe(400)
    expect((await post(write({ retry: { max_attempts: 50, backoff_ms: 1 } }))).status).toBe(400)
    expect((await post(write({ scenario: 'chaos' }))).status).toBe(400)
  })
})

describe('sandbox flag off', () => {
  let off: PwsTest
  beforeAll(async () => {
    off = await bootPwsAsync({ ADAPTER_SANDBOX_OWNER_REPO: 'acme/platform' })
  })
  afterAll(() => off.u.dispose())
  test('every write is refused with 403 and nothing is created', async () => {
    const res = await post(write(), 'admin', off)
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe('sandbox_writes_disabled')
    expect((await off.get(`${P}/tasks`)).status).toBe(404)
  })
})

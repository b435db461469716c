import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync } from '../testing.ts'

let now = Date.parse('2026-11-23T10:00:00.000Z')
const t = await bootPwsAsync({}, () => now)
const P = '/api/v1/projects/crew'
let taskKey = ''
beforeAll(async () => {
  await t.project('crew')
  taskKey = (await (await t.send('POST', `${P}/tasks`, { title: 'Hand me over' })).json()).task_key
})
afterAll(() => t.u.dispose())

const handoff = async (extra: Json = {}) => {
  const res = await t.send('POST', `${P}/handoffs`, {
    task_key: taskKey,
    from_agent: 'alice',
    to_agent: 'bot-7',
    summary: 'Tests are green; needs a release note.',
    ...extra,
  })
  expect(res.status).toBe(201)
  return res.json()
}

describe('agents', () => {
  test('register, list with open handoff counts; a taken key is 409', async () => {
    const res = await t.send('POST', `${P}/agents`, {
      agent_key: 'alice',
      display_name: 'Alice',
      kind: 'human',
    })
    expect(res.status).toBe(201)
    expect((await t.send('POST', `${P}/agents`, { agent_key: 'alice', display_name: 'A' })).status).toBe(409)
    await handoff()
    const list = await (await t.get(`${P}/agents`)).json()
    const byKey = Object.fromEntries(list.items.map((a: Json) => [a.agent_key, a]))
    expect(byKey.alice).toMatchObject({ display_name: 'Alice', kind: 'human', open_handoffs_out: 1 })
    expect(byKey['bot-7']).toMatchObject({ kind: 'agent', open_handoffs_in: 1 })
  })
})

describe('handoffs', () => {
  test('POST returns a handoff_id; accept closes it; a second decision is 422', async () => {
    const h = await handoff()
    expect(h).toMatchObject({ state: 'open', task_key: taskKey, from_agent: 'alice', to_agent: 'bot-7' })
    expect(h.handoff_id).toMatch(/^[0-9a-f-]{36}$/)
    const accepted = await t.send('POST', `${P}/handoffs/${h.handoff_id}/accept`, {})
    expect(accepted.status).toBe(200)
    expect(await accepted.json()).toMatchObject({ state: 'accepted' })
    const again = await t.send('POST', `${P}/handoffs/${h.handoff_id}/reject`, { reason: 'too late' })
    expect(again.status).toBe(422)
    expect((await again.json()).error).toMatchObject({
      code: 'invalid_transition',
      details: { state: 'accepted' },
    })
    expect((await (await t.get(`${P}/handoffs/${h.handoff_id}`)).json()).state).toBe('accepted')
  })

  test('reject keeps the reason; expire closes an open handoff; list filters by state', async () => {
    const r = await handoff()
    expect(
      await (await t.send('POST', `${P}/handoffs/${r.handoff_id}/reject`, { reason: 'not mine' })).json(),
    ).toMatchObject({
      state: 'rejected',
      reason: 'not mine',
    })
    const e = await handoff()
    expect((await (await t.send('POST', `${P}/handoffs/${e.handoff_id}/expire`, {})).json()).state).toBe(
      'expired',
    )
    const rejected = await (await t.get(`${P}/handoffs?state=rejected`)).json()
    expect(rejected.items.map((x: Json) => x.handoff_id)).toEqual([r.handoff_id])
  })

  test('refusals: unknown task 422, same agent 422, unknown handoff 404, unknown action 400, viewer 403', async () => {
    const unknown = await t.send('POST', `${P}/handoffs`, {
      task_key: 'nope',
      from_agent: 'a',
      to_agent: 'b',
      summary: 's',
    })
    expect(unknown.status).toBe(422)
    expect((await unknown.json()).error.code).toBe('unknown_task')
    const same = await t.send('POST', `${P}/handoffs`, {
      task_key: taskKey,
      from_agent: 'a',
      to_agent: 'a',
      summary: 's',
    })
    expect((await same.json()).error.code).toBe('same_agent')
    expect(
      (await t.send('POST', `${P}/handoffs/0190c9a0-0000-7000-8000-000000000000/accept`, {})).status,
    ).toBe(404)
    const h = await handoff()
    expect((await t.send('POST', `${P}/handoffs/${h.handoff_id}/approve`, {})).status).toBe(400)
    expect((await t.send('POST', `${P}/handoffs/${h.handoff_id}/accept`, {}, 'viewer')).status).toBe(403)
  })

  test('a handoff past expires_in_s reads as expired and can no longer be accepted', async () => {
    const h = await handoff({ expires_in_s: 60 })
    expect(h.expires_at).toBe(new Date(now + 60_000).toISOString())
    const openBefore = (await (await t.get(`${P}/operator-dashboard`)).json()).open_handoffs
    now += 61_000
    expect((await (await t.get(`${P}/handoffs/${h.handoff_id}`)).json()).state).toBe('expired')
    expect((await (await t.get(`${P}/operator-dashboard`)).json()).open_handoffs).toBe(openBefore - 1)
    const late = await t.send('POST', `${P}/handoffs/${h.handoff_id}/accept`, {})
    expect(late.status).toBe(422)
    expect((await late.json()).error.details.state).toBe('expired')
    const expired = await t.send('POST', `${P}/handoffs/${h.handoff_id}/expire`, {})
    expect(expired.status).toBe(200)
    expect((await expired.json()).decided_at).toBe(new Date(now).toISOString())
  })
})

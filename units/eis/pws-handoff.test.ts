/**
 * EIS → PWS (CONTRACTS.md §4) with the real PWS unit listening: a signed ticketing event becomes
 * a case_linked_work task; a later event about the same ticket updates that task; PWS down fails
 * closed and the redelivery lands once PWS is back.
 */
import { afterAll, expect, test } from 'bun:test'
import { freePort, type Json } from '../../test/harness.ts'
import { bootPwsAsync } from '../pws/testing.ts'
import * as store from './store.ts'
import { bootEis, SECRETS, signedPost } from './testing.ts'

const TOKEN = 'eis-to-pws-handoff-token-0123'
const pws = await bootPwsAsync({ PWS_SUPPORT_HANDOFF_TOKEN: TOKEN })
const port = freePort()
const eis = await bootEis({
  SVC_SUPPORT_HANDOFF_URL: `http://127.0.0.1:${port}/api/v1/support/handoff`,
  SVC_SUPPORT_HANDOFF_TOKEN: TOKEN,
})
afterAll(async () => {
  await pws.u.app.stop(true)
  await pws.u.dispose()
  await eis.dispose()
})

const ticket = (sequence: number, extra: Json = {}) => ({
  ticket_id: 4711,
  event: sequence === 1 ? 'ticket.created' : 'ticket.updated',
  state: 'open',
  priority: 'high',
  sequence,
  title: 'Invoice missing',
  article: { id: sequence, body: 'Where is my invoice?', from: 'customer@example.org' },
  business_refs: [{ doctype: 'Lead', name: 'LEAD-unknown' }],
  ...extra,
})
const tasks = async () =>
  (await (await pws.get('/api/v1/projects/support/tasks?work_class=case_linked_work')).json()).items as Json[]

test('PWS down: ok=false and the event failed; with PWS up the redelivery becomes a task, and a later event updates it', async () => {
  const down = await signedPost(
    eis,
    'support_cases.ticketing_inbound',
    ticket(1),
    SECRETS.TICKETING_WEBHOOK_SECRET,
  )
  expect(down.status).toBe(503)
  const failed = await down.json()
  expect(failed).toMatchObject({ ok: false, reason: 'platform_support_handoff_failed' })
  expect((await store.findEvent(eis.ctx.storage, failed.event_audit_key))?.status).toBe('failed')

  pws.u.app.listen({ port, hostname: '127.0.0.1' })
  const res = await signedPost(
    eis,
    'support_cases.ticketing_inbound',
    ticket(1),
    SECRETS.TICKETING_WEBHOOK_SECRET,
  )
  expect(res.status).toBe(200)
  const { message } = await res.json()
  expect(message).toMatchObject({
    ok: true,
    event_audit_key: failed.event_audit_key,
    platform_handoff: { status: 'delivered', http_status: 201 },
  })
  expect(message.platform_handoff.result).toMatchObject({ result: 'created', work_class: 'case_linked_work' })
  const [task] = await tasks()
  expect(task).toMatchObject({
    title: 'Invoice missing',
    work_class: 'case_linked_work',
    source_reference: 'ticketing:4711',
    external_truth_state: 'open',
  })

  const closed = await signedPost(
    eis,
    'support_cases.ticketing_inbound',
    ticket(2, { state: 'closed' }),
    SECRETS.TICKETING_WEBHOOK_SECRET,
  )
  expect((await closed.json()).message.platform_handoff.result.result).toBe('updated')
  const after = await tasks()
  expect(after).toHaveLength(1)
  expect(after[0]).toMatchObject({ task_key: task.task_key, external_truth_state: 'closed' })
})

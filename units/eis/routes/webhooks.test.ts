import { afterEach, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { hmacSha256Hex } from '../../../common/hash.ts'
import { fakePeer, json } from '../../../test/harness.ts'
import * as store from '../store.ts'
import { integrationEvents } from '../tables.ts'
import { bootEis, call, type EisUnit, method, SECRETS, signedPost, webContact } from '../testing.ts'

const CONTACT = 'webhooks.website_contact_intake'
let u: EisUnit
afterEach(async () => {
  await u?.dispose()
})

describe('signature matrix (website_contact_intake, ERP_API_SHARED_SECRET)', () => {
  test('missing, wrong, other secret, one byte changed: 401 and nothing stored; sha256= prefix and the previous secret pass', async () => {
    u = await bootEis({ ERP_API_SHARED_SECRET_PREVIOUS: 'erp-api-previous-secret-0001' })
    const body = JSON.stringify(webContact())
    const post = (headers: Record<string, string>, raw = body) =>
      u.request(method(CONTACT), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: raw,
      })
    const good = hmacSha256Hex(SECRETS.ERP_API_SHARED_SECRET, body)
    const refusals: [Record<string, string>, string, string?][] = [
      [{}, 'signature_missing'],
      [{ 'x-signature': 'not-hex' }, 'signature_invalid'],
      [{ 'x-signature': 'a'.repeat(64) }, 'signature_invalid'],
      [{ 'x-signature': hmacSha256Hex(SECRETS.AUTOMATION_SHARED_SECRET, body) }, 'signature_invalid'],
      [{ 'x-signature': good }, 'signature_invalid', body.replace('"Ada"', '"Adb"')],
      [{ 'x-signature': good }, 'signature_invalid', `${body} `],
    ]
    for (const [headers, code, raw] of refusals) {
      const res = await post(headers, raw)
      expect({ code, status: res.status }).toEqual({ code, status: 401 })
      expect((await res.json()).error.code).toBe(code)
    }
    expect(await store.eventCounts(u.ctx.storage)).toEqual({})
    expect((await post({ 'x-signature': `sha256=${good.toUpperCase()}` })).status).toBe(200)
    const rotated = webContact('bo@example.org')
    const res = await signedPost(u, CONTACT, rotated, 'erp-api-previous-secret-0001')
    expect(res.status).toBe(200)
  })

  test('every signed route refuses an unsigned request with 401, and a signed one with no secret configured with 503', async () => {
    u = await bootEis({
      PAYMENT_PROVIDER_A_WEBHOOK_SECRET: '',
      AUTOMATION_SHARED_SECRET: '',
      TICKETING_WEBHOOK_SECRET: '',
    })
    const routes = [
      'webhooks.payment_provider_a',
      'webhooks.payment_provider_b',
      'webhooks.supplier_intake',
      CONTACT,
      'support_cases.ticketing_inbound',
      'callbacks.runtime_host_approval',
      'callbacks.automation_job_result',
      'callbacks.automation_hil_decision',
    ]
    for (const route of routes) {
      const res = await u.send('POST', method(route), {})
      expect({ route, status: res.status }).toEqual({ route, status: 401 })
    }
    const unconfigured = await signedPost(
      u,
      'webhooks.payment_provider_a',
      { id: 'e', type: 't', data: { object: {} } },
      'whatever-secret-000000',
    )
    expect(unconfigured.status).toBe(503)
    expect((await unconfigured.json()).error.code).toBe('signature_not_configured')
  })

  test('ticketing falls back to AUTOMATION_SHARED_SECRET when TICKETING_WEBHOOK_SECRET is unset', async () => {
    u = await bootEis({ TICKETING_WEBHOOK_SECRET: '' })
    const body = { ticket_id: 1, event: 'ticket.created', state: 'new', priority: '2 normal', sequence: 1 }
    expect(
      (await signedPost(u, 'support_cases.ticketing_inbound', body, SECRETS.TICKETING_WEBHOOK_SECRET)).status,
    ).toBe(401)
    // Signed with the fallback: accepted, then fails closed on the (unset) handoff.
    const res = await signedPost(u, 'support_cases.ticketing_inbound', body, SECRETS.AUTOMATION_SHARED_SECRET)
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({
      ok: false,
      reason: 'platform_support_handoff_failed',
      error: { code: 'platform_support_handoff_failed' },
    })
  })
})

describe('webhooks through their routes', () => {
  test("website contact intake takes WEB's payload: integration_event, target_doctype, lead, ack; a redelivery creates nothing", async () => {
    u = await bootEis()
    const body = webContact()
    const res = await signedPost(u, CONTACT, body, SECRETS.ERP_API_SHARED_SECRET)
    expect(res.status).toBe(200)
    const { message } = await res.json()
    expect(message).toMatchObject({ target_doctype: 'Lead', ack: true, duplicate: false })
    const again = (await (await signedPost(u, CONTACT, body, SECRETS.ERP_API_SHARED_SECRET)).json()).message
    expect(again).toEqual({ ...message, duplicate: true })
    expect((await store.tableCounts(u.ctx.storage)).leads).toBe(1)
    const bad = await signedPost(
      u,
      CONTACT,
      { ...body, contact: { name: 'x' } },
      SECRETS.ERP_API_SHARED_SECRET,
    )
    expect(bad.status).toBe(400)
  })

  test('a new intake from the same e-mail address (other case) updates its Lead, a new address creates one', async () => {
    u = await bootEis()
    const post = async (email: string) =>
      (await (await signedPost(u, CONTACT, webContact(email), SECRETS.ERP_API_SHARED_SECRET)).json()).message
    const first = await post('Lin@Example.org')
    const second = await post('lin@example.ORG')
    const other = await post('mo@example.org')
    expect(second.lead).toBe(first.lead)
    expect(second.integration_event).not.toBe(first.integration_event)
    expect(other.lead).not.toBe(first.lead)
    expect((await store.tableCounts(u.ctx.storage)).leads).toBe(2)
    expect(await store.findLeadByEmail(u.ctx.storage, 'lin@example.org')).toMatchObject({
      name: first.lead,
      intakeCount: 2,
    })
  })

  test('50 concurrent deliveries of one contact intake: one Lead, one event, every answer names them', async () => {
    u = await bootEis()
    const body = webContact('rush@example.org')
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => signedPost(u, CONTACT, body, SECRETS.ERP_API_SHARED_SECRET)),
    )
    const messages = await Promise.all(answers.map(async (r) => (await r.json()).message))
    expect(answers.every((r) => r.status === 200)).toBe(true)
    expect(new Set(messages.map((m) => `${m.integration_event} ${m.lead}`)).size).toBe(1)
    expect(messages.filter((m) => !m.duplicate)).toHaveLength(1)
    expect(await store.eventCounts(u.ctx.storage)).toEqual({ processed: 1 })
    expect((await store.tableCounts(u.ctx.storage)).leads).toBe(1)
  })

  test('30 concurrent new intakes for 10 addresses (one commit group): 10 Leads, each counting its 3 intakes', async () => {
    u = await bootEis()
    const bodies = Array.from({ length: 30 }, (_, i) => webContact(`group-${i % 10}@example.org`))
    const answers = await Promise.all(
      bodies.map((body) => signedPost(u, CONTACT, body, SECRETS.ERP_API_SHARED_SECRET)),
    )
    const messages = await Promise.all(answers.map(async (r) => (await r.json()).message))
    expect(answers.map((r) => r.status)).toEqual(bodies.map(() => 200))
    expect(messages.filter((m) => m.duplicate)).toHaveLength(0)
    expect(new Set(messages.map((m) => m.integration_event)).size).toBe(30)
    expect(new Set(messages.map((m) => m.lead)).size).toBe(10)
    expect(await store.eventCounts(u.ctx.storage)).toEqual({ processed: 30 })
    expect((await store.tableCounts(u.ctx.storage)).leads).toBe(10)
    for (let i = 0; i < 10; i++) {
      expect((await store.findLeadByEmail(u.ctx.storage, `group-${i}@example.org`))?.intakeCount).toBe(3)
    }
  })

  test('payment provider A and B stage revenue events; supplier intake stages a Supplier Intake', async () => {
    u = await bootEis()
    const a = await signedPost(
      u,
      'webhooks.payment_provider_a',
      {
        id: 'evt_1',
        type: 'charge.succeeded',
        data: { object: { amount: 990, currency: 'eur', customer: 'c' } },
      },
      SECRETS.PAYMENT_PROVIDER_A_WEBHOOK_SECRET,
    )
    expect((await a.json()).message).toMatchObject({ ok: true, status: 'processed', duplicate: false })
    const b = await signedPost(
      u,
      'webhooks.payment_provider_b',
      {
        event_id: 'evt_b',
        event_type: 'transaction.paid',
        data: { currency_code: 'USD', details: { totals: { grand_total: '1000' } } },
      },
      SECRETS.PAYMENT_PROVIDER_B_WEBHOOK_SECRET,
    )
    const rev = (await b.json()).message.revenue_event
    expect(await store.findRevenueEvent(u.ctx.storage, rev)).toMatchObject({
      amount: 10,
      currency: 'USD',
      status: 'staged',
    })
    const s = await signedPost(
      u,
      'webhooks.supplier_intake',
      { vendor: { name: 'V' } },
      SECRETS.AUTOMATION_SHARED_SECRET,
    )
    expect((await s.json()).message).toMatchObject({ ok: true, status: 'staged' })
    expect((await store.tableCounts(u.ctx.storage)).revenue_events).toBe(2)
  })
})

async function openPacket() {
  const s = await signedPost(
    u,
    'webhooks.supplier_intake',
    { intake_id: crypto.randomUUID(), vendor: { name: 'V' } },
    SECRETS.AUTOMATION_SHARED_SECRET,
  )
  const name = (await s.json()).message.supplier_intake
  return (await (await call(u, 'workflows.request_supplier_intake_approval', { name })).json()).message
}

describe('callbacks', () => {
  test('runtime_host_approval approves with the callback token; Idempotency-Key replays byte for byte, another body is 409', async () => {
    u = await bootEis()
    const approval = await openPacket()
    const body = {
      packet: approval.packet.name,
      callback_token: approval.callback_token,
      decision: 'approved',
      actor: { subject: 'ops' },
    }
    const key = { 'idempotency-key': 'cb-1' }
    const first = await signedPost(
      u,
      'callbacks.runtime_host_approval',
      body,
      SECRETS.AUTOMATION_SHARED_SECRET,
      key,
    )
    expect(first.status).toBe(200)
    const text = await first.text()
    expect(JSON.parse(text).message).toMatchObject({ ok: true, replay: false, packet: { state: 'approved' } })
    const replay = await signedPost(
      u,
      'callbacks.runtime_host_approval',
      body,
      SECRETS.AUTOMATION_SHARED_SECRET,
      key,
    )
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(await replay.text()).toBe(text)
    const conflict = await signedPost(
      u,
      'callbacks.runtime_host_approval',
      { ...body, decision: 'rejected' },
      SECRETS.AUTOMATION_SHARED_SECRET,
      key,
    )
    expect(conflict.status).toBe(409)
    expect((await conflict.json()).error.code).toBe('idempotency_conflict')
    const wrongToken = await signedPost(
      u,
      'callbacks.runtime_host_approval',
      { ...body, callback_token: 'nope' },
      SECRETS.AUTOMATION_SHARED_SECRET,
    )
    expect(wrongToken.status).toBe(403)
    expect((await store.findSupplierIntake(u.ctx.storage, approval.packet.target_name))?.status).toBe(
      'approved',
    )
  })

  test('50 concurrent deliveries of one keyed callback: one effect, 50 identical answers', async () => {
    u = await bootEis()
    const approval = await openPacket()
    const body = { packet: approval.packet.name, decision: 'rejected', actor: { subject: 'reviewer' } }
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        signedPost(u, 'callbacks.automation_hil_decision', body, SECRETS.AUTOMATION_SHARED_SECRET, {
          'idempotency-key': 'hil-1',
        }),
      ),
    )
    const texts = await Promise.all(answers.map((r) => r.text()))
    expect(answers.every((r) => r.status === 200)).toBe(true)
    expect(new Set(texts).size).toBe(1)
    const events = await u.ctx.storage.db
      .select({ n: count() })
      .from(integrationEvents)
      .where(eq(integrationEvents.source, 'callbacks.automation_hil_decision'))
      .get()
    expect(events?.n).toBe(1)
    expect(JSON.parse(texts[0] ?? '').message.packet.state).toBe('rejected')
  })

  test('automation_job_result fails the open packet it correlates with; unknown correlation is 404', async () => {
    u = await bootEis()
    const approval = await openPacket()
    const res = await signedPost(
      u,
      'callbacks.automation_job_result',
      { correlation_id: approval.packet.correlation_id, dispatch_id: 'd1', status: 'failed' },
      SECRETS.AUTOMATION_SHARED_SECRET,
    )
    expect((await res.json()).message.packet.state).toBe('failed')
    const unknown = await signedPost(
      u,
      'callbacks.automation_job_result',
      { correlation_id: 'nope', dispatch_id: 'd1', status: 'succeeded' },
      SECRETS.AUTOMATION_SHARED_SECRET,
    )
    expect(unknown.status).toBe(404)
  })
})

test('ticketing_inbound through its route: PWS down answers ok=false and keeps the event failed', async () => {
  const pws = fakePeer(() => json({}, 502))
  try {
    u = await bootEis({ SVC_SUPPORT_HANDOFF_URL: pws.url, SVC_SUPPORT_HANDOFF_TOKEN: 'tok' })
    const body = {
      ticket_id: 9,
      event: 'ticket.created',
      state: 'new',
      priority: '3 high',
      sequence: 1,
      business_refs: [{ doctype: 'Lead', name: 'LEAD-x' }],
    }
    const res = await signedPost(u, 'support_cases.ticketing_inbound', body, SECRETS.TICKETING_WEBHOOK_SECRET)
    expect(res.status).toBe(503)
    const out = await res.json()
    expect(out).toMatchObject({
      ok: false,
      reason: 'platform_support_handoff_failed',
      context: { missing: 1 },
      correlation_envelope: { correlation_id: 'ticketing:9' },
    })
    expect((await store.findEvent(u.ctx.storage, out.event_audit_key))?.status).toBe('failed')
    pws.respond(() => json({ ok: true }, 201))
    const retry = await signedPost(
      u,
      'support_cases.ticketing_inbound',
      body,
      SECRETS.TICKETING_WEBHOOK_SECRET,
    )
    expect(retry.status).toBe(200)
    expect((await retry.json()).message).toMatchObject({
      ok: true,
      event_audit_key: out.event_audit_key,
      platform_handoff: { status: 'delivered' },
    })
  } finally {
    pws.stop()
  }
})

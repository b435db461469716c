import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { type FakePeer, fakePeer, type Json, json } from '../../../test/harness.ts'
import { intakeSupplier } from '../service/intake.ts'
import { postSupplierIntake } from '../service/posting.ts'
import { ticketingInbound } from '../service/ticketing.ts'
import * as store from '../store.ts'
import { bootEis, call, depsOf, type EisUnit, runSql } from '../testing.ts'

let u: EisUnit
const peers: FakePeer[] = []
afterEach(async () => {
  for (const p of peers.splice(0)) p.stop()
  await u?.dispose()
})
const peer = (handler: Parameters<typeof fakePeer>[0]) => {
  const p = fakePeer(handler)
  peers.push(p)
  return p
}

const SUPPLIER = {
  vendor: { name: 'V' },
  invoice: { currency: 'EUR' },
  totals: { grand_total: 10 },
  line_items: [{ amount: 10 }],
}
async function postedIntake() {
  const { supplier_intake } = await intakeSupplier(u.ctx.storage, JSON.stringify(SUPPLIER), SUPPLIER)
  const posted = await postSupplierIntake(depsOf(u), { name: supplier_intake, force: true })
  return { intake: supplier_intake, invoice: posted.invoice }
}

describe('support_context', () => {
  test('found, missing and partial markers', async () => {
    u = await bootEis()
    const { intake, invoice } = await postedIntake()
    const res = await call(u, 'support_cases.support_context', {
      business_refs: [
        { doctype: 'Supplier Intake', name: intake },
        { doctype: 'Lead', name: 'LEAD-missing' },
        { doctype: 'Customer', name: 'ACME' },
      ],
    })
    expect(res.status).toBe(200)
    const { message } = await res.json()
    expect(message.summary).toEqual({ requested: 3, found: 1, missing: 2, partial: 0 })
    expect(message.objects[0]).toMatchObject({
      found: true,
      partial: false,
      doc: { status: 'posted', purchase_invoice: invoice },
    })
    expect(message.objects[0].linked.purchase_invoice).toMatchObject({
      doctype: 'Purchase Invoice',
      supplier: 'V',
      docstatus: 0,
    })
    expect(message.objects[1]).toMatchObject({ found: false, missing_reason: 'missing_object' })
    expect(message.objects[2]).toMatchObject({ found: false, missing_reason: 'unsupported_doctype' })
    // The invoice removed on the ERP side: the intake is still found, but only partly enriched.
    await runSql(u, sql`DELETE FROM purchase_invoices`)
    const partial = (
      await (
        await call(u, 'support_cases.support_context', {
          business_refs: [{ doctype: 'Supplier Intake', name: intake }],
        })
      ).json()
    ).message
    expect(partial.objects[0]).toMatchObject({
      found: true,
      partial: true,
      missing_links: [{ field: 'purchase_invoice', doctype: 'Purchase Invoice', name: invoice }],
    })
    expect(partial.summary.partial).toBe(1)
  })
})

const ticket = (over: Record<string, unknown> = {}) => ({
  ticket_id: 42,
  event: 'ticket.updated',
  state: 'open',
  priority: '2 normal',
  sequence: 1,
  title: 'Invoice question',
  ...over,
})

describe('ticketing_inbound (service; the signed route waits for the signature block)', () => {
  test('hands off to PWS with the bearer token and the correlation envelope; a redelivery is answered, not handed off again', async () => {
    u = await bootEis()
    const pws = peer(() => json({ ok: true, result: 'created', task_key: 'T-1' }, 201))
    const deps = depsOf(u, {
      supportHandoff: { url: `${pws.url}/api/v1/support/handoff`, token: 'handoff-token' },
    })
    const { intake } = await postedIntake()
    const body = ticket({
      article: { id: 7, body: 'Where is my invoice?', from: 'c@x.org' },
      business_refs: [{ doctype: 'Supplier Intake', name: intake }],
    })
    const raw = JSON.stringify(body)
    const out = await ticketingInbound(deps, raw, body as Json)
    expect(out).toMatchObject({
      ok: true,
      ordering: { position: 'first' },
      context: { found: 1 },
      platform_handoff: { status: 'delivered', http_status: 201 },
    })
    expect(pws.requests).toHaveLength(1)
    expect(pws.requests[0]?.path).toBe('/api/v1/support/handoff')
    expect(pws.requests[0]?.headers.get('authorization')).toBe('Bearer handoff-token')
    const sent = JSON.parse(pws.requests[0]?.body ?? '')
    expect(sent).toMatchObject({
      correlation_id: 'ticketing:42',
      source: { system: 'ticketing', ticket_id: '42', event: 'ticket.updated' },
      ticket: {
        id: '42',
        state: 'open',
        priority: '2 normal',
        title: 'Invoice question',
        article: 'Where is my invoice?',
      },
      business_refs: { items: [{ doctype: 'Supplier Intake', name: intake, found: true }] },
    })
    const again = await ticketingInbound(deps, raw, body as Json)
    expect(again).toMatchObject({
      ok: true,
      event_audit_key: out.event_audit_key,
      ordering: { position: 'duplicate' },
    })
    expect(pws.requests).toHaveLength(1)
  })

  test('PWS down: fail closed (ok=false, platform_support_handoff_failed, event failed); the redelivery retries and succeeds', async () => {
    u = await bootEis()
    const pws = peer(() => json({ error: { code: 'down', message: 'down' } }, 500))
    const deps = depsOf(u, { supportHandoff: { url: pws.url, token: 't' } })
    const body = ticket()
    const err = await ticketingInbound(deps, JSON.stringify(body), body as Json).catch((e) => e)
    expect(err).toMatchObject({
      status: 503,
      errorCode: 'platform_support_handoff_failed',
      extra: {
        ok: false,
        reason: 'platform_support_handoff_failed',
        platform_handoff: { status: 'failed', http_status: 500 },
      },
    })
    const key = err.extra.event_audit_key
    expect((await store.findEvent(u.ctx.storage, key))?.status).toBe('failed')
    pws.respond(() => json({ ok: true }, 200))
    const retry = await ticketingInbound(deps, JSON.stringify(body), body as Json)
    expect(retry).toMatchObject({
      ok: true,
      event_audit_key: key,
      ordering: { position: 'duplicate' },
      platform_handoff: { status: 'delivered' },
    })
    expect((await store.findEvent(u.ctx.storage, key))?.status).toBe('processed')
    // Unreachable and unconfigured fail closed the same way.
    pws.stop()
    const next = ticket({ sequence: 2 })
    await expect(ticketingInbound(deps, JSON.stringify(next), next as Json)).rejects.toMatchObject({
      extra: { reason: 'platform_support_handoff_failed' },
    })
    const none = ticket({ sequence: 3 })
    await expect(ticketingInbound(depsOf(u), JSON.stringify(none), none as Json)).rejects.toMatchObject({
      extra: { ok: false },
    })
  })

  test('orders by sequence: gaps and late deliveries are reported; a late state change is not handed off', async () => {
    u = await bootEis()
    const pws = peer(() => json({ ok: true }))
    const deps = depsOf(u, { supportHandoff: { url: pws.url, token: 't' } })
    const send = (over: Record<string, unknown>) => {
      const b = ticket(over)
      return ticketingInbound(deps, JSON.stringify(b), b as Json)
    }
    expect((await send({ sequence: 1 })).ordering).toEqual({
      sequence: 1,
      previous_sequence: null,
      position: 'first',
      gap: false,
    })
    expect((await send({ sequence: 4 })).ordering).toEqual({
      sequence: 4,
      previous_sequence: 1,
      position: 'in_order',
      gap: true,
    })
    const late = await send({ sequence: 2, state: 'new' })
    expect(late.ordering).toEqual({ sequence: 2, previous_sequence: 4, position: 'out_of_order', gap: false })
    expect(late.platform_handoff).toMatchObject({ status: 'skipped', reason: 'out_of_order_state_change' })
    const lateMessage = await send({
      sequence: 3,
      event: 'article.created',
      article: { id: 1, body: 'hi', from: 'x' },
    })
    expect(lateMessage.platform_handoff.status).toBe('delivered')
    expect(pws.requests).toHaveLength(3)
  })
})

describe('ticketing_outbound', () => {
  test('reply and note as ticket articles, status as a ticket update, with the Zammad token; each kept as evidence', async () => {
    const zammad = peer((req) =>
      json({ id: req.method === 'POST' ? 901 : 42 }, req.method === 'POST' ? 201 : 200),
    )
    u = await bootEis({ ZAMMAD_BASE_URL: zammad.url, ZAMMAD_TOKEN: 'zammad-token' })
    const reply = await call(u, 'support_cases.ticketing_outbound', {
      operation: 'reply',
      ticket_id: '42',
      message: { body: 'Done.', subject: 'Re' },
    })
    expect(reply.status).toBe(200)
    const r = (await reply.json()).message
    expect(r).toMatchObject({
      ok: true,
      delivery: {
        status: 'delivered',
        method: 'POST',
        path: '/api/v1/ticket_articles',
        http_status: 201,
        ticketing_id: '901',
      },
    })
    expect(zammad.requests[0]?.headers.get('authorization')).toBe('Token token=zammad-token')
    expect(JSON.parse(zammad.requests[0]?.body ?? '')).toEqual({
      ticket_id: 42,
      body: 'Done.',
      subject: 'Re',
      content_type: 'text/plain',
      type: 'web',
      internal: false,
      sender: 'Agent',
    })
    await call(u, 'support_cases.ticketing_outbound', {
      operation: 'note',
      ticket_id: 42,
      message: { body: 'internal' },
    })
    expect(JSON.parse(zammad.requests[1]?.body ?? '')).toMatchObject({ type: 'note', internal: true })
    const status = await call(u, 'support_cases.ticketing_outbound', {
      operation: 'status',
      ticket_id: 42,
      status: { state: 'closed' },
    })
    expect((await status.json()).message.delivery).toMatchObject({
      method: 'PUT',
      path: '/api/v1/tickets/42',
    })
    expect(zammad.requests[2]).toMatchObject({ method: 'PUT', path: '/api/v1/tickets/42' })
    expect(JSON.parse(zammad.requests[2]?.body ?? '')).toEqual({ state: 'closed' })
    expect((await store.findEvent(u.ctx.storage, r.audit_event))?.status).toBe('processed')
  })

  test('missing pieces are 400; Zammad refusing is 503 with ok=false and a failed audit event; unconfigured is 503', async () => {
    const zammad = peer(() => json({ error: 'no' }, 422))
    u = await bootEis({ ZAMMAD_BASE_URL: zammad.url, ZAMMAD_TOKEN: 'z' })
    expect(
      (await call(u, 'support_cases.ticketing_outbound', { operation: 'reply', ticket_id: 1 })).status,
    ).toBe(400)
    expect(
      (await call(u, 'support_cases.ticketing_outbound', { operation: 'status', ticket_id: 1, status: {} }))
        .status,
    ).toBe(400)
    const refused = await call(u, 'support_cases.ticketing_outbound', {
      operation: 'note',
      ticket_id: 1,
      message: { body: 'x' },
    })
    expect(refused.status).toBe(503)
    const body = await refused.json()
    expect(body).toMatchObject({
      ok: false,
      error: { code: 'ticketing_delivery_failed' },
      delivery: { status: 'failed', http_status: 422 },
    })
    expect((await store.findEvent(u.ctx.storage, body.audit_event))?.status).toBe('failed')
    await u.dispose()
    u = await bootEis()
    const off = await call(u, 'support_cases.ticketing_outbound', {
      operation: 'note',
      ticket_id: 1,
      message: { body: 'x' },
    })
    expect((await off.json()).error.code).toBe('ticketing_not_configured')
  })
})

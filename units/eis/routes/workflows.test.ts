import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Outbox } from '../../../db/outbox.ts'
import { fakePeer, type Json, json } from '../../../test/harness.ts'
import { decidePacket, getPacket, recordJobResult } from '../service/approvals.ts'
import { intakePayment, intakeSupplier } from '../service/intake.ts'
import * as store from '../store.ts'
import { bootEis, call, depsOf, type EisUnit, method, runSql } from '../testing.ts'

let u: EisUnit
afterEach(async () => {
  await u?.dispose()
})

const SUPPLIER = {
  vendor: { name: 'Paper Co' },
  invoice: { number: 'INV-7', currency: 'EUR' },
  totals: { net_total: 100, tax_total: 19, grand_total: 119 },
  line_items: [
    { description: 'Paper', quantity: 10, unit_price: 7.5 },
    { description: 'Toner', amount: 25 },
  ],
}
const stageSupplier = async (body: object = SUPPLIER) =>
  (await intakeSupplier(u.ctx.storage, JSON.stringify(body), body)).supplier_intake
const stageRevenue = async (customer: string | null = 'cus_1') => {
  const body = {
    id: `evt_${crypto.randomUUID()}`,
    type: 'invoice.paid',
    data: { object: { amount_paid: 4200, currency: 'usd', customer } },
  }
  return (await intakePayment(u.ctx.storage, 'payment_provider_a', JSON.stringify(body), body))
    .revenue_event as string
}
const msg = async (res: Response): Promise<Json> => ((await res.json()) as Json).message
const dispatchOutbox = (unit: EisUnit) =>
  unit.background.find((b) => b.name === 'eis-dispatch-outbox') as unknown as Outbox

describe('supplier intake: approval, then a draft Purchase Invoice', () => {
  test('approval required unless forced; approved posts once; the same post again answers the same invoice', async () => {
    u = await bootEis()
    const name = await stageSupplier()
    const refused = await call(u, 'workflows.post_supplier_intake', { name })
    expect(refused.status).toBe(422)
    expect((await refused.json()).error.code).toBe('approval_required')

    const req = await call(u, 'workflows.request_supplier_intake_approval', {
      name,
      approval_context: { reason: 'monthly paper' },
    })
    expect(req.status).toBe(200)
    const approval = await msg(req)
    expect(approval.packet).toMatchObject({
      state: 'requested',
      target_doctype: 'Supplier Intake',
      target_name: name,
    })
    expect((await store.findSupplierIntake(u.ctx.storage, name))?.status).toBe('pending_approval')
    const second = await call(u, 'workflows.request_supplier_intake_approval', { name })
    expect(second.status).toBe(409)

    const decided = await decidePacket(depsOf(u), {
      packet: approval.packet.name,
      decision: 'approved',
      callback_token: approval.callback_token as string,
      actor: { subject: 'ops' },
      via: 'runtime_host',
    })
    expect(decided.packet.state).toBe('approved')
    expect((await store.findSupplierIntake(u.ctx.storage, name))?.status).toBe('approved')

    const posted = await call(u, 'workflows.post_supplier_intake', { name })
    expect(posted.status).toBe(200)
    const result = await msg(posted)
    expect(result).toMatchObject({
      name,
      status: 'posted',
      invoice_doctype: 'Purchase Invoice',
      docstatus: 0,
      already_posted: false,
    })
    const invoice = await store.findPurchaseInvoice(u.ctx.storage, result.invoice as string)
    expect(invoice).toMatchObject({ supplier: 'Paper Co', grandTotal: 119, currency: 'EUR', docstatus: 0 })
    expect(invoice?.items).toEqual([
      { item_name: 'Paper', qty: 10, rate: 7.5, amount: 75 },
      { item_name: 'Toner', qty: 1, rate: 25, amount: 25 },
    ])
    const again = await msg(await call(u, 'workflows.post_supplier_intake', { name }))
    expect(again).toMatchObject({ invoice: result.invoice, already_posted: true })
  })

  test('inconsistent totals put the intake in posting_error, kept, and force cannot post a rejected intake', async () => {
    u = await bootEis()
    const name = await stageSupplier({ ...SUPPLIER, totals: { grand_total: 500 } })
    const res = await call(u, 'workflows.post_supplier_intake', { name, force: true })
    expect(res.status).toBe(422)
    const body = await res.json()
    expect(body.error).toMatchObject({
      code: 'posting_error',
      details: { name, status: 'posting_error', posting_error: { code: 'totals_mismatch' } },
    })
    expect(await store.findSupplierIntake(u.ctx.storage, name)).toMatchObject({
      status: 'posting_error',
      postingError: { code: 'totals_mismatch' },
    })

    const other = await stageSupplier({ vendor: { name: 'X' } })
    const packet = await msg(
      await call(u, 'workflows.request_approval', { target_doctype: 'Supplier Intake', target_name: other }),
    )
    await decidePacket(depsOf(u), {
      packet: packet.packet.name,
      decision: 'rejected',
      actor: {},
      via: 'automation_hil',
    })
    const forced = await call(u, 'workflows.post_supplier_intake', { name: other, force: true })
    expect((await forced.json()).error.code).toBe('approval_rejected')
  })
})

test('revenue events post as draft Sales Invoices; no customer is a posting error', async () => {
  u = await bootEis()
  const rev = await stageRevenue()
  const posted = await msg(await call(u, 'workflows.post_revenue_event', { name: rev }))
  expect(posted).toMatchObject({ status: 'posted', invoice_doctype: 'Sales Invoice' })
  expect(await store.findSalesInvoice(u.ctx.storage, posted.invoice as string)).toMatchObject({
    customer: 'cus_1',
    grandTotal: 42,
    currency: 'USD',
  })
  const anonymous = await stageRevenue(null)
  const res = await call(u, 'workflows.post_revenue_event', { name: anonymous })
  expect(res.status).toBe(422)
  expect((await res.json()).error.details.posting_error.code).toBe('customer_missing')
  expect((await call(u, 'workflows.post_revenue_event', { name: 'REV-nope' })).status).toBe(404)
})

describe('dispatch to the runtime host (RMS)', () => {
  test('records the packet on RMS as a pending approval with the bearer token, then reads dispatched', async () => {
    const rms = fakePeer((req) => json({ approval_id: JSON.parse(req.body).approval_id }, 201))
    try {
      u = await bootEis({ SVC_RMS_URL: rms.url, SVC_RMS_TOKEN: 'rms-token' })
      const rev = await stageRevenue()
      const approval = await msg(await call(u, 'workflows.request_revenue_event_approval', { name: rev }))
      expect(approval.runtime_host_configured).toBe(true)
      const res = await call(u, 'workflows.dispatch_approval_packet', { packet: approval.packet.name })
      expect(res.status).toBe(200)
      const out = await msg(res)
      expect(out).toMatchObject({
        dispatched: true,
        packet: { state: 'dispatched', dispatch: { delivery: 'queued' } },
      })
      expect(await dispatchOutbox(u).deliverDue()).toBe(1)
      const delivered = await msg(
        await call(u, 'workflows.approval_packet_status', { packet: approval.packet.name }),
      )
      expect(delivered.dispatch.delivery).toBe('delivered')
      const snapshot = await u.request(method('health.integration_status'))
      expect((await snapshot.json()).message.runtime_host_dispatch).toMatchObject({
        pending: 0,
        delivered: 1,
        dead: 0,
      })
      expect(rms.requests).toHaveLength(1)
      expect(rms.requests[0]?.path).toBe('/api/v1/execution/approvals')
      expect(rms.requests[0]?.headers.get('authorization')).toBe('Bearer rms-token')
      expect(JSON.parse(rms.requests[0]?.body ?? '')).toEqual({
        approval_id: approval.packet.name,
        proposal_ref: `Revenue Event:${rev}`,
        decision: 'pending',
        policy_approved: false,
        human_approved: false,
      })
      const repeat = await msg(
        await call(u, 'workflows.dispatch_approval_packet', { packet: approval.packet.name }),
      )
      expect(repeat).toMatchObject({ dispatched: false, reason: 'already_dispatched' })
      expect(rms.requests).toHaveLength(1)
      // A failed automation job fails the open packet; a decision then no longer lands.
      await recordJobResult(depsOf(u), {
        correlation_id: approval.packet.correlation_id,
        dispatch_id: 'd-1',
        status: 'failed',
      })
      const status = await msg(
        await call(u, 'workflows.approval_packet_status', { packet: approval.packet.name }),
      )
      expect(status.state).toBe('failed')
      await expect(
        decidePacket(depsOf(u), {
          packet: approval.packet.name,
          decision: 'approved',
          actor: {},
          via: 'automation_hil',
        }),
      ).rejects.toMatchObject({ errorCode: 'packet_failed' })
    } finally {
      rms.stop()
    }
  })

  test('RMS down: the dispatch stays queued and is retried until RMS answers; RMS unset: 503', async () => {
    const rms = fakePeer(() => json({ error: { code: 'x', message: 'down' } }, 500))
    try {
      u = await bootEis({ SVC_RMS_URL: rms.url })
      const rev = await stageRevenue()
      const approval = await msg(await call(u, 'workflows.request_revenue_event_approval', { name: rev }))
      const res = await call(u, 'workflows.dispatch_approval_packet', { packet: approval.packet.name })
      expect(res.status).toBe(200)
      expect(await dispatchOutbox(u).deliverDue()).toBe(0)
      const failed = await msg(
        await call(u, 'workflows.approval_packet_status', { packet: approval.packet.name }),
      )
      expect(failed).toMatchObject({ state: 'dispatched', dispatch: { delivery: 'failed' } })
      // The retry waits for its backoff; make it due now, as time would.
      await runSql(u, sql`UPDATE outbox_messages SET next_attempt_at = '2000-01-01T00:00:00.000Z'`)
      rms.respond(() => json({}, 201))
      expect(await dispatchOutbox(u).deliverDue()).toBe(1)
      expect(rms.requests).toHaveLength(2)
      expect(rms.requests[1]?.body).toBe(rms.requests[0]?.body ?? '')
    } finally {
      rms.stop()
    }
    await u.dispose()
    u = await bootEis()
    const rev = await stageRevenue()
    const approval = await msg(await call(u, 'workflows.request_revenue_event_approval', { name: rev }))
    const res = await call(u, 'workflows.dispatch_approval_packet', { packet: approval.packet.name })
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe('runtime_host_not_configured')
    expect(
      (await msg(await call(u, 'workflows.approval_packet_status', { packet: approval.packet.name }))).state,
    ).toBe('requested')
  })
})

test('decisions: wrong callback token 403, a replay changes nothing, an expired packet refuses', async () => {
  u = await bootEis()
  const rev = await stageRevenue()
  const approval = await msg(
    await call(u, 'workflows.request_approval', { target_doctype: 'Revenue Event', target_name: rev }),
  )
  const deps = depsOf(u)
  const base = {
    packet: approval.packet.name,
    decision: 'approved' as const,
    actor: {},
    via: 'runtime_host' as const,
  }
  await expect(decidePacket(deps, { ...base, callback_token: 'wrong' })).rejects.toMatchObject({
    status: 403,
  })
  const first = await decidePacket(deps, { ...base, callback_token: approval.callback_token as string })
  const replay = await decidePacket(deps, { ...base, callback_token: approval.callback_token as string })
  expect(replay).toEqual({ ...first, replay: true })
  await expect(decidePacket(deps, { ...base, decision: 'rejected' })).rejects.toMatchObject({
    status: 409,
    errorCode: 'packet_decided',
  })

  const rev2 = await stageRevenue()
  const short = await msg(
    await call(u, 'workflows.request_approval', {
      target_doctype: 'Revenue Event',
      target_name: rev2,
      expires_in_s: 60,
    }),
  )
  const late = { ...deps, now: () => Date.now() + 61_000 }
  await expect(decidePacket(late, { ...base, packet: short.packet.name })).rejects.toMatchObject({
    errorCode: 'packet_expired',
  })
  expect((await getPacket(late, short.packet.name)).state).toBe('expired')
})

test('request_approval: unknown target 404, unknown doctype 400', async () => {
  u = await bootEis()
  expect(
    (await call(u, 'workflows.request_approval', { target_doctype: 'Lead', target_name: 'LEAD-x' })).status,
  ).toBe(404)
  expect(
    (await call(u, 'workflows.request_approval', { target_doctype: 'Customer', target_name: 'x' })).status,
  ).toBe(400)
})

import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import {
  PaymentProviderAEvent,
  PaymentProviderBEvent,
  SupplierIntakePayload,
  WebsiteContactIntake,
} from '../model/webhooks.ts'
import * as store from '../store.ts'
import { bootEis, type EisUnit, webContact } from '../testing.ts'
import { intakeContact, intakePayment, intakeSupplier } from './intake.ts'

let u: EisUnit
beforeEach(async () => {
  u = await bootEis()
})
afterEach(async () => {
  await u.dispose()
})

describe('website contact intake', () => {
  test("WEB's payload validates, with extra fields inside its blocks", () => {
    const body = webContact('a@b.org', { source_page: '/contact', locale: 'de' })
    expect(Value.Check(WebsiteContactIntake, body)).toBe(true)
    const extended = {
      ...body,
      contact: { ...body.contact, newsletter: true },
      platform_event: { ...body.platform_event, trace: 'x' },
    }
    expect(Value.Check(WebsiteContactIntake, extended)).toBe(true)
  })

  test('creates a Lead, updates it for the same e-mail, and a redelivery creates nothing', async () => {
    const first = webContact()
    const raw = JSON.stringify(first)
    const a = await intakeContact(u.ctx.storage, raw, first)
    expect(a).toMatchObject({ target_doctype: 'Lead', ack: true, duplicate: false })
    expect(a.lead).toStartWith('LEAD-')
    const again = await intakeContact(u.ctx.storage, raw, first)
    expect(again).toEqual({ ...a, duplicate: true })
    const second = webContact('ada@example.ORG')
    const b = await intakeContact(u.ctx.storage, JSON.stringify(second), second)
    expect(b.lead).toBe(a.lead)
    expect(b.integration_event).not.toBe(a.integration_event)
    const lead = await store.findLead(u.ctx.storage, a.lead)
    expect(lead).toMatchObject({
      emailId: 'ada@example.org',
      intakeCount: 2,
      companyName: 'ACME',
      source: 'website_contact_form',
    })
    expect(await store.eventCounts(u.ctx.storage)).toEqual({ processed: 2 })
    const event = await store.findEvent(u.ctx.storage, a.integration_event)
    expect(event?.payload).toBe(raw)
  })
})

describe('payment webhooks', () => {
  const aEvent = (id: string, type = 'payment_intent.succeeded') => ({
    id,
    type,
    data: { object: { id: 'pi_1', amount_received: 12345, currency: 'eur', customer: 'cus_1' } },
  })
  test('provider A stages a revenue event once per provider event id; other types are evidence only', async () => {
    const body = aEvent('evt_1')
    expect(Value.Check(PaymentProviderAEvent, body)).toBe(true)
    const r = await intakePayment(u.ctx.storage, 'payment_provider_a', JSON.stringify(body), body)
    expect(r).toMatchObject({ ok: true, duplicate: false, status: 'processed' })
    const rev = await store.findRevenueEvent(u.ctx.storage, r.revenue_event as string)
    expect(rev).toMatchObject({
      status: 'staged',
      amount: 123.45,
      currency: 'EUR',
      customer: 'cus_1',
      providerEventId: 'evt_1',
    })
    expect(await intakePayment(u.ctx.storage, 'payment_provider_a', JSON.stringify(body), body)).toEqual({
      ...r,
      duplicate: true,
    })
    const refund = aEvent('evt_2', 'charge.refunded')
    const ignored = await intakePayment(u.ctx.storage, 'payment_provider_a', JSON.stringify(refund), refund)
    expect(ignored).toMatchObject({ status: 'ignored', revenue_event: null })
    expect((await store.tableCounts(u.ctx.storage)).revenue_events).toBe(1)
  })

  test('provider B reads string totals in minor units (zero-decimal currencies as they are)', async () => {
    const body = {
      event_id: 'evt_b1',
      event_type: 'transaction.completed',
      data: {
        id: 'txn_1',
        currency_code: 'JPY',
        customer_id: 'ctm_1',
        details: { totals: { grand_total: '5000' } },
      },
    }
    expect(Value.Check(PaymentProviderBEvent, body)).toBe(true)
    const r = await intakePayment(u.ctx.storage, 'payment_provider_b', JSON.stringify(body), body)
    expect(await store.findRevenueEvent(u.ctx.storage, r.revenue_event as string)).toMatchObject({
      amount: 5000,
      currency: 'JPY',
      provider: 'payment_provider_b',
    })
  })
})

test('supplier intake is staged from the normalized payload; the same intake_id twice stages once', async () => {
  const body = {
    intake_id: 'mail-42',
    vendor: { name: 'Paper Co' },
    invoice: { number: 'INV-7', currency: 'eur' },
    totals: { net_total: '100.00', tax_total: 19, grand_total: 119 },
    line_items: [{ description: 'Paper', quantity: 10, unit_price: 10, amount: 100 }],
    attachments: [{ filename: 'inv.pdf' }],
  }
  expect(Value.Check(SupplierIntakePayload, body)).toBe(true)
  const r = await intakeSupplier(u.ctx.storage, JSON.stringify(body), body)
  expect(r).toMatchObject({ ok: true, duplicate: false, status: 'staged' })
  expect(await store.findSupplierIntake(u.ctx.storage, r.supplier_intake)).toMatchObject({
    supplierName: 'Paper Co',
    billNo: 'INV-7',
    currency: 'EUR',
    grandTotal: 119,
  })
  const again = await intakeSupplier(u.ctx.storage, JSON.stringify({ ...body, extra: 1 }), body)
  expect(again).toEqual({ ...r, duplicate: true })
})

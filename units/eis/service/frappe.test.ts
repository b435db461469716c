import { afterEach, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { type FakePeer, fakePeer, type Json, json, type TestResponse } from '../../../test/harness.ts'
import * as store from '../store.ts'
import { bootEis, call, type EisUnit, SECRETS, signedPost, webContact } from '../testing.ts'
import { frappeErp } from './frappe.ts'
import { intakePayment, intakeSupplier } from './intake.ts'

let u: EisUnit
let frappe: FakePeer
afterEach(async () => {
  frappe?.stop()
  await u?.dispose()
})

/**
 * A stand-in for Frappe's REST API: /api/resource/<Doctype>[/<name>]: POST inserts (Frappe
 * names the document), PUT updates fields of an existing one, GET reads one or lists names with
 * one `[field, "=", value]` filter.
 */
function fakeFrappe() {
  const docs = new Map<string, Record<string, unknown>>()
  const prefix: Record<string, string> = {
    Lead: 'CRM-LEAD',
    'Purchase Invoice': 'ACC-PINV',
    'Sales Invoice': 'ACC-SINV',
  }
  let seq = 0
  return fakePeer((req) => {
    if (req.headers.get('authorization') !== 'token key-1:secret-1')
      return json({ exc_type: 'AuthenticationError' }, 401)
    const url = new URL(req.path, 'http://x')
    const [, , , doctypeRaw, nameRaw] = url.pathname.split('/')
    const doctype = decodeURIComponent(doctypeRaw ?? '')
    if (req.method === 'POST') {
      const name = `${prefix[doctype] ?? doctype}-2026-${String(++seq).padStart(5, '0')}`
      const doc = { ...JSON.parse(req.body), name, doctype }
      docs.set(`${doctype}/${name}`, doc)
      return json({ data: doc })
    }
    if (nameRaw) {
      const key = `${doctype}/${decodeURIComponent(nameRaw)}`
      const doc = docs.get(key)
      if (!doc) return json({ exc_type: 'DoesNotExistError' }, 404)
      if (req.method === 'PUT') {
        const updated = { ...doc, ...JSON.parse(req.body), name: doc.name, doctype }
        docs.set(key, updated)
        return json({ data: updated })
      }
      return json({ data: doc })
    }
    const [[field, , value]] = JSON.parse(url.searchParams.get('filters') ?? '[[]]')
    const found = [...docs.values()]
      .filter((d) => d.doctype === doctype && d[field] === value)
      .map((d) => ({ name: d.name }))
    return json({ data: found })
  })
}

const ERP = { ERP_API_KEY: 'key-1', ERP_API_SECRET: 'secret-1' }
const SUPPLIER = {
  vendor: { name: 'Paper Co' },
  invoice: { number: 'B-1', currency: 'EUR' },
  totals: { grand_total: 50 },
  line_items: [{ description: 'Paper', amount: 50 }],
}

test('with ERP_BASE_URL, drafts go to Frappe with token auth, once per staged record, and are read back from it', async () => {
  frappe = fakeFrappe()
  u = await bootEis({ ERP_BASE_URL: frappe.url, ...ERP })
  const status = (await (await u.request('/api/method/svc_erp_core.api.health.integration_status')).json())
    .message
  expect(status.erp_backend).toBe('frappe')
  const { supplier_intake } = await intakeSupplier(u.ctx.storage, JSON.stringify(SUPPLIER), SUPPLIER)
  const posted = (
    await (await call(u, 'workflows.post_supplier_intake', { name: supplier_intake, force: true })).json()
  ).message
  expect(posted).toMatchObject({ status: 'posted', invoice: 'ACC-PINV-2026-00001', docstatus: 0 })
  const insert = frappe.requests.find((r) => r.method === 'POST')
  expect(insert?.path).toBe('/api/resource/Purchase%20Invoice')
  expect(JSON.parse(insert?.body ?? '')).toMatchObject({
    supplier: 'Paper Co',
    bill_no: 'B-1',
    currency: 'EUR',
    docstatus: 0,
    remarks: `EIS Supplier Intake ${supplier_intake}`,
    items: [{ item_name: 'Paper', qty: 1, rate: 50, amount: 50 }],
  })

  // The local update was lost (crash after Frappe answered): posting again finds the invoice, creates none.
  await u.ctx.storage.transaction((tx) =>
    tx.run(sql`UPDATE supplier_intakes SET status = 'approved', purchase_invoice = NULL`),
  )
  const again = (await (await call(u, 'workflows.post_supplier_intake', { name: supplier_intake })).json())
    .message
  expect(again.invoice).toBe('ACC-PINV-2026-00001')
  expect(frappe.requests.filter((r) => r.method === 'POST')).toHaveLength(1)

  const context = (
    await (
      await call(u, 'support_cases.support_context', {
        business_refs: [
          { doctype: 'Purchase Invoice', name: posted.invoice },
          { doctype: 'Sales Invoice', name: 'ACC-SINV-404' },
        ],
      })
    ).json()
  ).message
  expect(context.objects[0]).toMatchObject({ found: true, doc: { supplier: 'Paper Co' }, linked: {} })
  expect(context.objects[1]).toMatchObject({ found: false, missing_reason: 'missing_object' })
})

test('Frappe down or refusing: 503 erp_unavailable, the record is not marked posted; support context marks the backend unavailable', async () => {
  frappe = fakeFrappe()
  u = await bootEis({ ERP_BASE_URL: frappe.url, ERP_API_KEY: 'key-1', ERP_API_SECRET: 'wrong' })
  const body = {
    id: 'evt_f',
    type: 'charge.succeeded',
    data: { object: { amount: 100, currency: 'eur', customer: 'c' } },
  }
  const rev = (await intakePayment(u.ctx.storage, 'payment_provider_a', JSON.stringify(body), body))
    .revenue_event as string
  const res = await call(u, 'workflows.post_revenue_event', { name: rev })
  expect(res.status).toBe(503)
  expect((await res.json()).error.code).toBe('erp_unavailable')
  expect((await store.findRevenueEvent(u.ctx.storage, rev))?.status).toBe('staged')
  const context = (
    await (
      await call(u, 'support_cases.support_context', {
        business_refs: [{ doctype: 'Sales Invoice', name: 'x' }],
      })
    ).json()
  ).message
  expect(context.objects[0]).toMatchObject({ found: false, missing_reason: 'backend_unavailable' })
})

test('ERP_BASE_URL without the key and secret is a start-up error', async () => {
  await expect(bootEis({ ERP_BASE_URL: 'http://127.0.0.1:1' })).rejects.toThrow('ERP_API_SECRET')
})

const CONTACT = 'webhooks.website_contact_intake'
const contactMessage = async (res: TestResponse): Promise<Json> => {
  expect(res.status).toBe(200)
  return (await res.json()).message
}

test('with ERP_BASE_URL, the contact intake creates then updates the Lead in Frappe (by email_id); the evidence stays in EIS', async () => {
  frappe = fakeFrappe()
  u = await bootEis({ ERP_BASE_URL: frappe.url, ...ERP })
  const first = webContact('Ada@Example.org')
  const a = await contactMessage(await signedPost(u, CONTACT, first, SECRETS.ERP_API_SHARED_SECRET))
  expect(a).toMatchObject({
    target_doctype: 'Lead',
    lead: 'CRM-LEAD-2026-00001',
    ack: true,
    duplicate: false,
  })
  const insert = frappe.requests.find((r) => r.method === 'POST')
  expect(insert?.path).toBe('/api/resource/Lead')
  expect(insert?.headers.get('authorization')).toBe('token key-1:secret-1')
  expect(JSON.parse(insert?.body ?? '')).toMatchObject({
    lead_name: 'Ada',
    first_name: 'Ada',
    email_id: 'ada@example.org',
    company_name: 'ACME',
  })
  // Nothing of the Lead in EIS's own tables; the Integration Event names Frappe's Lead.
  expect((await store.tableCounts(u.ctx.storage)).leads).toBe(0)
  expect(await store.findEvent(u.ctx.storage, a.integration_event)).toMatchObject({
    status: 'processed',
    referenceDoctype: 'Lead',
    referenceName: 'CRM-LEAD-2026-00001',
  })

  // A redelivery is answered from the evidence: Frappe is not asked again.
  const asked = frappe.requests.length
  const again = await contactMessage(await signedPost(u, CONTACT, first, SECRETS.ERP_API_SHARED_SECRET))
  expect(again).toEqual({ ...a, duplicate: true })
  expect(frappe.requests.length).toBe(asked)

  // Another intake of the same address (other case) updates that Lead.
  const second = webContact('ADA@example.org')
  second.contact.name = 'Ada Lovelace'
  const b = await contactMessage(await signedPost(u, CONTACT, second, SECRETS.ERP_API_SHARED_SECRET))
  expect(b).toMatchObject({ lead: 'CRM-LEAD-2026-00001', duplicate: false })
  expect(b.integration_event).not.toBe(a.integration_event)
  const update = frappe.requests.find((r) => r.method === 'PUT')
  expect(update?.path).toBe('/api/resource/Lead/CRM-LEAD-2026-00001')
  expect(JSON.parse(update?.body ?? '')).toMatchObject({
    lead_name: 'Ada Lovelace',
    email_id: 'ada@example.org',
  })

  // Lead lookup (the MCP tool's operation) and support context read the Lead from Frappe.
  const erp = frappeErp(u.ctx.storage, {
    baseUrl: frappe.url,
    apiKey: 'key-1',
    apiSecret: 'secret-1',
    timeoutMs: 2000,
  })
  expect(await erp.findLeadByEmail('ada@example.org')).toMatchObject({
    doctype: 'Lead',
    name: 'CRM-LEAD-2026-00001',
    lead_name: 'Ada Lovelace',
  })
  expect(await erp.findLeadByEmail('nobody@example.org')).toBeUndefined()
  const context = (
    await (
      await call(u, 'support_cases.support_context', {
        business_refs: [{ doctype: 'Lead', name: 'CRM-LEAD-2026-00001' }],
      })
    ).json()
  ).message
  expect(context.objects[0]).toMatchObject({ found: true, doc: { email_id: 'ada@example.org' } })
})

test('with ERP_BASE_URL, 10 concurrent intakes of a new address make one Lead in Frappe', async () => {
  frappe = fakeFrappe()
  u = await bootEis({ ERP_BASE_URL: frappe.url, ...ERP })
  const answers = await Promise.all(
    Array.from({ length: 10 }, () =>
      signedPost(u, CONTACT, webContact('rush@example.org'), SECRETS.ERP_API_SHARED_SECRET),
    ),
  )
  const messages = await Promise.all(answers.map(contactMessage))
  expect(new Set(messages.map((m) => m.lead))).toEqual(new Set(['CRM-LEAD-2026-00001']))
  expect(frappe.requests.filter((r) => r.method === 'POST')).toHaveLength(1)
  expect(frappe.requests.filter((r) => r.method === 'PUT')).toHaveLength(9)
})

test('with ERP_BASE_URL, Frappe refusing the Lead: 503 erp_unavailable and no evidence, so the sender retries', async () => {
  frappe = fakeFrappe()
  u = await bootEis({ ERP_BASE_URL: frappe.url, ERP_API_KEY: 'key-1', ERP_API_SECRET: 'wrong' })
  const res = await signedPost(u, CONTACT, webContact(), SECRETS.ERP_API_SHARED_SECRET)
  expect(res.status).toBe(503)
  expect((await res.json()).error.code).toBe('erp_unavailable')
  expect(await store.eventCounts(u.ctx.storage)).toEqual({})
})

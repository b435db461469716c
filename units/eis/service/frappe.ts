/**
 * The Frappe/ERPNext backend (`ERP_BASE_URL` with `ERP_API_KEY` and `ERP_API_SECRET`): Leads and
 * draft invoices are created, updated and read over Frappe's REST API
 * (`/api/resource/<Doctype>`, header `Authorization: token <key>:<secret>`). Everything else
 * (staged records, approval packets, Integration Event evidence) stays in EIS (see erp.ts).
 *
 * A Lead is found by `email_id` (the intake lower-cases it) and updated, else created; upserts of
 * one address are serialized in this process, so concurrent intakes of a new address create one
 * Lead (two EIS processes on one Frappe could still race: Frappe has no unique e-mail on Lead).
 *
 * At most one invoice per staged record: the invoice carries `remarks: "<marker>"` naming the
 * record, and EIS looks for it before creating one (a retry after a lost answer finds it).
 */
import { Type as T } from '@sinclair/typebox'
import { AppError } from '../../../common/errors.ts'
import { callPeer } from '../../../common/peer.ts'
import type { Storage } from '../../../db/storage.ts'
import type { InvoiceItem } from '../tables.ts'
import { type Doc, type ErpBackend, embeddedErp, type LeadFields } from './erp.ts'

export interface FrappeSettings {
  baseUrl: string
  apiKey: string
  apiSecret: string
  timeoutMs: number
}

/** Frappe could not be asked or refused: 503 `erp_unavailable`; nothing is marked posted. */
export class ErpUnavailable extends AppError {
  constructor(detail: string) {
    super(503, 'erp_unavailable', 'The ERP backend (Frappe) did not answer as expected.', { detail })
    this.name = 'ErpUnavailable'
  }
}

const FrappeData = T.Object({ data: T.Record(T.String(), T.Unknown()) })
const FrappeList = T.Object({ data: T.Array(T.Object({ name: T.String() })) })
const REMOTE_DOCTYPES = new Set(['Lead', 'Purchase Invoice', 'Sales Invoice'])

export const marker = (doctype: string, name: string) => `EIS ${doctype} ${name}`

export function frappeErp(storage: Storage, s: FrappeSettings): ErpBackend {
  const local = embeddedErp(storage)
  const base = s.baseUrl.replace(/\/$/, '')
  const headers = { authorization: `token ${s.apiKey}:${s.apiSecret}` }
  const resource = (doctype: string) => `${base}/api/resource/${encodeURIComponent(doctype)}`

  /** The name of the first `doctype` document whose `field` equals `value`. */
  async function find(doctype: string, field: string, value: string): Promise<string | undefined> {
    const query = new URLSearchParams({
      filters: JSON.stringify([[field, '=', value]]),
      fields: JSON.stringify(['name']),
    })
    const answer = await callPeer({
      url: `${resource(doctype)}?${query}`,
      headers,
      timeoutMs: s.timeoutMs,
      schema: FrappeList,
    })
    if (!answer.ok) throw new ErpUnavailable(`Frappe ${doctype} lookup: ${answer.reason}: ${answer.message}`)
    return answer.body.data[0]?.name
  }

  async function createDraft(
    doctype: string,
    doc: Record<string, unknown>,
    remarks: string,
  ): Promise<string> {
    const existing = await find(doctype, 'remarks', remarks)
    if (existing) return existing
    return write('POST', doctype, resource(doctype), { ...doc, docstatus: 0, remarks })
  }

  /** POST a new document or PUT changes to one; the name Frappe answers. */
  async function write(
    method: 'POST' | 'PUT',
    doctype: string,
    url: string,
    doc: Record<string, unknown>,
  ): Promise<string> {
    const what = method === 'POST' ? 'insert' : 'update'
    const answer = await callPeer({
      url,
      method,
      json: doc,
      headers,
      timeoutMs: s.timeoutMs,
      schema: FrappeData,
    })
    if (!answer.ok) throw new ErpUnavailable(`Frappe ${doctype} ${what}: ${answer.reason}: ${answer.message}`)
    const name = answer.body.data.name
    if (typeof name !== 'string') throw new ErpUnavailable(`Frappe ${doctype} ${what} answered no name`)
    return name
  }

  const leadLocks = new KeyedLock()

  async function upsertLead(fields: LeadFields) {
    // first_name is what ERPNext 14+ builds lead_name from; lead_name keeps older versions happy.
    const doc = { ...fields, first_name: fields.lead_name }
    return leadLocks.run(fields.email_id, async () => {
      const existing = await find('Lead', 'email_id', fields.email_id)
      if (existing) {
        const url = `${resource('Lead')}/${encodeURIComponent(existing)}`
        // Fields the intake did not carry keep what the Lead has.
        const patch = Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== null))
        return { name: await write('PUT', 'Lead', url, patch), action: 'updated' as const }
      }
      return { name: await write('POST', 'Lead', resource('Lead'), doc), action: 'created' as const }
    })
  }

  const items = (list: InvoiceItem[]) =>
    list.map((i) => ({
      item_name: i.item_name,
      description: i.item_name,
      qty: i.qty,
      rate: i.rate,
      amount: i.amount,
    }))

  return {
    kind: 'frappe',
    upsertLead,
    async findLeadByEmail(email) {
      const name = await find('Lead', 'email_id', email)
      return name === undefined ? undefined : this.getDoc('Lead', name)
    },
    async getDoc(doctype, name): Promise<Doc | undefined> {
      if (!REMOTE_DOCTYPES.has(doctype)) return local.getDoc(doctype, name)
      const answer = await callPeer({
        url: `${resource(doctype)}/${encodeURIComponent(name)}`,
        headers,
        timeoutMs: s.timeoutMs,
        schema: FrappeData,
        acceptStatus: [404],
      })
      if (!answer.ok) throw new ErpUnavailable(`Frappe ${doctype} read: ${answer.reason}: ${answer.message}`)
      return answer.status === 404 ? undefined : { doctype, ...answer.body.data }
    },
    createPurchaseInvoice: (supplierIntake, draft) =>
      createDraft(
        'Purchase Invoice',
        {
          supplier: draft.supplier,
          bill_no: draft.bill_no,
          currency: draft.currency,
          items: items(draft.items),
        },
        marker('Supplier Intake', supplierIntake),
      ),
    createSalesInvoice: (revenueEvent, draft) =>
      createDraft(
        'Sales Invoice',
        { customer: draft.customer, currency: draft.currency, items: items(draft.items) },
        marker('Revenue Event', revenueEvent),
      ),
  }
}

/** One holder per key at a time, in arrival order; keys nobody waits on are forgotten. */
class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve()
    const mine = before.then(fn, fn)
    const tail = mine.catch(() => {})
    this.tails.set(key, tail)
    try {
      return await mine
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}

/**
 * The Frappe/ERPNext backend (`ERP_BASE_URL` with `ERP_API_KEY` and `ERP_API_SECRET`): draft
 * invoices are created and read over Frappe's REST API (`/api/resource/<Doctype>`, header
 * `Authorization: token <key>:<secret>`). Everything else stays in EIS (see erp.ts).
 *
 * At most one invoice per staged record: the invoice carries `remarks: "<marker>"` naming the
 * record, and EIS looks for it before creating one (a retry after a lost answer finds it).
 */
import { Type as T } from '@sinclair/typebox'
import { AppError } from '../../../common/errors.ts'
import { callPeer } from '../../../common/peer.ts'
import type { Db } from '../../../db/sqlite.ts'
import type { InvoiceItem } from '../tables.ts'
import { type Doc, type ErpBackend, embeddedErp } from './erp.ts'

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
const REMOTE_DOCTYPES = new Set(['Purchase Invoice', 'Sales Invoice'])

export const marker = (doctype: string, name: string) => `EIS ${doctype} ${name}`

export function frappeErp(db: Db, s: FrappeSettings): ErpBackend {
  const local = embeddedErp(db)
  const base = s.baseUrl.replace(/\/$/, '')
  const headers = { authorization: `token ${s.apiKey}:${s.apiSecret}` }
  const resource = (doctype: string) => `${base}/api/resource/${encodeURIComponent(doctype)}`

  async function find(doctype: string, remarks: string): Promise<string | undefined> {
    const query = new URLSearchParams({
      filters: JSON.stringify([['remarks', '=', remarks]]),
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
    const existing = await find(doctype, remarks)
    if (existing) return existing
    const answer = await callPeer({
      url: resource(doctype),
      method: 'POST',
      json: { ...doc, docstatus: 0, remarks },
      headers,
      timeoutMs: s.timeoutMs,
      schema: FrappeData,
    })
    if (!answer.ok) throw new ErpUnavailable(`Frappe ${doctype} insert: ${answer.reason}: ${answer.message}`)
    const name = answer.body.data.name
    if (typeof name !== 'string') throw new ErpUnavailable(`Frappe ${doctype} insert answered no name`)
    return name
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

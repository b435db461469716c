/**
 * The ERP backend: where draft invoices go and where documents are read. Embedded by default
 * (EIS's own SQLite); the staged integration records (Supplier Intake, Revenue Event, Approval
 * Packet, Integration Event) always live in EIS.
 */
import type { Storage } from '../../../db/storage.ts'
import type { PurchaseDraft, SalesDraft } from '../rules/invoice.ts'
import { docName, SERIES } from '../rules/naming.ts'
import * as store from '../store.ts'
import { eventView } from './evidence.ts'

export type Doc = Record<string, unknown>

/** The Lead fields a contact intake sets (Frappe's field names). */
export interface LeadFields {
  lead_name: string
  email_id: string
  company_name: string | null
  phone: string | null
}

export interface ErpBackend {
  kind: 'embedded' | 'frappe'
  /** A document as Frappe would return it (`doctype`, `name`, snake_case fields), or undefined. */
  getDoc(doctype: string, name: string): Promise<Doc | undefined>
  /** The Lead of a lower-cased e-mail address, as `getDoc` returns it, or undefined. */
  findLeadByEmail(email: string): Promise<Doc | undefined>
  /**
   * Present when Leads live in the backend (Frappe): create the Lead of `fields.email_id`, or
   * update the one that has it. Absent on the embedded backend, where the contact intake writes
   * the Lead in its own transaction (service/intake.ts).
   */
  upsertLead?(fields: LeadFields): Promise<{ name: string; action: 'created' | 'updated' }>
  /** Create a draft invoice for a staged record (at most one per record); returns its name. */
  createPurchaseInvoice(supplierIntake: string, draft: PurchaseDraft, at: string): Promise<string>
  createSalesInvoice(revenueEvent: string, draft: SalesDraft, at: string): Promise<string>
}

/** Documents EIS always keeps itself, whatever the backend. */
export async function localDoc(storage: Storage, doctype: string, name: string): Promise<Doc | undefined> {
  switch (doctype) {
    case 'Supplier Intake': {
      const r = await store.findSupplierIntake(storage, name)
      return (
        r && {
          doctype,
          name: r.name,
          status: r.status,
          supplier_name: r.supplierName,
          bill_no: r.billNo,
          currency: r.currency,
          grand_total: r.grandTotal,
          purchase_invoice: r.purchaseInvoice,
          posting_error: r.postingError,
          integration_event: r.integrationEvent,
          creation: r.creation,
          modified: r.modified,
        }
      )
    }
    case 'Revenue Event': {
      const r = await store.findRevenueEvent(storage, name)
      return (
        r && {
          doctype,
          name: r.name,
          status: r.status,
          provider: r.provider,
          provider_event_id: r.providerEventId,
          event_type: r.eventType,
          customer: r.customer,
          currency: r.currency,
          amount: r.amount,
          sales_invoice: r.salesInvoice,
          posting_error: r.postingError,
          integration_event: r.integrationEvent,
          creation: r.creation,
          modified: r.modified,
        }
      )
    }
    case 'Approval Packet': {
      const r = await store.findPacket(storage, name)
      return (
        r && {
          doctype,
          name: r.name,
          state: r.state,
          target_doctype: r.targetDoctype,
          target_name: r.targetName,
          expires_at: r.expiresAt,
          creation: r.creation,
          modified: r.modified,
        }
      )
    }
    case 'Integration Event': {
      const r = await store.findEvent(storage, name)
      return r && { doctype, ...eventView(r) }
    }
    default:
      return undefined
  }
}

export function embeddedErp(storage: Storage): ErpBackend {
  return {
    kind: 'embedded',
    async findLeadByEmail(email) {
      const lead = await store.findLeadByEmail(storage, email)
      return lead && this.getDoc('Lead', lead.name)
    },
    async getDoc(doctype, name) {
      switch (doctype) {
        case 'Lead': {
          const r = await store.findLead(storage, name)
          return (
            r && {
              doctype,
              name: r.name,
              lead_name: r.leadName,
              email_id: r.emailId,
              company_name: r.companyName,
              phone: r.phone,
              source: r.source,
              interest: r.interest,
              notes: r.notes,
              intake_count: r.intakeCount,
              creation: r.creation,
              modified: r.modified,
            }
          )
        }
        case 'Purchase Invoice': {
          const r = await store.findPurchaseInvoice(storage, name)
          return (
            r && {
              doctype,
              name: r.name,
              supplier: r.supplier,
              bill_no: r.billNo,
              currency: r.currency,
              grand_total: r.grandTotal,
              items: r.items,
              docstatus: r.docstatus,
              supplier_intake: r.supplierIntake,
              creation: r.creation,
            }
          )
        }
        case 'Sales Invoice': {
          const r = await store.findSalesInvoice(storage, name)
          return (
            r && {
              doctype,
              name: r.name,
              customer: r.customer,
              currency: r.currency,
              grand_total: r.grandTotal,
              items: r.items,
              docstatus: r.docstatus,
              revenue_event: r.revenueEvent,
              creation: r.creation,
            }
          )
        }
        default:
          return localDoc(storage, doctype, name)
      }
    },
    async createPurchaseInvoice(supplierIntake, draft, at) {
      return store.insertPurchaseInvoiceOnce(storage, {
        name: docName(SERIES.purchaseInvoice),
        supplierIntake,
        supplier: draft.supplier,
        billNo: draft.bill_no,
        currency: draft.currency,
        grandTotal: draft.grand_total,
        items: draft.items,
        docstatus: 0,
        creation: at,
      })
    },
    async createSalesInvoice(revenueEvent, draft, at) {
      return store.insertSalesInvoiceOnce(storage, {
        name: docName(SERIES.salesInvoice),
        revenueEvent,
        customer: draft.customer,
        currency: draft.currency,
        grandTotal: draft.grand_total,
        items: draft.items,
        docstatus: 0,
        creation: at,
      })
    },
  }
}

/**
 * What the webhooks do once a delivery's signature holds: stage the record the delivery
 * describes, with its Integration Event, in one transaction (service/evidence.ts).
 */
import type { Static } from '@sinclair/typebox'
import type { Storage } from '../../../db/storage.ts'
import type {
  PaymentProviderAEvent,
  PaymentProviderBEvent,
  SupplierIntakePayload,
  WebsiteContactIntake,
} from '../model/webhooks.ts'
import { docName, SERIES } from '../rules/naming.ts'
import { type ProviderName, type RevenueData, revenueFromA, revenueFromB } from '../rules/payments.ts'
import * as store from '../store.ts'
import type { ErpBackend } from './erp.ts'
import { type Accepted, acceptDelivery, bodyKey, type Effect } from './evidence.ts'

export const SOURCES = {
  contact: 'webhooks.website_contact_intake',
  supplier: 'webhooks.supplier_intake',
  providerA: 'webhooks.payment_provider_a',
  providerB: 'webhooks.payment_provider_b',
} as const

type ContactBody = Static<typeof WebsiteContactIntake>

/**
 * Create or update the Lead of the contact's e-mail address (compared case-insensitively).
 * A redelivery of the same platform_event.event_id changes nothing and answers the first result.
 * With a backend that keeps Leads (Frappe), the Lead goes there and the evidence stays here.
 */
export async function intakeContact(storage: Storage, raw: string, body: ContactBody, erp?: ErpBackend) {
  const email = body.contact.email.trim().toLowerCase()
  if (erp?.upsertLead) return intakeContactRemote(storage, erp.upsertLead.bind(erp), raw, body, email)
  const accepted = await acceptDelivery(
    storage,
    { source: SOURCES.contact, eventKey: body.platform_event.event_id, raw },
    async (tx, _event, at): Promise<Effect> => {
      const lastIntake = {
        contact: body.contact,
        interest: body.interest,
        profiling: body.profiling,
        site: body.site,
        platform_event: body.platform_event,
      }
      const fields = {
        leadName: body.contact.name,
        companyName: body.contact.company ?? null,
        phone: body.contact.phone ?? null,
        interest: body.interest,
        notes: body.contact.message,
        lastIntake,
        modified: at,
      }
      const existing = await store.findLeadByEmailTx(tx, email)
      if (existing) {
        await store.updateLead(tx, existing.name, {
          ...fields,
          companyName: fields.companyName ?? existing.companyName,
          phone: fields.phone ?? existing.phone,
          intakeCount: existing.intakeCount + 1,
        })
        return {
          status: 'processed',
          outcome: { lead: existing.name, action: 'updated' },
          reference: { doctype: 'Lead', name: existing.name },
        }
      }
      const name = docName(SERIES.lead)
      const channel = (body.profiling as Record<string, unknown>).channel
      const source = typeof channel === 'string' ? channel : 'website'
      await store.insertLead(tx, { name, emailId: email, source, intakeCount: 1, creation: at, ...fields })
      return {
        status: 'processed',
        outcome: { lead: name, action: 'created' },
        reference: { doctype: 'Lead', name },
      }
    },
  )
  return contactAck(accepted)
}

const contactAck = (accepted: Accepted) => ({
  integration_event: accepted.event.name,
  target_doctype: 'Lead' as const,
  lead: accepted.event.referenceName as string,
  ack: true as const,
  duplicate: accepted.duplicate,
})

/**
 * The contact intake on a backend that keeps Leads: a redelivery is answered from the local
 * evidence without asking the backend; otherwise the Lead is upserted there first (a failure is
 * a 503 and nothing is stored, so the sender retries), then the evidence is stored naming it.
 */
async function intakeContactRemote(
  storage: Storage,
  upsertLead: NonNullable<ErpBackend['upsertLead']>,
  raw: string,
  body: ContactBody,
  email: string,
) {
  const delivery = { source: SOURCES.contact, eventKey: body.platform_event.event_id, raw }
  const stored = await store.findEventByKey(storage, delivery.source, delivery.eventKey)
  if (stored) return contactAck({ duplicate: true, event: stored })
  const lead = await upsertLead({
    lead_name: body.contact.name,
    email_id: email,
    company_name: body.contact.company ?? null,
    phone: body.contact.phone ?? null,
  })
  const accepted = await acceptDelivery(storage, delivery, () => ({
    status: 'processed',
    outcome: { lead: lead.name, action: lead.action, backend: 'frappe' },
    reference: { doctype: 'Lead', name: lead.name },
  }))
  return contactAck(accepted)
}

type AEvent = Static<typeof PaymentProviderAEvent>
type BEvent = Static<typeof PaymentProviderBEvent>

/**
 * Record a payment event; stage a Revenue Event when it confirms money received. The provider's
 * event id keys both the evidence and the revenue event, so a redelivery stages nothing twice.
 */
export async function intakePayment(
  storage: Storage,
  provider: ProviderName,
  raw: string,
  body: AEvent | BEvent,
) {
  const revenue: RevenueData | null =
    provider === 'payment_provider_a' ? revenueFromA(body as AEvent) : revenueFromB(body as BEvent)
  const eventKey = provider === 'payment_provider_a' ? (body as AEvent).id : (body as BEvent).event_id
  const accepted = await acceptDelivery(
    storage,
    { source: `webhooks.${provider}`, eventKey, raw },
    async (tx, event, at): Promise<Effect> => {
      if (!revenue) return { status: 'ignored', outcome: { reason: 'no_revenue_in_event_type' } }
      const name = docName(SERIES.revenueEvent)
      await store.insertRevenueEvent(tx, {
        name,
        status: 'staged',
        provider,
        providerEventId: revenue.providerEventId,
        eventType: revenue.eventType,
        customer: revenue.customer,
        currency: revenue.currency,
        amount: revenue.amount,
        description: revenue.description,
        integrationEvent: event,
        salesInvoice: null,
        postingError: null,
        creation: at,
        modified: at,
      })
      return {
        status: 'processed',
        outcome: { revenue_event: name },
        reference: { doctype: 'Revenue Event', name },
      }
    },
  )
  return {
    ok: true as const,
    integration_event: accepted.event.name,
    duplicate: accepted.duplicate,
    status: accepted.event.status,
    revenue_event: accepted.event.referenceName,
  }
}

type SupplierBody = Static<typeof SupplierIntakePayload>

const num = (v: number | string | undefined) => (v === undefined ? null : Number(v))

/** Stage a Supplier Intake from the normalized payload, keyed by `intake_id` or by the body's hash. */
export async function intakeSupplier(storage: Storage, raw: string, body: SupplierBody) {
  const eventKey = body.intake_id ?? bodyKey(raw)
  const delivery = { source: SOURCES.supplier, eventKey, raw }
  const accepted = await acceptDelivery(storage, delivery, async (tx, event, at): Promise<Effect> => {
    const name = docName(SERIES.supplierIntake)
    await store.insertSupplierIntake(tx, {
      name,
      status: 'staged',
      supplierName: body.vendor?.name ?? null,
      billNo: body.invoice?.number ?? null,
      currency: body.invoice?.currency?.toUpperCase() ?? null,
      grandTotal: num(body.totals?.grand_total),
      payload: body as Record<string, unknown>,
      integrationEvent: event,
      purchaseInvoice: null,
      postingError: null,
      creation: at,
      modified: at,
    })
    return {
      status: 'processed',
      outcome: { supplier_intake: name },
      reference: { doctype: 'Supplier Intake', name },
    }
  })
  const intake = await store.findSupplierIntake(storage, accepted.event.referenceName as string)
  return {
    ok: true as const,
    integration_event: accepted.event.name,
    duplicate: accepted.duplicate,
    supplier_intake: accepted.event.referenceName as string,
    status: intake?.status ?? 'staged',
  }
}

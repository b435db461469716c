/**
 * EIS's embedded ERP: the doctypes it stages and posts, as tables in its own SQLite file, plus
 * the identity facts an operator loads. Names of rows (`name`) follow Frappe's naming series
 * (`LEAD-…`, `SINT-…`), so a client reads them the same way from either backend.
 */
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()

/**
 * Append-only evidence of every accepted delivery (webhook, callback, ticketing event). A row's
 * payload never changes and no row is deleted; only `status` advances (received → processed,
 * ignored or failed) with the outcome that explains it.
 */
export const integrationEvents = sqliteTable(
  'integration_events',
  {
    name: text('name').primaryKey(),
    /** The route family that received it: `webhooks.payment_provider_a`, `support_cases.ticketing_inbound` … */
    source: text('source').notNull(),
    /** What makes a redelivery recognisable (provider event id, platform_event.event_id …). */
    eventKey: text('event_key').notNull(),
    status: text('status', { enum: ['received', 'processed', 'ignored', 'failed'] }).notNull(),
    payloadHash: text('payload_hash').notNull(),
    /** The exact body as received (the signed bytes). */
    payload: text('payload').notNull(),
    referenceDoctype: text('reference_doctype'),
    referenceName: text('reference_name'),
    outcome: json<Record<string, unknown>>('outcome'),
    receivedAt: text('received_at').notNull(),
    modifiedAt: text('modified_at').notNull(),
  },
  (t) => [
    uniqueIndex('integration_events_key').on(t.source, t.eventKey),
    index('integration_events_at').on(t.receivedAt),
  ],
)

export const leads = sqliteTable('leads', {
  name: text('name').primaryKey(),
  /** Lower-cased: a Lead is found again by its e-mail address. */
  emailId: text('email_id').notNull().unique(),
  leadName: text('lead_name').notNull(),
  companyName: text('company_name'),
  phone: text('phone'),
  source: text('source').notNull(),
  interest: text('interest'),
  notes: text('notes'),
  /** The contact block, profiling and site of the latest intake, as received. */
  lastIntake: json<Record<string, unknown>>('last_intake').notNull(),
  intakeCount: integer('intake_count').notNull(),
  creation: text('creation').notNull(),
  modified: text('modified').notNull(),
})

/**
 * States of a staged record (Supplier Intake, Revenue Event): staged → pending_approval →
 * approved or rejected; approved (or forced) → posted (draft invoice) or posting_error.
 */
export const STAGED_STATES = [
  'staged',
  'pending_approval',
  'approved',
  'rejected',
  'posted',
  'posting_error',
] as const

export const supplierIntakes = sqliteTable('supplier_intakes', {
  name: text('name').primaryKey(),
  status: text('status', { enum: STAGED_STATES }).notNull(),
  supplierName: text('supplier_name'),
  billNo: text('bill_no'),
  currency: text('currency'),
  grandTotal: real('grand_total'),
  /** The normalized payload as received: vendor, invoice, totals, line_items, attachments. */
  payload: json<Record<string, unknown>>('payload').notNull(),
  integrationEvent: text('integration_event').notNull(),
  purchaseInvoice: text('purchase_invoice'),
  postingError: json<{ code: string; message: string; details?: unknown }>('posting_error'),
  creation: text('creation').notNull(),
  modified: text('modified').notNull(),
})

export const revenueEvents = sqliteTable(
  'revenue_events',
  {
    name: text('name').primaryKey(),
    status: text('status', { enum: STAGED_STATES }).notNull(),
    provider: text('provider').notNull(),
    providerEventId: text('provider_event_id').notNull(),
    eventType: text('event_type').notNull(),
    customer: text('customer'),
    currency: text('currency').notNull(),
    amount: real('amount').notNull(),
    description: text('description'),
    integrationEvent: text('integration_event').notNull(),
    salesInvoice: text('sales_invoice'),
    postingError: json<{ code: string; message: string; details?: unknown }>('posting_error'),
    creation: text('creation').notNull(),
    modified: text('modified').notNull(),
  },
  (t) => [uniqueIndex('revenue_events_provider_event').on(t.provider, t.providerEventId)],
)

export const APPROVAL_STATES = [
  'requested',
  'dispatched',
  'approved',
  'rejected',
  'expired',
  'failed',
] as const

export const approvalPackets = sqliteTable(
  'approval_packets',
  {
    name: text('name').primaryKey(),
    state: text('state', { enum: APPROVAL_STATES }).notNull(),
    targetDoctype: text('target_doctype').notNull(),
    targetName: text('target_name').notNull(),
    context: json<Record<string, unknown>>('context').notNull(),
    /** SHA-256 of the callback token handed out in the dispatch bundle; the token itself is not kept. */
    callbackTokenHash: text('callback_token_hash').notNull(),
    correlationId: text('correlation_id').notNull(),
    dispatch: json<Record<string, unknown>>('dispatch'),
    decision: json<Record<string, unknown>>('decision'),
    expiresAt: text('expires_at').notNull(),
    creation: text('creation').notNull(),
    modified: text('modified').notNull(),
  },
  (t) => [index('approval_packets_target').on(t.targetDoctype, t.targetName)],
)

/** Draft invoices (docstatus 0): EIS never submits; an accountant does, in the ERP. */
export const purchaseInvoices = sqliteTable('purchase_invoices', {
  name: text('name').primaryKey(),
  supplierIntake: text('supplier_intake').notNull().unique(),
  supplier: text('supplier').notNull(),
  billNo: text('bill_no'),
  currency: text('currency').notNull(),
  grandTotal: real('grand_total').notNull(),
  items: json<InvoiceItem[]>('items').notNull(),
  docstatus: integer('docstatus').notNull(),
  creation: text('creation').notNull(),
})

export const salesInvoices = sqliteTable('sales_invoices', {
  name: text('name').primaryKey(),
  revenueEvent: text('revenue_event').notNull().unique(),
  customer: text('customer').notNull(),
  currency: text('currency').notNull(),
  grandTotal: real('grand_total').notNull(),
  items: json<InvoiceItem[]>('items').notNull(),
  docstatus: integer('docstatus').notNull(),
  creation: text('creation').notNull(),
})

export interface InvoiceItem {
  item_name: string
  qty: number
  rate: number
  amount: number
}

/** Ticketing events by ticket and sequence: what orders and deduplicates Zammad's deliveries. */
export const ticketEvents = sqliteTable(
  'ticket_events',
  {
    ticketId: text('ticket_id').notNull(),
    sequence: integer('sequence').notNull(),
    event: text('event').notNull(),
    integrationEvent: text('integration_event').notNull(),
    receivedAt: text('received_at').notNull(),
  },
  (t) => [uniqueIndex('ticket_events_seq').on(t.ticketId, t.sequence, t.event)],
)

/** Identity facts as the operator loaded them (`svc eis facts import`), one row per subject. */
export const identityFacts = sqliteTable(
  'identity_facts',
  {
    technicalSubject: text('technical_subject').primaryKey(),
    businessIdentityId: text('business_identity_id'),
    fact: json<Record<string, unknown>>('fact').notNull(),
    lifecycleChangedAt: text('lifecycle_changed_at').notNull(),
    importId: text('import_id').notNull(),
    importedAt: text('imported_at').notNull(),
  },
  (t) => [index('identity_facts_business').on(t.businessIdentityId)],
)

export const factImports = sqliteTable('fact_imports', {
  importId: text('import_id').primaryKey(),
  importedAt: text('imported_at').notNull(),
  source: text('source').notNull(),
  contentHash: text('content_hash').notNull(),
  rows: integer('rows').notNull(),
})

/** Shared blocks (db/tables.ts): the idempotency store of the callbacks, and the outbox of dispatches to RMS. */
export { idempotencyKeys, outboxMessages } from '../../db/tables.ts'

/** EIS's reads and writes: the only module that knows the tables. */
import { and, asc, count, desc, eq, gt, inArray, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { columnPlaceholders } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import {
  approvalPackets,
  factImports,
  identityFacts,
  integrationEvents,
  leads,
  purchaseInvoices,
  revenueEvents,
  salesInvoices,
  supplierIntakes,
  ticketEvents,
} from './tables.ts'

export type IntegrationEventRow = typeof integrationEvents.$inferSelect
export type LeadRow = typeof leads.$inferSelect
export type SupplierIntakeRow = typeof supplierIntakes.$inferSelect
export type RevenueEventRow = typeof revenueEvents.$inferSelect
export type ApprovalPacketRow = typeof approvalPackets.$inferSelect
export type PurchaseInvoiceRow = typeof purchaseInvoices.$inferSelect
export type SalesInvoiceRow = typeof salesInvoices.$inferSelect
export type IdentityFactRow = typeof identityFacts.$inferSelect
export type FactImportRow = typeof factImports.$inferSelect
export type TicketEventRow = typeof ticketEvents.$inferSelect

/** Synchronous write transaction (BEGIN IMMEDIATE): see STYLE.md on async callbacks. */
export function writeTx<T>(db: Db, work: (tx: Db) => T): T {
  return db.transaction((tx) => work(tx as unknown as Db), { behavior: 'immediate' })
}

/** The webhook hot path's statements, built and prepared once per database handle. */
function prepareStatements(db: Db) {
  return {
    eventByKey: db
      .select()
      .from(integrationEvents)
      .where(
        and(
          eq(integrationEvents.source, sql.placeholder('source')),
          eq(integrationEvents.eventKey, sql.placeholder('eventKey')),
        ),
      )
      .prepare(),
    insertEvent: db.insert(integrationEvents).values(columnPlaceholders(integrationEvents)).prepare(),
    leadByEmail: db
      .select()
      .from(leads)
      .where(eq(leads.emailId, sql.placeholder('email')))
      .prepare(),
    insertLead: db.insert(leads).values(columnPlaceholders(leads)).prepare(),
  }
}
const statements = new WeakMap<Db, ReturnType<typeof prepareStatements>>()
function prepared(db: Db) {
  let s = statements.get(db)
  if (s === undefined) {
    s = prepareStatements(db)
    statements.set(db, s)
  }
  return s
}

// ---------- identity facts ----------

/** Replace the whole fact table with one import: the file is the truth, not a patch. */
export async function replaceIdentityFacts(
  db: Db,
  imported: FactImportRow,
  rows: Omit<IdentityFactRow, 'importId' | 'importedAt'>[],
): Promise<void> {
  writeTx(db, (tx) => {
    tx.delete(identityFacts).run()
    for (const row of rows) {
      tx.insert(identityFacts)
        .values({ ...row, importId: imported.importId, importedAt: imported.importedAt })
        .run()
    }
    tx.insert(factImports).values(imported).run()
  })
}

export async function latestImport(db: Db): Promise<FactImportRow | undefined> {
  return db
    .select()
    .from(factImports)
    .orderBy(desc(factImports.importedAt), desc(factImports.importId))
    .limit(1)
    .get()
}

export async function factBySubject(db: Db, subject: string): Promise<IdentityFactRow | undefined> {
  return db.select().from(identityFacts).where(eq(identityFacts.technicalSubject, subject)).get()
}

export async function factsByBusinessIdentity(db: Db, ids: string[]): Promise<IdentityFactRow[]> {
  if (ids.length === 0) return []
  return db.select().from(identityFacts).where(inArray(identityFacts.businessIdentityId, ids)).all()
}

export async function factPage(db: Db, after: string | undefined, limit: number): Promise<IdentityFactRow[]> {
  return db
    .select()
    .from(identityFacts)
    .where(after === undefined ? undefined : gt(identityFacts.technicalSubject, after))
    .orderBy(asc(identityFacts.technicalSubject))
    .limit(limit)
    .all()
}

// ---------- integration events ----------

/** Prepared statement: pass the root handle (also inside its transactions). */
export function findEventByKeyTx(db: Db, source: string, eventKey: string): IntegrationEventRow | undefined {
  return prepared(db).eventByKey.get({ source, eventKey })
}

export async function findEventByKey(
  db: Db,
  source: string,
  eventKey: string,
): Promise<IntegrationEventRow | undefined> {
  return prepared(db).eventByKey.get({ source, eventKey })
}

export async function findEvent(db: Db, name: string): Promise<IntegrationEventRow | undefined> {
  return db.select().from(integrationEvents).where(eq(integrationEvents.name, name)).get()
}

export async function recentEvents(db: Db, limit: number): Promise<IntegrationEventRow[]> {
  return db
    .select()
    .from(integrationEvents)
    .orderBy(desc(integrationEvents.receivedAt), desc(integrationEvents.name))
    .limit(limit)
    .all()
}

export function insertEvent(db: Db, row: IntegrationEventRow): void {
  prepared(db).insertEvent.run(row)
}

/** The one change an integration event allows: its status advances, with the outcome that explains it. */
export function settleEvent(
  tx: Db,
  name: string,
  status: IntegrationEventRow['status'],
  outcome: Record<string, unknown>,
  at: string,
  reference?: { doctype: string; name: string },
): void {
  tx.update(integrationEvents)
    .set({
      status,
      outcome,
      modifiedAt: at,
      ...(reference && { referenceDoctype: reference.doctype, referenceName: reference.name }),
    })
    .where(eq(integrationEvents.name, name))
    .run()
}

export async function settleEventNow(
  db: Db,
  name: string,
  status: IntegrationEventRow['status'],
  outcome: Record<string, unknown>,
  at: string,
): Promise<void> {
  settleEvent(db, name, status, outcome, at)
}

export async function eventCounts(db: Db): Promise<Record<string, number>> {
  const rows = db
    .select({ status: integrationEvents.status, n: count() })
    .from(integrationEvents)
    .groupBy(integrationEvents.status)
    .all()
  return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

// ---------- documents ----------

export async function findLeadByEmail(db: Db, email: string): Promise<LeadRow | undefined> {
  return db.select().from(leads).where(eq(leads.emailId, email)).get()
}

/** On the root handle inside its write transaction (prepared once per handle, as the event statements). */
export function findLeadByEmailTx(db: Db, email: string): LeadRow | undefined {
  return prepared(db).leadByEmail.get({ email })
}

/** On the root handle inside its write transaction (prepared once per handle). */
export function insertLead(db: Db, row: LeadRow): void {
  prepared(db).insertLead.run(row)
}

export function updateLead(tx: Db, name: string, patch: Partial<LeadRow>): void {
  tx.update(leads).set(patch).where(eq(leads.name, name)).run()
}

export async function findLead(db: Db, name: string): Promise<LeadRow | undefined> {
  return db.select().from(leads).where(eq(leads.name, name)).get()
}

export function insertSupplierIntake(tx: Db, row: SupplierIntakeRow): void {
  tx.insert(supplierIntakes).values(row).run()
}

export async function findSupplierIntake(db: Db, name: string): Promise<SupplierIntakeRow | undefined> {
  return db.select().from(supplierIntakes).where(eq(supplierIntakes.name, name)).get()
}

export function findSupplierIntakeTx(tx: Db, name: string): SupplierIntakeRow | undefined {
  return tx.select().from(supplierIntakes).where(eq(supplierIntakes.name, name)).get()
}

export function updateSupplierIntake(tx: Db, name: string, patch: Partial<SupplierIntakeRow>): void {
  tx.update(supplierIntakes).set(patch).where(eq(supplierIntakes.name, name)).run()
}

export function insertRevenueEvent(tx: Db, row: RevenueEventRow): void {
  tx.insert(revenueEvents).values(row).run()
}

export async function findRevenueEvent(db: Db, name: string): Promise<RevenueEventRow | undefined> {
  return db.select().from(revenueEvents).where(eq(revenueEvents.name, name)).get()
}

export function findRevenueEventTx(tx: Db, name: string): RevenueEventRow | undefined {
  return tx.select().from(revenueEvents).where(eq(revenueEvents.name, name)).get()
}

export function updateRevenueEvent(tx: Db, name: string, patch: Partial<RevenueEventRow>): void {
  tx.update(revenueEvents).set(patch).where(eq(revenueEvents.name, name)).run()
}

/** Insert the draft unless the intake already has one; the name of the one that stands. */
export async function insertPurchaseInvoiceOnce(db: Db, row: PurchaseInvoiceRow): Promise<string> {
  db.insert(purchaseInvoices)
    .values(row)
    .onConflictDoNothing({ target: purchaseInvoices.supplierIntake })
    .run()
  const stands = db
    .select({ name: purchaseInvoices.name })
    .from(purchaseInvoices)
    .where(eq(purchaseInvoices.supplierIntake, row.supplierIntake))
    .get()
  return stands?.name ?? row.name
}

export async function findPurchaseInvoice(db: Db, name: string): Promise<PurchaseInvoiceRow | undefined> {
  return db.select().from(purchaseInvoices).where(eq(purchaseInvoices.name, name)).get()
}

/** Insert the draft unless the revenue event already has one; the name of the one that stands. */
export async function insertSalesInvoiceOnce(db: Db, row: SalesInvoiceRow): Promise<string> {
  db.insert(salesInvoices).values(row).onConflictDoNothing({ target: salesInvoices.revenueEvent }).run()
  const stands = db
    .select({ name: salesInvoices.name })
    .from(salesInvoices)
    .where(eq(salesInvoices.revenueEvent, row.revenueEvent))
    .get()
  return stands?.name ?? row.name
}

export async function findSalesInvoice(db: Db, name: string): Promise<SalesInvoiceRow | undefined> {
  return db.select().from(salesInvoices).where(eq(salesInvoices.name, name)).get()
}

// ---------- approval packets ----------

export function insertPacket(tx: Db, row: ApprovalPacketRow): void {
  tx.insert(approvalPackets).values(row).run()
}

export async function findPacket(db: Db, name: string): Promise<ApprovalPacketRow | undefined> {
  return db.select().from(approvalPackets).where(eq(approvalPackets.name, name)).get()
}

export function findPacketTx(tx: Db, name: string): ApprovalPacketRow | undefined {
  return tx.select().from(approvalPackets).where(eq(approvalPackets.name, name)).get()
}

export function findPacketByCorrelation(tx: Db, correlationId: string): ApprovalPacketRow | undefined {
  return tx.select().from(approvalPackets).where(eq(approvalPackets.correlationId, correlationId)).get()
}

export function openPacketFor(tx: Db, doctype: string, target: string): ApprovalPacketRow | undefined {
  return tx
    .select()
    .from(approvalPackets)
    .where(
      and(
        eq(approvalPackets.targetDoctype, doctype),
        eq(approvalPackets.targetName, target),
        inArray(approvalPackets.state, ['requested', 'dispatched']),
      ),
    )
    .get()
}

export function updatePacket(tx: Db, name: string, patch: Partial<ApprovalPacketRow>): void {
  tx.update(approvalPackets).set(patch).where(eq(approvalPackets.name, name)).run()
}

// ---------- ticketing ----------

/** The highest sequence seen for a ticket before this one, or null for the first. */
export function highestSequence(tx: Db, ticketId: string): number | null {
  const row = tx
    .select({ max: sql<number | null>`max(${ticketEvents.sequence})` })
    .from(ticketEvents)
    .where(eq(ticketEvents.ticketId, ticketId))
    .get()
  return row?.max ?? null
}

export function insertTicketEvent(tx: Db, row: TicketEventRow): void {
  tx.insert(ticketEvents).values(row).run()
}

export async function tableCounts(db: Db): Promise<Record<string, number>> {
  const n = (table: SQLiteTable) => db.select({ n: count() }).from(table).get()?.n ?? 0
  return {
    leads: n(leads),
    supplier_intakes: n(supplierIntakes),
    revenue_events: n(revenueEvents),
    approval_packets: n(approvalPackets),
    purchase_invoices: n(purchaseInvoices),
    sales_invoices: n(salesInvoices),
    identity_facts: n(identityFacts),
  }
}

/** EIS's reads and writes: the only module that knows the tables. */
import { and, asc, count, desc, eq, gt, inArray, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { columnPlaceholders, perHandle } from '../../db/prepared.ts'
import type { Sql, Storage } from '../../db/storage.ts'
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

/**
 * The webhook hot path's statements, built and prepared once per handle (`perHandle`).
 */
function prepareStatements(db: Sql) {
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
const prepared = perHandle(prepareStatements)

// ---------- identity facts ----------

/** Replace the whole fact table with one import: the file is the truth, not a patch. */
export async function replaceIdentityFacts(
  storage: Storage,
  imported: FactImportRow,
  rows: Omit<IdentityFactRow, 'importId' | 'importedAt'>[],
): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx.delete(identityFacts).run()
    for (const row of rows) {
      await tx
        .insert(identityFacts)
        .values({ ...row, importId: imported.importId, importedAt: imported.importedAt })
        .run()
    }
    await tx.insert(factImports).values(imported).run()
  })
}

export async function latestImport(storage: Storage): Promise<FactImportRow | undefined> {
  return storage.db
    .select()
    .from(factImports)
    .orderBy(desc(factImports.importedAt), desc(factImports.importId))
    .limit(1)
    .get()
}

export async function factBySubject(storage: Storage, subject: string): Promise<IdentityFactRow | undefined> {
  return storage.db.select().from(identityFacts).where(eq(identityFacts.technicalSubject, subject)).get()
}

export async function factsByBusinessIdentity(storage: Storage, ids: string[]): Promise<IdentityFactRow[]> {
  if (ids.length === 0) return []
  return storage.db.select().from(identityFacts).where(inArray(identityFacts.businessIdentityId, ids)).all()
}

export async function factPage(
  storage: Storage,
  after: string | undefined,
  limit: number,
): Promise<IdentityFactRow[]> {
  return storage.db
    .select()
    .from(identityFacts)
    .where(after === undefined ? undefined : gt(identityFacts.technicalSubject, after))
    .orderBy(asc(identityFacts.technicalSubject))
    .limit(limit)
    .all()
}

// ---------- integration events ----------

/** The event of a delivery, inside a write transaction (prepared once per handle). */
export async function findEventByKeyTx(
  tx: Sql,
  source: string,
  eventKey: string,
): Promise<IntegrationEventRow | undefined> {
  return prepared(tx).eventByKey.get({ source, eventKey })
}

export const findEventByKey = (storage: Storage, source: string, eventKey: string) =>
  findEventByKeyTx(storage.db, source, eventKey)

export async function findEvent(storage: Storage, name: string): Promise<IntegrationEventRow | undefined> {
  return storage.db.select().from(integrationEvents).where(eq(integrationEvents.name, name)).get()
}

export async function recentEvents(storage: Storage, limit: number): Promise<IntegrationEventRow[]> {
  return storage.db
    .select()
    .from(integrationEvents)
    .orderBy(desc(integrationEvents.receivedAt), desc(integrationEvents.name))
    .limit(limit)
    .all()
}

export async function insertEvent(tx: Sql, row: IntegrationEventRow): Promise<void> {
  await prepared(tx).insertEvent.run(row)
}

/** The one change an integration event allows: its status advances, with the outcome that explains it. */
export async function settleEvent(
  tx: Sql,
  name: string,
  status: IntegrationEventRow['status'],
  outcome: Record<string, unknown>,
  at: string,
  reference?: { doctype: string; name: string },
): Promise<void> {
  await tx
    .update(integrationEvents)
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
  storage: Storage,
  name: string,
  status: IntegrationEventRow['status'],
  outcome: Record<string, unknown>,
  at: string,
): Promise<void> {
  await storage.transaction((tx) => settleEvent(tx, name, status, outcome, at))
}

/** The integration status's counts, prepared once per reader handle (the route is open and polled). */
const statusStatements = perHandle((db: Sql) => {
  const n = (table: SQLiteTable) => db.select({ n: count() }).from(table).prepare()
  return {
    events: db
      .select({ status: integrationEvents.status, n: count() })
      .from(integrationEvents)
      .groupBy(integrationEvents.status)
      .prepare(),
    tables: {
      leads: n(leads),
      supplier_intakes: n(supplierIntakes),
      revenue_events: n(revenueEvents),
      approval_packets: n(approvalPackets),
      purchase_invoices: n(purchaseInvoices),
      sales_invoices: n(salesInvoices),
      identity_facts: n(identityFacts),
    },
  }
})

export async function eventCounts(storage: Storage): Promise<Record<string, number>> {
  const rows = await statusStatements(storage.db).events.all()
  return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

// ---------- documents ----------

/** On a read handle or inside a write transaction (prepared once per handle, as the event statements). */
export async function findLeadByEmailTx(tx: Sql, email: string): Promise<LeadRow | undefined> {
  return prepared(tx).leadByEmail.get({ email })
}

export const findLeadByEmail = (storage: Storage, email: string) => findLeadByEmailTx(storage.db, email)

export async function insertLead(tx: Sql, row: LeadRow): Promise<void> {
  await prepared(tx).insertLead.run(row)
}

export async function updateLead(tx: Sql, name: string, patch: Partial<LeadRow>): Promise<void> {
  await tx.update(leads).set(patch).where(eq(leads.name, name)).run()
}

export async function findLead(storage: Storage, name: string): Promise<LeadRow | undefined> {
  return storage.db.select().from(leads).where(eq(leads.name, name)).get()
}

export async function insertSupplierIntake(tx: Sql, row: SupplierIntakeRow): Promise<void> {
  await tx.insert(supplierIntakes).values(row).run()
}

export async function findSupplierIntakeTx(tx: Sql, name: string): Promise<SupplierIntakeRow | undefined> {
  return tx.select().from(supplierIntakes).where(eq(supplierIntakes.name, name)).get()
}

export const findSupplierIntake = (storage: Storage, name: string) => findSupplierIntakeTx(storage.db, name)

export async function updateSupplierIntake(
  tx: Sql,
  name: string,
  patch: Partial<SupplierIntakeRow>,
): Promise<void> {
  await tx.update(supplierIntakes).set(patch).where(eq(supplierIntakes.name, name)).run()
}

export async function insertRevenueEvent(tx: Sql, row: RevenueEventRow): Promise<void> {
  await tx.insert(revenueEvents).values(row).run()
}

export async function findRevenueEventTx(tx: Sql, name: string): Promise<RevenueEventRow | undefined> {
  return tx.select().from(revenueEvents).where(eq(revenueEvents.name, name)).get()
}

export const findRevenueEvent = (storage: Storage, name: string) => findRevenueEventTx(storage.db, name)

export async function updateRevenueEvent(
  tx: Sql,
  name: string,
  patch: Partial<RevenueEventRow>,
): Promise<void> {
  await tx.update(revenueEvents).set(patch).where(eq(revenueEvents.name, name)).run()
}

/** Insert the draft unless the intake already has one; the name of the one that stands. */
export async function insertPurchaseInvoiceOnce(storage: Storage, row: PurchaseInvoiceRow): Promise<string> {
  return storage.transaction(async (tx) => {
    await tx
      .insert(purchaseInvoices)
      .values(row)
      .onConflictDoNothing({ target: purchaseInvoices.supplierIntake })
      .run()
    const stands = await tx
      .select({ name: purchaseInvoices.name })
      .from(purchaseInvoices)
      .where(eq(purchaseInvoices.supplierIntake, row.supplierIntake))
      .get()
    return stands?.name ?? row.name
  })
}

export async function findPurchaseInvoice(
  storage: Storage,
  name: string,
): Promise<PurchaseInvoiceRow | undefined> {
  return storage.db.select().from(purchaseInvoices).where(eq(purchaseInvoices.name, name)).get()
}

/** Insert the draft unless the revenue event already has one; the name of the one that stands. */
export async function insertSalesInvoiceOnce(storage: Storage, row: SalesInvoiceRow): Promise<string> {
  return storage.transaction(async (tx) => {
    await tx
      .insert(salesInvoices)
      .values(row)
      .onConflictDoNothing({ target: salesInvoices.revenueEvent })
      .run()
    const stands = await tx
      .select({ name: salesInvoices.name })
      .from(salesInvoices)
      .where(eq(salesInvoices.revenueEvent, row.revenueEvent))
      .get()
    return stands?.name ?? row.name
  })
}

export async function findSalesInvoice(storage: Storage, name: string): Promise<SalesInvoiceRow | undefined> {
  return storage.db.select().from(salesInvoices).where(eq(salesInvoices.name, name)).get()
}

// ---------- approval packets ----------

export async function insertPacket(tx: Sql, row: ApprovalPacketRow): Promise<void> {
  await tx.insert(approvalPackets).values(row).run()
}

export async function findPacketTx(tx: Sql, name: string): Promise<ApprovalPacketRow | undefined> {
  return tx.select().from(approvalPackets).where(eq(approvalPackets.name, name)).get()
}

export const findPacket = (storage: Storage, name: string) => findPacketTx(storage.db, name)

export async function findPacketByCorrelation(
  tx: Sql,
  correlationId: string,
): Promise<ApprovalPacketRow | undefined> {
  return tx.select().from(approvalPackets).where(eq(approvalPackets.correlationId, correlationId)).get()
}

export async function openPacketFor(
  tx: Sql,
  doctype: string,
  target: string,
): Promise<ApprovalPacketRow | undefined> {
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

export async function updatePacket(tx: Sql, name: string, patch: Partial<ApprovalPacketRow>): Promise<void> {
  await tx.update(approvalPackets).set(patch).where(eq(approvalPackets.name, name)).run()
}

// ---------- ticketing ----------

/** The highest sequence seen for a ticket before this one, or null for the first. */
export async function highestSequence(tx: Sql, ticketId: string): Promise<number | null> {
  const row = await tx
    .select({ max: sql<number | null>`max(${ticketEvents.sequence})` })
    .from(ticketEvents)
    .where(eq(ticketEvents.ticketId, ticketId))
    .get()
  return row?.max ?? null
}

export async function insertTicketEvent(tx: Sql, row: TicketEventRow): Promise<void> {
  await tx.insert(ticketEvents).values(row).run()
}

export async function tableCounts(storage: Storage): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const [name, q] of Object.entries(statusStatements(storage.db).tables))
    out[name] = (await q.get())?.n ?? 0
  return out
}

import { and, asc, count, eq, lte, min, sql } from 'drizzle-orm'
import { columnPlaceholders } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import { contactDeliveries, contactIntakes } from './tables.ts'

export type Intake = typeof contactIntakes.$inferSelect
export type DeliveryRow = typeof contactDeliveries.$inferSelect

/** The hot-path statements, built and prepared once per database handle. */
function prepareStatements(db: Db) {
  return {
    insertIntake: db.insert(contactIntakes).values(columnPlaceholders(contactIntakes)).prepare(),
    insertDelivery: db.insert(contactDeliveries).values(columnPlaceholders(contactDeliveries)).prepare(),
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

/** Store an intake and, when it goes to the webhook, its outbox row: one transaction. */
export function insertIntake(db: Db, intake: Intake, outboxPayload: string | undefined): void {
  const q = prepared(db)
  db.transaction(
    () => {
      q.insertIntake.run(intake)
      if (outboxPayload !== undefined) {
        q.insertDelivery.run({
          intakeId: intake.intakeId,
          payload: outboxPayload,
          state: 'pending',
          attempts: 0,
          nextAttemptAt: intake.receivedAt,
          lastError: null,
          lastStatus: null,
          deliveredAt: null,
          createdAt: intake.receivedAt,
        })
      }
    },
    { behavior: 'immediate' },
  )
}

export function findIntake(db: Db, intakeId: string): Intake | undefined {
  return db.select().from(contactIntakes).where(eq(contactIntakes.intakeId, intakeId)).get()
}

export function findDelivery(db: Db, intakeId: string): DeliveryRow | undefined {
  return db.select().from(contactDeliveries).where(eq(contactDeliveries.intakeId, intakeId)).get()
}

export function dueDeliveries(db: Db, now: string, limit: number): DeliveryRow[] {
  return db
    .select()
    .from(contactDeliveries)
    .where(and(eq(contactDeliveries.state, 'pending'), lte(contactDeliveries.nextAttemptAt, now)))
    .orderBy(asc(contactDeliveries.nextAttemptAt))
    .limit(limit)
    .all()
}

export function markDelivered(db: Db, intakeId: string, status: number, at: string): void {
  db.update(contactDeliveries)
    .set({
      state: 'delivered',
      attempts: sql`${contactDeliveries.attempts} + 1`,
      lastStatus: status,
      lastError: null,
      deliveredAt: at,
    })
    .where(eq(contactDeliveries.intakeId, intakeId))
    .run()
}

export function markFailed(
  db: Db,
  intakeId: string,
  failure: { status: number | null; error: string; nextAttemptAt: string },
): void {
  db.update(contactDeliveries)
    .set({
      attempts: sql`${contactDeliveries.attempts} + 1`,
      lastStatus: failure.status,
      lastError: failure.error,
      nextAttemptAt: failure.nextAttemptAt,
    })
    .where(eq(contactDeliveries.intakeId, intakeId))
    .run()
}

export interface OutboxSummary {
  intakes: number
  pending: number
  delivered: number
  oldestPendingAt: string | null
  lastError: string | null
}

export function outboxSummary(db: Db): OutboxSummary {
  const intakes = db.select({ n: count() }).from(contactIntakes).get()?.n ?? 0
  const byState = db
    .select({ state: contactDeliveries.state, n: count(), oldest: min(contactDeliveries.createdAt) })
    .from(contactDeliveries)
    .groupBy(contactDeliveries.state)
    .all()
  const pending = byState.find((r) => r.state === 'pending')
  const lastError = db
    .select({ e: contactDeliveries.lastError })
    .from(contactDeliveries)
    .where(eq(contactDeliveries.state, 'pending'))
    .orderBy(sql`${contactDeliveries.nextAttemptAt} DESC`)
    .limit(1)
    .get()
  return {
    intakes,
    pending: pending?.n ?? 0,
    delivered: byState.find((r) => r.state === 'delivered')?.n ?? 0,
    oldestPendingAt: pending?.oldest ?? null,
    lastError: lastError?.e ?? null,
  }
}

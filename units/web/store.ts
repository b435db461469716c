import { count, eq } from 'drizzle-orm'
import { enqueue, outboxSummary as targetSummary } from '../../db/outbox.ts'
import { columnPlaceholders } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import { contactIntakes } from './tables.ts'

export type Intake = typeof contactIntakes.$inferSelect

/** The outbox target of contact intakes (db/outbox.ts). */
export const CONTACT_TARGET = 'contact-webhook'

/** The hot-path statements, built and prepared once per database handle. */
function prepareStatements(db: Db) {
  return {
    insertIntake: db.insert(contactIntakes).values(columnPlaceholders(contactIntakes)).prepare(),
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
        enqueue(db, {
          id: intake.intakeId,
          target: CONTACT_TARGET,
          payload: outboxPayload,
          at: intake.receivedAt,
        })
      }
    },
    { behavior: 'immediate' },
  )
}

export function findIntake(db: Db, intakeId: string): Intake | undefined {
  return db.select().from(contactIntakes).where(eq(contactIntakes.intakeId, intakeId)).get()
}

export interface OutboxSummary {
  intakes: number
  pending: number
  delivered: number
  oldestPendingAt: string | null
  lastError: string | null
}

export async function outboxSummary(db: Db): Promise<OutboxSummary> {
  const intakes = db.select({ n: count() }).from(contactIntakes).get()?.n ?? 0
  const s = await targetSummary(db, CONTACT_TARGET)
  return {
    intakes,
    pending: s.pending,
    delivered: s.delivered,
    oldestPendingAt: s.oldestPendingAt,
    lastError: s.lastError,
  }
}

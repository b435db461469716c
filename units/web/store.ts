import { count, eq } from 'drizzle-orm'
import { enqueue, enqueueIn, type NewMessage, outboxSummary as targetSummary } from '../../db/outbox.ts'
import { columnPlaceholders, perHandle } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import type { Storage } from '../../db/storage.ts'
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
const prepared = perHandle(prepareStatements)

const webhookMessage = (intake: Intake, payload: string): NewMessage => ({
  id: intake.intakeId,
  target: CONTACT_TARGET,
  payload,
  at: intake.receivedAt,
})

/**
 * Store an intake and, when it goes to the webhook, its outbox row: one transaction. On the
 * embedded driver through the prepared statement on the writer (the hot path); on a server as an
 * interactive transaction.
 */
export async function insertIntake(
  storage: Storage,
  intake: Intake,
  outboxPayload: string | undefined,
): Promise<void> {
  const e = storage.embedded
  if (e) {
    const q = prepared(e.writerDb)
    await e.write(() => {
      q.insertIntake.run(intake)
      if (outboxPayload !== undefined) enqueue(e.writerDb, webhookMessage(intake, outboxPayload))
    })
    return
  }
  await storage.transaction(async (tx) => {
    await tx.insert(contactIntakes).values(intake)
    if (outboxPayload !== undefined) await enqueueIn(tx, webhookMessage(intake, outboxPayload))
  })
}

export async function findIntake(storage: Storage, intakeId: string): Promise<Intake | undefined> {
  return storage.db.select().from(contactIntakes).where(eq(contactIntakes.intakeId, intakeId)).get()
}

export interface OutboxSummary {
  intakes: number
  pending: number
  delivered: number
  oldestPendingAt: string | null
  lastError: string | null
}

export async function outboxSummary(storage: Storage): Promise<OutboxSummary> {
  const intakes = (await storage.db.select({ n: count() }).from(contactIntakes).get())?.n ?? 0
  const s = await targetSummary(storage, CONTACT_TARGET)
  return {
    intakes,
    pending: s.pending,
    delivered: s.delivered,
    oldestPendingAt: s.oldestPendingAt,
    lastError: s.lastError,
  }
}

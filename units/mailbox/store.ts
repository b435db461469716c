import { and, asc, eq, gt } from 'drizzle-orm'
import { newId } from '../../common/time.ts'
import { enqueue } from '../../db/outbox.ts'
import { columnPlaceholders } from '../../db/prepared.ts'
import type { Db } from '../../db/sqlite.ts'
import { mailboxMessages } from './tables.ts'

export type StoredMessage = typeof mailboxMessages.$inferSelect

/** The outbox target accepted messages are forwarded to (`MAILBOX_DOWNSTREAM_URL`). */
export const DOWNSTREAM = 'downstream'

export interface NewMessage {
  topic: string
  message: unknown
  headers: Record<string, string>
  sizeBytes: number
  receivedAt: string
}

/**
 * The publish path's statements, built and prepared once: Drizzle's query builder costs tens of
 * microseconds per call, which the publish route would pay on every message.
 */
export function publishStatements(db: Db) {
  const insert = db.insert(mailboxMessages).values(columnPlaceholders(mailboxMessages)).prepare()
  return {
    /** Store a message and, when a downstream is configured, its forwarding: one transaction. */
    async storeMessage(m: NewMessage, forward: boolean): Promise<StoredMessage> {
      const row = {
        seq: null,
        messageId: newId(),
        topic: m.topic,
        message: JSON.stringify(m.message),
        headers: m.headers,
        sizeBytes: m.sizeBytes,
        receivedAt: m.receivedAt,
      }
      db.transaction(
        () => {
          insert.run(row)
          if (forward) {
            enqueue(db, {
              id: row.messageId,
              target: DOWNSTREAM,
              payload: JSON.stringify({
                message_id: row.messageId,
                topic: m.topic,
                message: m.message,
                headers: m.headers,
                received_at: m.receivedAt,
              }),
              headers: { 'x-mailbox-topic': m.topic, 'x-mailbox-message-id': row.messageId },
              at: m.receivedAt,
            })
          }
        },
        { behavior: 'immediate' },
      )
      return { ...row, seq: 0 }
    },
  }
}

/** Messages after `afterSeq` in arrival order, optionally of one topic; one more than `limit` tells a next page. */
export async function readMessages(
  db: Db,
  q: { topic?: string; afterSeq: number; limit: number },
): Promise<StoredMessage[]> {
  return db
    .select()
    .from(mailboxMessages)
    .where(
      and(
        gt(mailboxMessages.seq, q.afterSeq),
        q.topic === undefined ? undefined : eq(mailboxMessages.topic, q.topic),
      ),
    )
    .orderBy(asc(mailboxMessages.seq))
    .limit(q.limit + 1)
    .all()
}

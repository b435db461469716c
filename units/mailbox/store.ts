import { and, asc, eq, gt } from 'drizzle-orm'
import { newId } from '../../common/time.ts'
import { enqueue } from '../../db/outbox.ts'
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

/** Store a message and, when a downstream is configured, its forwarding, in one transaction. */
export async function storeMessage(db: Db, m: NewMessage, forward: boolean): Promise<StoredMessage> {
  const messageId = newId()
  const text = JSON.stringify(m.message)
  return db.transaction(
    (tx) => {
      const row = tx
        .insert(mailboxMessages)
        .values({
          messageId,
          topic: m.topic,
          message: text,
          headers: m.headers,
          sizeBytes: m.sizeBytes,
          receivedAt: m.receivedAt,
        })
        .returning()
        .get()
      if (forward) {
        enqueue(tx, {
          id: messageId,
          target: DOWNSTREAM,
          payload: JSON.stringify({
            message_id: messageId,
            topic: m.topic,
            message: m.message,
            headers: m.headers,
            received_at: m.receivedAt,
          }),
          headers: { 'x-mailbox-topic': m.topic, 'x-mailbox-message-id': messageId },
          at: m.receivedAt,
        })
      }
      return row
    },
    { behavior: 'immediate' },
  )
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

import { and, asc, eq, gt } from 'drizzle-orm'
import { newId } from '../../common/time.ts'
import { groupOf } from '../../db/group-commit.ts'
import { enqueueIn } from '../../db/outbox.ts'
import { columnPlaceholders, perHandle } from '../../db/prepared.ts'
import type { Sql, Storage } from '../../db/storage.ts'
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
 * The insert, prepared once per handle (db/prepared.ts): Drizzle's query builder costs tens of
 * microseconds per call, which the publish route would pay on every message.
 */
const insertOn = perHandle((tx: Sql) =>
  tx.insert(mailboxMessages).values(columnPlaceholders(mailboxMessages)).prepare(),
)

/**
 * Store a message and, when a downstream is configured, its forwarding: one transaction,
 * group-committed with the other publishes of the same event-loop turn (db/group-commit.ts);
 * resolves once that transaction has committed.
 */
export async function storeMessage(
  storage: Storage,
  m: NewMessage,
  forward: boolean,
): Promise<StoredMessage> {
  const row = {
    seq: null,
    messageId: newId(),
    topic: m.topic,
    message: JSON.stringify(m.message),
    headers: m.headers,
    sizeBytes: m.sizeBytes,
    receivedAt: m.receivedAt,
  }
  const forwarding = forward
    ? {
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
      }
    : undefined
  await groupOf(storage).run(async (tx) => {
    await insertOn(tx).run(row)
    if (forwarding) await enqueueIn(tx, forwarding)
  })
  return { ...row, seq: 0 }
}

/** Messages after `afterSeq` in arrival order, optionally of one topic; one more than `limit` tells a next page. */
export async function readMessages(
  storage: Storage,
  q: { topic?: string; afterSeq: number; limit: number },
): Promise<StoredMessage[]> {
  return storage.db
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

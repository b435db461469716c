import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Every accepted message, written before the answer; `seq` orders reads and is the cursor. */
export const mailboxMessages = sqliteTable(
  'mailbox_messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    messageId: text('message_id').notNull().unique(),
    topic: text('topic').notNull(),
    /** The message as JSON text, exactly as re-serialized from the accepted body. */
    message: text('message').notNull(),
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    /** Size of the raw request body that carried it. */
    sizeBytes: integer('size_bytes').notNull(),
    receivedAt: text('received_at').notNull(),
  },
  (t) => [index('mailbox_messages_topic').on(t.topic, t.seq)],
)

/** Forwarding to the downstream (db/outbox.ts), target `downstream`. */
export { outboxMessages } from '../../db/tables.ts'

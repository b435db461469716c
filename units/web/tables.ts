import { sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Every accepted contact intake, written before the answer. */
export const contactIntakes = sqliteTable('contact_intakes', {
  intakeId: text('intake_id').primaryKey(),
  receivedAt: text('received_at').notNull(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  interest: text('interest').notNull(),
  message: text('message').notNull(),
  /** Optional contact fields (company, phone, source_page, locale) as JSON. */
  optional: text('optional', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  delivery: text('delivery', { enum: ['webhook', 'mailto_fallback', 'mailto'] }).notNull(),
})

/** The outbox (shared shape, db/outbox.ts): contact intakes forwarded to the webhook, target `contact-webhook`. */
export { outboxMessages } from '../../db/tables.ts'

import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

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

/** The outbox: one row per intake forwarded to the contact webhook, kept until delivered. */
export const contactDeliveries = sqliteTable(
  'contact_deliveries',
  {
    intakeId: text('intake_id')
      .primaryKey()
      .references(() => contactIntakes.intakeId),
    /** The exact JSON body sent on every attempt, so retries are byte-identical. */
    payload: text('payload').notNull(),
    state: text('state', { enum: ['pending', 'delivered'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    lastError: text('last_error'),
    lastStatus: integer('last_status'),
    deliveredAt: text('delivered_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('contact_deliveries_due').on(t.state, t.nextAttemptAt)],
)

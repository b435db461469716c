/**
 * Tables any unit may adopt: the idempotency store, the outbox and leases. A unit re-exports the
 * ones it uses from its own `tables.ts` (each unit owns its SQLite file and its migrations) and
 * runs `npx bun db/generate.ts <unit>`. drizzle-kit loads this file under Node: import nothing
 * here but drizzle-orm.
 */
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** One idempotency key of one scope; `status` and `body` are null while the first request runs. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    /** What the key is unique within: a route (`POST /api/v1/x`), an operation, a (project, scenario). */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the canonical request; null only on rows imported from before fingerprints were kept (replayed for any request). */
    fingerprint: text('fingerprint'),
    status: integer('status'),
    /** The response headers that matter for a replay (content type, location …). */
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    body: blob('body', { mode: 'buffer' }),
    /** While the first request runs: when its claim may be taken over (its process died). */
    lockedUntil: text('locked_until'),
    createdAt: text('created_at').notNull(),
    completedAt: text('completed_at'),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
)

/** Leases (`db/lease.ts`): who may run a named background job now, across processes. */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: text('expires_at').notNull(),
  acquiredAt: text('acquired_at').notNull(),
  renewedAt: text('renewed_at').notNull(),
})

/** The outbox (`db/outbox.ts`): messages to deliver to a target, kept until a 2xx or dead. */
export const outboxMessages = sqliteTable(
  'outbox_messages',
  {
    id: text('id').primaryKey(),
    /** The unit's name for a destination (`contact-webhook`); its URL comes from configuration. */
    target: text('target').notNull(),
    /** The exact body sent on every attempt, so retries are byte-identical. */
    payload: text('payload').notNull(),
    /** Headers stored with the message; per-delivery headers (signatures) come from the target. */
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    state: text('state', { enum: ['pending', 'delivered', 'dead'] }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: text('next_attempt_at').notNull(),
    /** A delivery in progress by `claimedBy` until then; another process skips the row. */
    claimedUntil: text('claimed_until'),
    claimedBy: text('claimed_by'),
    lastError: text('last_error'),
    lastStatus: integer('last_status'),
    createdAt: text('created_at').notNull(),
    deliveredAt: text('delivered_at'),
  },
  (t) => [index('outbox_messages_due').on(t.state, t.nextAttemptAt)],
)

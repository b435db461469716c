/**
 * Tables any unit may adopt: the idempotency store, the outbox and leases. A unit re-exports the
 * ones it uses from its own `tables.ts` (each unit owns its SQLite file and its migrations) and
 * runs `npx bun db/generate.ts <unit>`. drizzle-kit loads this file under Node: import nothing
 * here but drizzle-orm.
 */
import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

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

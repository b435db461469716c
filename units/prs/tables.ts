import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * One probe of one live surface of one unit (liveness, manifest, PWS facts). Observations feed the
 * drift and runtime-tools views; they never override contract truth.
 */
export const observations = sqliteTable(
  'observations',
  {
    id: text('id').primaryKey(),
    unit: text('unit').notNull(),
    surface: text('surface').notNull(),
    url: text('url').notNull(),
    observedAt: text('observed_at').notNull(),
    ok: integer('ok', { mode: 'boolean' }).notNull(),
    status: integer('status'),
    /** Why the probe gave no usable answer (timeout, unreachable, bad_status, bad_body). */
    reason: text('reason'),
    message: text('message'),
    latencyMs: integer('latency_ms').notNull(),
    /** The answer's JSON body when it was JSON and small enough to keep. */
    body: text('body', { mode: 'json' }).$type<unknown>(),
    bodyHash: text('body_hash'),
  },
  (t) => [index('observations_latest').on(t.unit, t.surface, t.observedAt)],
)

/**
 * Every distinct contract the repository has shipped for a subject (a unit or a family), so the
 * transitive compatibility modes can compare against all of them, not only the current one.
 */
export const contractVersions = sqliteTable(
  'contract_versions',
  {
    id: text('id').primaryKey(),
    subjectKind: text('subject_kind', { enum: ['unit', 'family'] }).notNull(),
    subject: text('subject').notNull(),
    version: text('version').notNull(),
    hash: text('hash').notNull(),
    document: text('document', { mode: 'json' }).$type<unknown>().notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
  },
  (t) => [uniqueIndex('contract_versions_subject_hash').on(t.subjectKind, t.subject, t.hash)],
)

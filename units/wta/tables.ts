import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** The latest snapshot of every workflow the tool has shown; `removedAt` once it is gone. */
export const workflows = sqliteTable('workflows', {
  workflowId: text('workflow_id').primaryKey(),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull(),
  /** The workflow as the tool returned it (JSON text). */
  document: text('document').notNull(),
  contentHash: text('content_hash').notNull(),
  toolUpdatedAt: text('tool_updated_at'),
  firstSeenAt: text('first_seen_at').notNull(),
  lastSeenAt: text('last_seen_at').notNull(),
  removedAt: text('removed_at'),
})

/** History: one row per distinct content of a workflow, the first time it was seen. */
export const workflowVersions = sqliteTable(
  'workflow_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workflowId: text('workflow_id').notNull(),
    contentHash: text('content_hash').notNull(),
    document: text('document').notNull(),
    takenAt: text('taken_at').notNull(),
  },
  (t) => [uniqueIndex('workflow_versions_content').on(t.workflowId, t.contentHash)],
)

/** Every sync with the tool, successful or not. */
export const syncs = sqliteTable('syncs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  at: text('at').notNull(),
  ok: integer('ok', { mode: 'boolean' }).notNull(),
  workflowCount: integer('workflow_count'),
  toolVersion: text('tool_version'),
  error: text('error'),
})

/** Catalog baselines: node types and type versions in use, kept when they change. */
export const catalogBaselines = sqliteTable('catalog_baselines', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  takenAt: text('taken_at').notNull(),
  contentHash: text('content_hash').notNull(),
  document: text('document').notNull(),
})

/** Upstream releases as read from the configured source. */
export const upstreamReleases = sqliteTable('upstream_releases', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  checkedAt: text('checked_at').notNull(),
  version: text('version').notNull(),
  publishedAt: text('published_at'),
  source: text('source').notNull(),
})

/** Upgrade reports made by the scheduled observer or a command. */
export const upgradeReports = sqliteTable(
  'upgrade_reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    createdAt: text('created_at').notNull(),
    trigger: text('trigger', { enum: ['scheduled', 'command'] }).notNull(),
    document: text('document').notNull(),
  },
  (t) => [index('upgrade_reports_created').on(t.createdAt)],
)

/** Leases (db/lease.ts): one active observer per gateway target. */
export { leases } from '../../db/tables.ts'

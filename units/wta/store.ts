import { desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { canonicalHash } from '../../common/hash.ts'
import type { Sql, Storage } from '../../db/storage.ts'
import type { N8nWorkflow } from './service/automation.ts'
import {
  catalogBaselines,
  syncs,
  upgradeReports,
  upstreamReleases,
  workflows,
  workflowVersions,
} from './tables.ts'

export interface SnapshotRow {
  workflow: N8nWorkflow
  contentHash: string
  lastSeenAt: string
  removedAt: string | null
}

export interface SnapshotChanges {
  added: string[]
  changed: string[]
  removed: string[]
}

const rowOf = (r: typeof workflows.$inferSelect): SnapshotRow => ({
  workflow: JSON.parse(r.document) as N8nWorkflow,
  contentHash: r.contentHash,
  lastSeenAt: r.lastSeenAt,
  removedAt: r.removedAt,
})

/** The hash of what a workflow does: its content without the tool's bookkeeping timestamps. */
export const workflowHash = (w: N8nWorkflow) => {
  const { updatedAt: _u, createdAt: _c, ...content } = w
  return canonicalHash(content)
}

/**
 * Record a complete listing from the tool in one transaction: new and changed workflows get a
 * history row, missing ones are marked removed, and the sync is logged. Returns what changed.
 */
export async function recordSnapshot(
  storage: Storage,
  listing: readonly N8nWorkflow[],
  at: string,
  toolVersion: string | null,
): Promise<SnapshotChanges> {
  return storage.transaction(async (tx) => {
    const known = new Map(
      (
        await tx
          .select({ id: workflows.workflowId, hash: workflows.contentHash, removedAt: workflows.removedAt })
          .from(workflows)
          .all()
      ).map((r) => [r.id, r]),
    )
    const changes: SnapshotChanges = { added: [], changed: [], removed: [] }
    for (const w of listing) {
      const before = known.get(w.id)
      if (!before || before.removedAt !== null) changes.added.push(w.id)
      else if (before.hash !== workflowHash(w)) changes.changed.push(w.id)
    }
    await upsertWorkflows(tx, listing, at)
    const listed = new Set(listing.map((w) => w.id))
    const gone = [...known.values()].filter((r) => r.removedAt === null && !listed.has(r.id)).map((r) => r.id)
    for (let i = 0; i < gone.length; i += CHUNK)
      await tx
        .update(workflows)
        .set({ removedAt: at })
        .where(inArray(workflows.workflowId, gone.slice(i, i + CHUNK)))
        .run()
    changes.removed = gone
    await tx.insert(syncs).values({ at, ok: true, workflowCount: listing.length, toolVersion }).run()
    return changes
  })
}

/** Rows per multi-row statement: few round trips on a server, well under SQLite's variable limit. */
const CHUNK = 200

/**
 * Workflows as last seen (live again if they were removed), and their contents in the history,
 * in a few multi-row statements (a listing may hold thousands of workflows).
 */
async function upsertWorkflows(tx: Sql, listing: readonly N8nWorkflow[], at: string): Promise<void> {
  const rows = listing.map((w) => ({
    workflowId: w.id,
    name: w.name,
    active: w.active ?? false,
    document: JSON.stringify(w),
    contentHash: workflowHash(w),
    toolUpdatedAt: w.updatedAt ?? null,
    firstSeenAt: at,
    lastSeenAt: at,
  }))
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK)
    await tx
      .insert(workflows)
      .values(chunk)
      .onConflictDoUpdate({
        target: workflows.workflowId,
        set: {
          name: sql`excluded.name`,
          active: sql`excluded.active`,
          document: sql`excluded.document`,
          contentHash: sql`excluded.content_hash`,
          toolUpdatedAt: sql`excluded.tool_updated_at`,
          lastSeenAt: sql`excluded.last_seen_at`,
          removedAt: null,
        },
      })
      .run()
    await tx
      .insert(workflowVersions)
      .values(
        chunk.map((r) => ({
          workflowId: r.workflowId,
          contentHash: r.contentHash,
          document: r.document,
          takenAt: at,
        })),
      )
      .onConflictDoNothing()
      .run()
  }
}

/** Record one workflow read live (a single-workflow read keeps history too). */
export async function recordWorkflow(storage: Storage, w: N8nWorkflow, at: string): Promise<void> {
  await storage.transaction((tx) => upsertWorkflows(tx, [w], at))
}

export async function recordFailedSync(storage: Storage, at: string, error: string): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx.insert(syncs).values({ at, ok: false, error }).run()
  })
}

export async function snapshotWorkflows(storage: Storage): Promise<SnapshotRow[]> {
  const rows = await storage.db
    .select()
    .from(workflows)
    .where(isNull(workflows.removedAt))
    .orderBy(workflows.name)
    .all()
  return rows.map(rowOf)
}

export async function snapshotWorkflow(storage: Storage, id: string): Promise<SnapshotRow | undefined> {
  const r = await storage.db.select().from(workflows).where(eq(workflows.workflowId, id)).get()
  return r ? rowOf(r) : undefined
}

export async function workflowHistory(
  storage: Storage,
  id: string,
): Promise<{ content_hash: string; taken_at: string }[]> {
  return storage.db
    .select({ content_hash: workflowVersions.contentHash, taken_at: workflowVersions.takenAt })
    .from(workflowVersions)
    .where(eq(workflowVersions.workflowId, id))
    .orderBy(desc(workflowVersions.id))
    .all()
}

export async function lastSync(storage: Storage, ok?: boolean) {
  return storage.db
    .select()
    .from(syncs)
    .where(ok === undefined ? undefined : eq(syncs.ok, ok))
    .orderBy(desc(syncs.id))
    .limit(1)
    .get()
}

/** Store a baseline unless it equals the latest; returns the latest row. */
export async function recordBaseline(storage: Storage, document: unknown, at: string) {
  const hash = canonicalHash(document)
  // Unchanged (the common case): a read, without taking the writer.
  const current = await newestBaseline(storage.db)
  if (current?.contentHash === hash) return current
  return storage.transaction(async (tx) => {
    const latest = await newestBaseline(tx)
    if (latest?.contentHash === hash) return latest
    const row = await tx
      .insert(catalogBaselines)
      .values({ takenAt: at, contentHash: hash, document: JSON.stringify(document) })
      .returning()
      .get()
    return row as typeof catalogBaselines.$inferSelect
  })
}

const newestBaseline = (db: Sql) =>
  db.select().from(catalogBaselines).orderBy(desc(catalogBaselines.id)).limit(1).get()

export async function latestBaseline(storage: Storage) {
  return newestBaseline(storage.db)
}

export async function recordUpstream(
  storage: Storage,
  r: { version: string; publishedAt: string | null; source: string; at: string },
) {
  return storage.transaction((tx) =>
    tx
      .insert(upstreamReleases)
      .values({ checkedAt: r.at, version: r.version, publishedAt: r.publishedAt, source: r.source })
      .returning()
      .get(),
  )
}

export async function latestUpstream(storage: Storage) {
  return storage.db.select().from(upstreamReleases).orderBy(desc(upstreamReleases.id)).limit(1).get()
}

export async function recordUpgradeReport(
  storage: Storage,
  trigger: 'scheduled' | 'command',
  document: unknown,
  at: string,
) {
  return storage.transaction((tx) =>
    tx
      .insert(upgradeReports)
      .values({ createdAt: at, trigger, document: JSON.stringify(document) })
      .returning()
      .get(),
  )
}

export async function latestUpgradeReport(storage: Storage) {
  return storage.db.select().from(upgradeReports).orderBy(desc(upgradeReports.id)).limit(1).get()
}

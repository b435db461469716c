import { and, desc, eq, isNull, notInArray } from 'drizzle-orm'
import { canonicalHash } from '../../common/hash.ts'
import type { Db } from '../../db/sqlite.ts'
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
  db: Db,
  listing: readonly N8nWorkflow[],
  at: string,
  toolVersion: string | null,
): Promise<SnapshotChanges> {
  return db.transaction(
    (tx) => {
      const changes: SnapshotChanges = { added: [], changed: [], removed: [] }
      for (const w of listing) {
        const before = tx.select().from(workflows).where(eq(workflows.workflowId, w.id)).get()
        if (!before || before.removedAt !== null) changes.added.push(w.id)
        else if (before.contentHash !== workflowHash(w)) changes.changed.push(w.id)
        upsertWorkflow(tx, w, at)
      }
      const gone = tx
        .update(workflows)
        .set({ removedAt: at })
        .where(
          and(
            isNull(workflows.removedAt),
            notInArray(
              workflows.workflowId,
              listing.map((w) => w.id),
            ),
          ),
        )
        .returning({ id: workflows.workflowId })
        .all()
      changes.removed = gone.map((g) => g.id)
      tx.insert(syncs).values({ at, ok: true, workflowCount: listing.length, toolVersion }).run()
      return changes
    },
    { behavior: 'immediate' },
  )
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** One workflow as last seen (live again if it was removed), and its content in the history. */
function upsertWorkflow(tx: Tx, w: N8nWorkflow, at: string): void {
  const hash = workflowHash(w)
  const document = JSON.stringify(w)
  tx.insert(workflows)
    .values({
      workflowId: w.id,
      name: w.name,
      active: w.active ?? false,
      document,
      contentHash: hash,
      toolUpdatedAt: w.updatedAt ?? null,
      firstSeenAt: at,
      lastSeenAt: at,
    })
    .onConflictDoUpdate({
      target: workflows.workflowId,
      set: {
        name: w.name,
        active: w.active ?? false,
        document,
        contentHash: hash,
        toolUpdatedAt: w.updatedAt ?? null,
        lastSeenAt: at,
        removedAt: null,
      },
    })
    .run()
  tx.insert(workflowVersions)
    .values({ workflowId: w.id, contentHash: hash, document, takenAt: at })
    .onConflictDoNothing()
    .run()
}

/** Record one workflow read live (a single-workflow read keeps history too). */
export async function recordWorkflow(db: Db, w: N8nWorkflow, at: string): Promise<void> {
  db.transaction(
    (tx) => {
      upsertWorkflow(tx, w, at)
    },
    { behavior: 'immediate' },
  )
}

export async function recordFailedSync(db: Db, at: string, error: string): Promise<void> {
  db.insert(syncs).values({ at, ok: false, error }).run()
}

export async function snapshotWorkflows(db: Db): Promise<SnapshotRow[]> {
  return db
    .select()
    .from(workflows)
    .where(isNull(workflows.removedAt))
    .orderBy(workflows.name)
    .all()
    .map(rowOf)
}

export async function snapshotWorkflow(db: Db, id: string): Promise<SnapshotRow | undefined> {
  const r = db.select().from(workflows).where(eq(workflows.workflowId, id)).get()
  return r ? rowOf(r) : undefined
}

export async function workflowHistory(
  db: Db,
  id: string,
): Promise<{ content_hash: string; taken_at: string }[]> {
  return db
    .select({ content_hash: workflowVersions.contentHash, taken_at: workflowVersions.takenAt })
    .from(workflowVersions)
    .where(eq(workflowVersions.workflowId, id))
    .orderBy(desc(workflowVersions.id))
    .all()
}

export async function lastSync(db: Db, ok?: boolean) {
  return db
    .select()
    .from(syncs)
    .where(ok === undefined ? undefined : eq(syncs.ok, ok))
    .orderBy(desc(syncs.id))
    .limit(1)
    .get()
}

/** Store a baseline unless it equals the latest; returns the latest row. */
export async function recordBaseline(db: Db, document: unknown, at: string) {
  const hash = canonicalHash(document)
  const latest = await latestBaseline(db)
  if (latest?.contentHash === hash) return latest
  return db
    .insert(catalogBaselines)
    .values({ takenAt: at, contentHash: hash, document: JSON.stringify(document) })
    .returning()
    .get()
}

export async function latestBaseline(db: Db) {
  return db.select().from(catalogBaselines).orderBy(desc(catalogBaselines.id)).limit(1).get()
}

export async function recordUpstream(
  db: Db,
  r: { version: string; publishedAt: string | null; source: string; at: string },
) {
  return db
    .insert(upstreamReleases)
    .values({ checkedAt: r.at, version: r.version, publishedAt: r.publishedAt, source: r.source })
    .returning()
    .get()
}

export async function latestUpstream(db: Db) {
  return db.select().from(upstreamReleases).orderBy(desc(upstreamReleases.id)).limit(1).get()
}

export async function recordUpgradeReport(
  db: Db,
  trigger: 'scheduled' | 'command',
  document: unknown,
  at: string,
) {
  return db
    .insert(upgradeReports)
    .values({ createdAt: at, trigger, document: JSON.stringify(document) })
    .returning()
    .get()
}

export async function latestUpgradeReport(db: Db) {
  return db.select().from(upgradeReports).orderBy(desc(upgradeReports.id)).limit(1).get()
}

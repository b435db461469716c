import { and, asc, count, desc, eq, sql } from 'drizzle-orm'
import { canonicalHash } from '../../common/hash.ts'
import { newId } from '../../common/time.ts'
import type { Db } from '../../db/sqlite.ts'
import type { Observation, SurfaceKind } from './rules/drift.ts'
import { contractVersions, observations } from './tables.ts'

type Row = typeof observations.$inferSelect

const toObservation = (r: Row): Observation => ({
  unit: r.unit,
  surface: r.surface as SurfaceKind,
  url: r.url,
  observed_at: r.observedAt,
  ok: r.ok,
  status: r.status,
  reason: r.reason,
  message: r.message,
  latency_ms: r.latencyMs,
  body: r.body ?? null,
})

/** Store one round of observations and keep only the newest `keep` per (unit, surface). */
export function recordObservations(db: Db, round: Observation[], keep: number): void {
  db.transaction(
    (tx) => {
      for (const o of round) {
        tx.insert(observations)
          .values({
            id: newId(),
            unit: o.unit,
            surface: o.surface,
            url: o.url,
            observedAt: o.observed_at,
            ok: o.ok,
            status: o.status,
            reason: o.reason,
            message: o.message,
            latencyMs: o.latency_ms,
            body: o.body === undefined ? null : o.body,
            bodyHash: o.body === null || o.body === undefined ? null : canonicalHash(o.body),
          })
          .run()
        tx.run(sql`DELETE FROM observations WHERE unit = ${o.unit} AND surface = ${o.surface} AND id NOT IN (
          SELECT id FROM observations WHERE unit = ${o.unit} AND surface = ${o.surface}
          ORDER BY observed_at DESC, id DESC LIMIT ${keep})`)
      }
    },
    { behavior: 'immediate' },
  )
}

/** The newest observation of every (unit, surface). */
export function latestObservations(db: Db): Observation[] {
  const rows = db
    .select()
    .from(observations)
    .where(
      sql`${observations.id} IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY unit, surface ORDER BY observed_at DESC, id DESC) AS n FROM observations) WHERE n = 1)`,
    )
    .orderBy(asc(observations.unit), asc(observations.surface))
    .all()
  return rows.map(toObservation)
}

export function observationHistory(db: Db, filter: { unit?: string; limit: number }): Observation[] {
  const q = db.select().from(observations)
  const rows = (filter.unit ? q.where(eq(observations.unit, filter.unit)) : q)
    .orderBy(desc(observations.observedAt), desc(observations.id))
    .limit(filter.limit)
    .all()
  return rows.map(toObservation)
}

export function observationCount(db: Db): number {
  return db.select({ n: count() }).from(observations).get()?.n ?? 0
}

/** Remember a contract document for a subject unless this exact document is already known. */
export function registerVersion(
  db: Db,
  v: { subjectKind: 'unit' | 'family'; subject: string; version: string; document: unknown; at: string },
): boolean {
  const hash = canonicalHash(v.document)
  const res = db
    .insert(contractVersions)
    .values({
      id: newId(),
      subjectKind: v.subjectKind,
      subject: v.subject,
      version: v.version,
      hash,
      document: v.document,
      firstSeenAt: v.at,
    })
    .onConflictDoNothing()
    .returning({ id: contractVersions.id })
    .all()
  return res.length > 0
}

export function registeredVersions(
  db: Db,
  subjectKind: 'unit' | 'family',
  subject: string,
): { version: string; document: unknown; first_seen_at: string; hash: string }[] {
  return db
    .select()
    .from(contractVersions)
    .where(and(eq(contractVersions.subjectKind, subjectKind), eq(contractVersions.subject, subject)))
    .orderBy(asc(contractVersions.firstSeenAt), asc(contractVersions.id))
    .all()
    .map((r) => ({ version: r.version, document: r.document, first_seen_at: r.firstSeenAt, hash: r.hash }))
}

export function versionCount(db: Db): number {
  return db.select({ n: count() }).from(contractVersions).get()?.n ?? 0
}

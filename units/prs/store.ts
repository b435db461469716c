import { and, asc, count, desc, eq, sql } from 'drizzle-orm'
import type { UnitContract } from '../../common/contract.ts'
import { canonicalHash } from '../../common/hash.ts'
import { newId } from '../../common/time.ts'
import type { Storage } from '../../db/storage.ts'
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
export async function recordObservations(
  storage: Storage,
  round: Observation[],
  keep: number,
): Promise<void> {
  await storage.transaction(async (tx) => {
    for (const o of round) {
      await tx
        .insert(observations)
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
      await tx.run(sql`DELETE FROM observations WHERE unit = ${o.unit} AND surface = ${o.surface} AND id NOT IN (
          SELECT id FROM observations WHERE unit = ${o.unit} AND surface = ${o.surface}
          ORDER BY observed_at DESC, id DESC LIMIT ${keep})`)
    }
  })
}

/** The newest observation of every (unit, surface). */
export async function latestObservations(storage: Storage): Promise<Observation[]> {
  const rows = await storage.db
    .select()
    .from(observations)
    .where(
      sql`${observations.id} IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY unit, surface ORDER BY observed_at DESC, id DESC) AS n FROM observations) WHERE n = 1)`,
    )
    .orderBy(asc(observations.unit), asc(observations.surface))
    .all()
  return rows.map(toObservation)
}

export async function observationHistory(
  storage: Storage,
  filter: { unit?: string; limit: number },
): Promise<Observation[]> {
  const q = storage.db.select().from(observations)
  const rows = await (filter.unit ? q.where(eq(observations.unit, filter.unit)) : q)
    .orderBy(desc(observations.observedAt), desc(observations.id))
    .limit(filter.limit)
    .all()
  return rows.map(toObservation)
}

export async function observationCount(storage: Storage): Promise<number> {
  return (await storage.db.select({ n: count() }).from(observations).get())?.n ?? 0
}

type NewVersion = {
  subjectKind: 'unit' | 'family'
  subject: string
  version: string
  document: unknown
}

/** A unit contract and each family it produces: the subjects PRS keeps every version of. */
const versionsOf = (c: UnitContract): NewVersion[] => [
  { subjectKind: 'unit', subject: c.unit, version: c.version, document: c },
  ...c.produces.map((f) => ({
    subjectKind: 'family' as const,
    subject: `${c.unit}:${f.family}`,
    version: f.version,
    document: f,
  })),
]

const storedKey = (subjectKind: string, subject: string, documentText: string) =>
  `${subjectKind}\u0000${subject}\u0000${documentText}`

/**
 * Register every unit contract and its produced families (at start). A version whose stored
 * document text is exactly the one the column would store now is already registered, so a restart
 * with unchanged contracts hashes and writes nothing; the rest go in one insert, where the unique
 * (subject, canonical hash) index keeps a document registered once however its text is laid out.
 */
export async function registerContracts(
  storage: Storage,
  contracts: readonly UnitContract[],
  at: string,
): Promise<number> {
  const stored = await storage.db.all<{ subject_kind: string; subject: string; document: string }>(
    sql`SELECT subject_kind, subject, document FROM contract_versions`,
  )
  const known = new Set(stored.map((r) => storedKey(r.subject_kind, r.subject, r.document)))
  const missing = contracts
    .flatMap(versionsOf)
    .filter((v) => !known.has(storedKey(v.subjectKind, v.subject, JSON.stringify(v.document))))
  if (missing.length === 0) return 0
  return storage.transaction(async (tx) => {
    const added = await tx
      .insert(contractVersions)
      .values(
        missing.map((v) => ({
          id: newId(),
          subjectKind: v.subjectKind,
          subject: v.subject,
          version: v.version,
          hash: canonicalHash(v.document),
          document: v.document,
          firstSeenAt: at,
        })),
      )
      .onConflictDoNothing()
      .returning({ id: contractVersions.id })
      .all()
    return added.length
  })
}

export async function registeredVersions(
  storage: Storage,
  subjectKind: 'unit' | 'family',
  subject: string,
): Promise<{ version: string; document: unknown; first_seen_at: string; hash: string }[]> {
  const rows = await storage.db
    .select()
    .from(contractVersions)
    .where(and(eq(contractVersions.subjectKind, subjectKind), eq(contractVersions.subject, subject)))
    .orderBy(asc(contractVersions.firstSeenAt), asc(contractVersions.id))
    .all()
  return rows.map((r) => ({
    version: r.version,
    document: r.document,
    first_seen_at: r.firstSeenAt,
    hash: r.hash,
  }))
}

export async function versionCount(storage: Storage): Promise<number> {
  return (await storage.db.select({ n: count() }).from(contractVersions).get())?.n ?? 0
}

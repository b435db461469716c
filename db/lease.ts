/**
 * A named lease in the unit's SQLite file: at most one holder at a time; the holder renews it,
 * anyone takes it over once it has expired. It plugs into `createPoller({ lease })` so that one
 * process of several on one database runs a background job. Adopt the `leases` table by
 * re-exporting it from the unit's `tables.ts`.
 *
 *   const lease = storageLease(ctx.storage, 'web:outbox', { durationMs: 60_000 })   // either driver
 *   createPoller({ name: 'web:outbox', intervalMs: 5000, lease, run })
 *
 * Taking and renewing is one INSERT … ON CONFLICT DO UPDATE … WHERE … RETURNING statement, so it
 * is atomic on the embedded file and on a libSQL server alike. (`sqliteLease` over `ctx.db` is the
 * synchronous form for units not yet on `ctx.storage`.)
 */
import { hostname } from 'node:os'
import { and, eq, lte, or, sql } from 'drizzle-orm'
import type { PollerLease } from '../common/poller.ts'
import { newId } from '../common/time.ts'
import type { Db } from './sqlite.ts'
import { asSql, isStorage, type Sql, type Storage, syncValue } from './storage.ts'
import { leases } from './tables.ts'

export { leases }

/** A holder id that differs per process (and per lease object within one). */
export const newHolderId = (): string => `${hostname()}:${process.pid}:${newId().slice(-12)}`

function acquireQuery(db: Sql, name: string, holder: string, durationMs: number, now: number) {
  const at = new Date(now).toISOString()
  const until = new Date(now + durationMs).toISOString()
  return db
    .insert(leases)
    .values({ name, holder, expiresAt: until, acquiredAt: at, renewedAt: at })
    .onConflictDoUpdate({
      target: leases.name,
      set: {
        holder,
        expiresAt: until,
        renewedAt: at,
        acquiredAt: sql`CASE WHEN ${leases.holder} = ${holder} THEN ${leases.acquiredAt} ELSE ${at} END`,
      },
      setWhere: or(eq(leases.holder, holder), lte(leases.expiresAt, at)),
    })
    .returning({ holder: leases.holder })
}

const releaseQuery = (db: Sql, name: string, holder: string) =>
  db
    .delete(leases)
    .where(and(eq(leases.name, name), eq(leases.holder, holder)))
    .returning({ name: leases.name })

/** Take or renew `name` for `holder` until now + durationMs; true when `holder` holds it after. */
export function acquireLease(
  db: Db,
  name: string,
  holder: string,
  durationMs: number,
  now = Date.now(),
): boolean {
  return syncValue(acquireQuery(asSql(db), name, holder, durationMs, now).all()).length === 1
}

/** Give the lease up now, if `holder` holds it. */
export function releaseLease(db: Db, name: string, holder: string): boolean {
  return syncValue(releaseQuery(asSql(db), name, holder).all()).length === 1
}

/** `acquireLease` on either driver. */
export async function acquireLeaseOn(
  storage: Storage,
  name: string,
  holder: string,
  durationMs: number,
  now = Date.now(),
): Promise<boolean> {
  const rows = await storage.transaction((tx) => acquireQuery(tx, name, holder, durationMs, now).all())
  return rows.length === 1
}

/** `releaseLease` on either driver. */
export async function releaseLeaseOn(storage: Storage, name: string, holder: string): Promise<boolean> {
  return (await storage.transaction((tx) => releaseQuery(tx, name, holder).all())).length === 1
}

export function currentLease(db: Db, name: string): typeof leases.$inferSelect | undefined {
  return db.select().from(leases).where(eq(leases.name, name)).get()
}

type LeaseOptions = { durationMs: number; holder?: string; now?: () => number }

/** The poller lease over the pre-storage handle (`ctx.db`, embedded only). */
export function sqliteLease(
  db: Db | Storage,
  name: string,
  o: LeaseOptions,
): PollerLease & { holder: string } {
  return storageLease(db, name, o)
}

/** A poller lease on the unit's storage (either driver), or on the pre-storage handle. */
export function storageLease(
  db: Db | Storage,
  name: string,
  o: LeaseOptions,
): PollerLease & { holder: string } {
  const holder = o.holder ?? newHolderId()
  const now = o.now ?? Date.now
  return {
    holder,
    durationMs: o.durationMs,
    acquire: () =>
      isStorage(db)
        ? acquireLeaseOn(db, name, holder, o.durationMs, now())
        : acquireLease(db, name, holder, o.durationMs, now()),
    release: async () =>
      void (isStorage(db) ? await releaseLeaseOn(db, name, holder) : releaseLease(db, name, holder)),
  }
}

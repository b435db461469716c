/**
 * A named lease in the unit's SQLite file: at most one holder at a time; the holder renews it,
 * anyone takes it over once it has expired. It plugs into `createPoller({ lease })` so that one
 * process of several on one database runs a background job. Adopt the `leases` table by
 * re-exporting it from the unit's `tables.ts`.
 *
 *   const lease = sqliteLease(ctx.db, 'web:outbox', { durationMs: 60_000 })
 *   createPoller({ name: 'web:outbox', intervalMs: 5000, lease, run })
 */
import { hostname } from 'node:os'
import { and, eq, lte, or, sql } from 'drizzle-orm'
import type { PollerLease } from '../common/poller.ts'
import { newId } from '../common/time.ts'
import type { Db } from './sqlite.ts'
import { leases } from './tables.ts'

export { leases }

/** A holder id that differs per process (and per lease object within one). */
export const newHolderId = (): string => `${hostname()}:${process.pid}:${newId().slice(-12)}`

/** Take or renew `name` for `holder` until now + durationMs; true when `holder` holds it after. */
export function acquireLease(
  db: Db,
  name: string,
  holder: string,
  durationMs: number,
  now = Date.now(),
): boolean {
  const at = new Date(now).toISOString()
  const until = new Date(now + durationMs).toISOString()
  const rows = db
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
    .all()
  return rows.length === 1
}

/** Give the lease up now, if `holder` holds it. */
export function releaseLease(db: Db, name: string, holder: string): boolean {
  return (
    db
      .delete(leases)
      .where(and(eq(leases.name, name), eq(leases.holder, holder)))
      .returning({ name: leases.name })
      .all().length === 1
  )
}

export function currentLease(db: Db, name: string): typeof leases.$inferSelect | undefined {
  return db.select().from(leases).where(eq(leases.name, name)).get()
}

export function sqliteLease(
  db: Db,
  name: string,
  o: { durationMs: number; holder?: string; now?: () => number },
): PollerLease & { holder: string } {
  const holder = o.holder ?? newHolderId()
  const now = o.now ?? Date.now
  return {
    holder,
    durationMs: o.durationMs,
    acquire: () => acquireLease(db, name, holder, o.durationMs, now()),
    release: () => void releaseLease(db, name, holder),
  }
}

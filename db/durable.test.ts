/**
 * The durable blocks on the storage interface, with two storages on one database standing for two
 * processes (two replicas on one libSQL server, or two processes on one file).
 */
import { expect, test } from 'bun:test'
import { badRequest } from '../common/errors.ts'
import { describeOnDrivers } from '../test/drivers.ts'
import { StorageGuard } from './guard.ts'
import { replayable, runIdempotent } from './idempotency.ts'
import { acquireLeaseOn, releaseLeaseOn, storageLease } from './lease.ts'
import { claimDueOn, enqueueIn, outboxSummary, retryDead } from './outbox.ts'
import { idempotencyKeys, leases, outboxMessages } from './tables.ts'

const tables = { idempotencyKeys, leases, outboxMessages }

describeOnDrivers('durable blocks across two processes', ({ open, sameAs }) => {
  test('a lease has one holder at a time; the other takes it once it expired or was released', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    const now = Date.parse('2026-01-01T00:00:00Z')
    const results = await Promise.all([
      acquireLeaseOn(a, 'job', 'holder-a', 10_000, now),
      acquireLeaseOn(b, 'job', 'holder-b', 10_000, now),
    ])
    expect(results.filter(Boolean)).toHaveLength(1)
    const winner = results[0] ? 'holder-a' : 'holder-b'
    const loser = results[0] ? 'holder-b' : 'holder-a'
    const loserStorage = results[0] ? b : a
    const winnerStorage = results[0] ? a : b
    expect(await acquireLeaseOn(loserStorage, 'job', loser, 10_000, now + 5_000)).toBe(false)
    expect(await acquireLeaseOn(winnerStorage, 'job', winner, 10_000, now + 5_000)).toBe(true)
    expect(await acquireLeaseOn(loserStorage, 'job', loser, 10_000, now + 15_001)).toBe(true)
    expect(await releaseLeaseOn(winnerStorage, 'job', winner)).toBe(false)
    expect(await releaseLeaseOn(loserStorage, 'job', loser)).toBe(true)
    const lease = storageLease(winnerStorage, 'job', { durationMs: 1000 })
    expect(await lease.acquire()).toBe(true)
  })

  test('every outbox row is claimed by exactly one process', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    const at = '2026-01-01T00:00:00.000Z'
    await a.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) await enqueueIn(tx, { target: 'sink', payload: String(i), at })
    })
    const now = Date.parse(at) + 1
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        claimDueOn(i % 2 === 0 ? a : b, { holder: `h${i}`, now, claimMs: 60_000, limit: 7 }),
      ),
    )
    const ids = claims.flat().map((m) => m.id)
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
    expect(await claimDueOn(b, { holder: 'late', now, claimMs: 60_000, limit: 50 })).toEqual([])
    expect(await outboxSummary(b)).toMatchObject({ pending: 30, delivered: 0, dead: 0 })
    expect(await retryDead(a, ids[0] ?? '')).toBe(false)
  })

  test('an idempotency key runs its effect once across processes; another body is a 409', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    let effects = 0
    const req = { scope: 'POST /things', key: 'k-1', fingerprint: 'f1' }
    const execute = async () => {
      effects++
      await Bun.sleep(20)
      return {
        status: 201,
        headers: { 'content-type': 'text/plain' },
        body: new TextEncoder().encode('made'),
      }
    }
    const results = await Promise.all(
      [a, b, a, b].map((s) => runIdempotent(s, req, execute, { pollMs: 5, waitMs: 5000 })),
    )
    expect(effects).toBe(1)
    expect(results.filter((r) => !r.replayed)).toHaveLength(1)
    for (const r of results) expect(new TextDecoder().decode(r.response.body)).toBe('made')
    const other = replayable(
      b,
      { scope: 'POST /things', key: 'k-1', request: { other: true } },
      async () => ({
        status: 201,
        body: {},
      }),
    )
    await expect(other).rejects.toMatchObject({ status: 409, errorCode: 'idempotency_conflict' })
    expect(effects).toBe(1)
  })

  test('a failed effect releases its key, so a retry runs it', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    const req = { scope: 's', key: 'k', fingerprint: 'f' }
    await expect(
      runIdempotent(a, req, async () => {
        throw new Error('peer down')
      }),
    ).rejects.toThrow('peer down')
    const retry = await runIdempotent(b, req, async () => ({
      status: 200,
      headers: {},
      body: new Uint8Array([1]),
    }))
    expect(retry.replayed).toBe(false)
  })

  test('a unique key holds across processes: one insert wins, the other is refused', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    const insert = (s: typeof a, holder: string) =>
      s.transaction(async (tx) => {
        await tx
          .insert(leases)
          .values({ name: 'only', holder, expiresAt: 'x', acquiredAt: 'x', renewedAt: 'x' })
      })
    const outcomes = await Promise.allSettled([insert(a, 'a'), insert(b, 'b')])
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1)
    expect(await a.db.select().from(leases)).toHaveLength(1)
  })
})

describeOnDrivers('storage guard', ({ open }) => {
  test('a refusal rolls back and passes through; a dead database is a 503 and unready', async () => {
    const s = await open(tables)
    const failures: unknown[] = []
    const guard = new StorageGuard(s, { onFailure: (err) => failures.push(err) })
    expect(await guard.ready()).toBe(true)
    const refused = guard.write(async (tx) => {
      await tx
        .insert(leases)
        .values({ name: 'n', holder: 'h', expiresAt: 'x', acquiredAt: 'x', renewedAt: 'x' })
      throw badRequest('bad_thing', 'refused')
    })
    await expect(refused).rejects.toMatchObject({ status: 400, errorCode: 'bad_thing' })
    expect(await guard.read((db) => db.select().from(leases))).toEqual([])
    expect(await guard.ready()).toBe(true)
    await s.close()
    await expect(guard.read((db) => db.select().from(leases))).rejects.toMatchObject({
      status: 503,
      errorCode: 'persistence_unavailable',
    })
    expect(await guard.ready()).toBe(false)
    expect(failures).toHaveLength(1)
  })
})

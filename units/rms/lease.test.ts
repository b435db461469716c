/** Lease exclusivity: two RMS instances on one database never hold the reconcile lease together. */
import { describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import type { Json, TestUnit } from '../../test/harness.ts'
import { bootForTest, bootForTestAsync, tempDir, testDriver } from '../../test/harness.ts'
import { startSqld } from '../../test/sqld.ts'
import { rms } from './index.ts'
import * as store from './store.ts'
import { bearer, LOCAL_TOKENS, TOKENS } from './testing.ts'

const W = bearer(TOKENS.write)
const env = { RMS_LOCAL_TOKENS: LOCAL_TOKENS }

describe('leases', () => {
  test('two in-process instances on one database: one holds, the other gets 409 naming the holder', async () => {
    const dir = tempDir('svc-rms-lease-')
    // Both on one database: the same file, or on libsql the same sqld.
    const sqld = testDriver() === 'libsql' ? await startSqld() : undefined
    const shared = sqld ? { ...env, DATABASE_URL: sqld.url } : env
    const a = (await bootForTestAsync(rms, shared, dir)) as TestUnit<unknown>
    const b = (await bootForTestAsync(rms, shared, dir)) as TestUnit<unknown>
    const ra = await a.send('POST', '/api/v1/control-agent/reconcile', {}, W)
    expect(ra.status).toBe(200)
    const ja = (await ra.json()) as Json
    expect(ja.outcome).toBe('reconciled')
    expect(ja.run).toMatchObject({ outcome: 'ok', drift_items: 0, max_severity: 'none', trigger: 'manual' })
    expect(ja.lease).toMatchObject({
      name: 'reconcile',
      held: true,
      held_by_this_instance: true,
      generation: 1,
    })
    const rb = await b.send('POST', '/api/v1/control-agent/reconcile', {}, W)
    expect(rb.status).toBe(409)
    const jb = (await rb.json()) as Json
    expect(jb.error.code).toBe('lease_held')
    expect(jb.error.details.holder).toBe(ja.lease.holder)
    // Renewal by the holder keeps the generation and counts the renewal.
    const again = (await (await a.send('POST', '/api/v1/control-agent/reconcile', {}, W)).json()) as Json
    expect(again.lease).toMatchObject({ generation: 1, renew_count: 1 })
    const leases = (await (await b.request('/api/v1/control-agent/leases', { headers: W })).json()) as Json
    expect(leases.items[0]).toMatchObject({
      holder: ja.lease.holder,
      held: true,
      held_by_this_instance: false,
      duration_s: 360,
    })
    expect(leases.transitions).toMatchObject([
      { transition: 'acquired', to_holder: ja.lease.holder, generation: 1 },
    ])
    // Stopping the holder releases the lease; the other takes it with a new generation.
    await a.close()
    const rb2 = (await (await b.send('POST', '/api/v1/control-agent/reconcile', {}, W)).json()) as Json
    expect(rb2.lease).toMatchObject({ held_by_this_instance: true, generation: 2 })
    const status = (await (await b.request('/api/v1/control-agent/status', { headers: W })).json()) as Json
    expect(status).toMatchObject({ holds_lease: true, watchdog: { state: 'ok' } })
    expect(status.recent_runs.length).toBe(3)
    const schedule = (await (
      await b.request('/api/v1/control-agent/schedule', { headers: W })
    ).json()) as Json
    expect(schedule).toMatchObject({ reconcile_interval_s: 120, minimum_interval_s: 60, loop_running: false })
    await b.close()
    await sqld?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('an expired lease is taken over and the transition recorded', async () => {
    const a = await bootForTestAsync(rms, env)
    const storage = a.ctx.storage
    const t0 = new Date('2026-11-22T10:00:00.000Z')
    expect((await store.acquireLease(storage, 'x', 'one', 60, t0)).held).toBe(true)
    expect((await store.acquireLease(storage, 'x', 'two', 60, new Date(t0.getTime() + 30_000))).held).toBe(
      false,
    )
    const taken = await store.acquireLease(storage, 'x', 'two', 60, new Date(t0.getTime() + 61_000))
    expect(taken).toMatchObject({
      held: true,
      transition: 'taken_over',
      lease: { holder: 'two', generation: 2 },
    })
    expect(await store.releaseLease(storage, 'x', 'one')).toBe(false)
    expect((await store.listTransitions(storage.db, 10)).map((t) => t.transition)).toEqual([
      'taken_over',
      'acquired',
    ])
    await a.dispose()
  })

  test('the cadence floor: a reconcile interval below 60 s is refused at start', () => {
    expect(() => bootForTest(rms, { ...env, RMS_RECONCILE_INTERVAL_S: '30' })).toThrow(
      /RMS_RECONCILE_INTERVAL_S/,
    )
    expect(() => bootForTest(rms, { ...env, RMS_WATCHDOG_INTERVAL_S: '10' })).toThrow(
      /RMS_WATCHDOG_INTERVAL_S/,
    )
    expect(() =>
      bootForTest(rms, { ...env, RMS_RECONCILE_INTERVAL_S: '600', RMS_LEASE_DURATION_S: '300' }),
    ).toThrow(/RMS_LEASE_DURATION_S/)
    expect(() => bootForTest(rms, { RMS_LOCAL_TOKENS: 'short:x:r' })).toThrow(/RMS_LOCAL_TOKENS/)
  })
})

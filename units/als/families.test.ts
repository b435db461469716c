import { afterEach, describe, expect, test } from 'bun:test'
import { createLogger } from '../../common/logger.ts'
import { type FakePeer, fakePeer, freePort, json } from '../../test/harness.ts'
import { createFamilyCache } from './families.ts'
import { MATRIX } from './testing.ts'

const log = createLogger('als', 'silent')
const peers: FakePeer[] = []
afterEach(() => {
  for (const p of peers.splice(0)) p.stop()
})
const settings = (registryUrl: string | undefined) => ({
  registryUrl,
  timeoutMs: 500,
  maxAgeMs: 1000,
  refreshMs: 60_000,
})

describe('PRS family cache', () => {
  test('not configured: no families, never a fetch', async () => {
    const cache = createFamilyCache(settings(undefined), log)
    expect((await cache.refresh()).state).toBe('not_configured')
    expect(cache.snapshot()).toMatchObject({ producer_families: [], consumer_families: [], version: null })
  })

  test('families are shown only while fresh, judged by age at read time', async () => {
    let clock = 1_000_000
    const prs = fakePeer(() => json(MATRIX))
    peers.push(prs)
    const cache = createFamilyCache(settings(prs.url), log, () => clock)
    expect(cache.snapshot().state).toBe('unavailable')
    await cache.refresh()
    expect(cache.snapshot()).toMatchObject({
      state: 'fresh',
      producer_families: ['learning.signals', 'registry.contract_matrix'],
      version: 'matrix-7',
      age_ms: 0,
    })
    clock += 1001
    expect(cache.snapshot()).toMatchObject({ state: 'stale', producer_families: [], version: 'matrix-7' })
  })

  test('a failed refresh keeps the last answer (until it ages out) and records why', async () => {
    let clock = 0
    const prs = fakePeer(() => json(MATRIX))
    peers.push(prs)
    const cache = createFamilyCache(settings(prs.url), log, () => clock)
    await cache.refresh()
    prs.respond(() => json({ error: 'down' }, 503))
    clock += 10
    const snap = await cache.refresh()
    expect(snap).toMatchObject({ state: 'fresh', reachable: false })
    expect(snap.last_error).toContain('bad_status')
  })

  test('concurrent refreshes share one request', async () => {
    const prs = fakePeer(async () => {
      await Bun.sleep(30)
      return json(MATRIX)
    })
    peers.push(prs)
    const cache = createFamilyCache(settings(prs.url), log)
    await Promise.all([cache.refresh(), cache.refresh(), cache.ensureFresh()])
    expect(prs.requests).toHaveLength(1)
    await cache.ensureFresh()
    expect(prs.requests).toHaveLength(1)
  })

  test('the background task retries soon while PRS is down, then picks the matrix up', async () => {
    const prs = fakePeer(() => json({}, 503))
    peers.push(prs)
    const cache = createFamilyCache({ ...settings(prs.url), maxAgeMs: 60_000 }, log)
    cache.start()
    for (let i = 0; i < 50 && prs.requests.length === 0; i++) await Bun.sleep(10)
    prs.respond(() => json(MATRIX))
    for (let i = 0; i < 300 && cache.snapshot().state !== 'fresh'; i++) await Bun.sleep(10)
    await cache.stop()
    expect(cache.snapshot().state).toBe('fresh')
    expect(prs.requests.length).toBeGreaterThanOrEqual(2)
  })

  test('while PRS stays down the background task backs off (half a second, doubling), never a tight loop', async () => {
    const prs = fakePeer(() => json({}, 503))
    peers.push(prs)
    const cache = createFamilyCache(settings(prs.url), log)
    cache.start()
    await Bun.sleep(1200)
    await cache.stop()
    // Attempts at 0, ~0.5 s and ~1.5 s: at most two within 1.2 s (a fixed short retry would make many).
    expect(prs.requests.length).toBeGreaterThanOrEqual(1)
    expect(prs.requests.length).toBeLessThanOrEqual(2)
    expect(cache.snapshot()).toMatchObject({ state: 'unavailable', reachable: false })
  })

  test('an unreachable registry is unavailable with the reason', async () => {
    const cache = createFamilyCache(settings(`http://127.0.0.1:${freePort()}`), log)
    const snap = await cache.refresh()
    expect(snap).toMatchObject({ state: 'unavailable', reachable: false, producer_families: [] })
    expect(snap.last_error).toContain('unreachable')
  })
})

import { afterEach, describe, expect, test } from 'bun:test'
import type { Timer } from '../../common/poller.ts'
import { bootForTestAsync, type TestUnit } from '../../test/harness.ts'
import { wta } from './index.ts'
import { createObservers, restartDelayMs } from './service/observer.ts'
import { createWta } from './service/wta.ts'
import { recordFailedSync } from './store.ts'
import { type FakeN8n, fakeN8n } from './testing.ts'

/** A clock that moves only when told; due timers fire in order. */
class FakeClock implements Timer {
  t = Date.parse('2026-11-23T12:00:00.000Z')
  private seq = 0
  private pending = new Map<number, { at: number; fn: () => void }>()
  /** Whether a round is in flight (set by the test to its observers). */
  busy: () => boolean = () => false
  now = () => this.t
  setTimeout = (fn: () => void, ms: number) => {
    this.pending.set(++this.seq, { at: this.t + ms, fn })
    return this.seq
  }
  clearTimeout = (h: unknown) => void this.pending.delete(h as number)
  delays = () => [...this.pending.values()].map((p) => p.at - this.t).sort((a, b) => a - b)
  async advance(ms: number) {
    const end = this.t + ms
    for (;;) {
      const next = [...this.pending.entries()].sort((a, b) => a[1].at - b[1].at)[0]
      if (!next || next[1].at > end) break
      this.pending.delete(next[0])
      this.t = next[1].at
      next[1].fn()
      // Rounds make real HTTP calls to the fake n8n: wait for them to finish.
      await Bun.sleep(0)
      while (this.busy()) await Bun.sleep(2)
    }
    this.t = end
  }
}

const open: { units: TestUnit<unknown>[]; n8n: FakeN8n[] } = { units: [], n8n: [] }
afterEach(async () => {
  for (const u of open.units.splice(0)) await u.dispose()
  for (const n of open.n8n.splice(0)) n.stop()
})

async function setup(o: { active?: boolean; dataDir?: string } = {}) {
  const n8n = fakeN8n()
  for (const w of n8n.workflows) w.active = o.active ?? true
  open.n8n.push(n8n)
  const u = await bootForTestAsync(
    wta,
    { WTA_AUTOMATION_URL: n8n.url, WTA_AUTOMATION_API_KEY: n8n.apiKey, WTA_AUTOMATION_TIMEOUT_MS: '1000' },
    o.dataDir,
  )
  open.units.push(u as TestUnit<unknown>)
  const clock = new FakeClock()
  const service = createWta(u.ctx.config, u.ctx.storage, { now: () => new Date(clock.now()) })
  return { n8n, u, clock, service }
}

const watch = (clock: FakeClock, o: ReturnType<typeof createObservers>) => {
  const before = clock.busy
  clock.busy = () => before() || o.flow.stats().running || o.upgrade.stats().running
}

const listings = (n8n: FakeN8n) => n8n.requests.filter((p) => p.startsWith('/api/v1/workflows?')).length

describe('observers', () => {
  test('polls every 45 s plus at most 3 s of jitter', async () => {
    const { n8n, clock, service } = await setup()
    const obs = createObservers(service, { timer: clock, random: () => 0.999 })
    watch(clock, obs)
    obs.flow.start()
    await clock.advance(0)
    expect(listings(n8n)).toBe(1)
    const [next] = clock.delays()
    expect(next).toBeGreaterThanOrEqual(45_000)
    expect(next).toBeLessThanOrEqual(48_000)
    await clock.advance(48_000)
    expect(listings(n8n)).toBe(2)
    await obs.flow.stop()
  })

  test('errors back off from the poll, doubling, bounded at 300 s, never below the 30 s floor', async () => {
    const { n8n, clock, service } = await setup()
    n8n.failWith = 503
    const obs = createObservers(service, { timer: clock, random: () => 0.999 })
    watch(clock, obs)
    obs.flow.start()
    const seen: number[] = []
    await clock.advance(0)
    for (let i = 0; i < 6; i++) {
      const [d] = clock.delays()
      seen.push(d ?? -1)
      await clock.advance(d ?? 0)
    }
    expect(seen[0]).toBeGreaterThanOrEqual(45_000)
    expect(seen[1]).toBeGreaterThanOrEqual(90_000)
    expect(seen[2]).toBeGreaterThanOrEqual(180_000)
    for (const d of seen) {
      expect(d).toBeGreaterThanOrEqual(30_000)
      expect(d).toBeLessThanOrEqual(300_000)
    }
    expect(seen.slice(3)).toEqual([300_000, 300_000, 300_000])
    expect(obs.flow.stats().consecutive_failures).toBe(7)
    const kinds = service.events.tail().map((e) => e.kind)
    expect(kinds.filter((k) => k === 'observer.failing')).toHaveLength(1)
    n8n.failWith = undefined
    await clock.advance(300_000)
    expect(obs.flow.stats().consecutive_failures).toBe(0)
    expect(service.events.tail().map((e) => e.kind)).toContain('observer.recovered')
    await obs.flow.stop()
  })

  test('an idle tool (no active workflow) is polled only every idle poll (120 s)', async () => {
    const { n8n, clock, service } = await setup({ active: false })
    const obs = createObservers(service, { timer: clock, random: () => 0 })
    watch(clock, obs)
    obs.flow.start()
    await clock.advance(0)
    expect(listings(n8n)).toBe(1)
    expect(obs.idle()).toBe(true)
    await clock.advance(45_000)
    await clock.advance(45_000)
    expect(listings(n8n)).toBe(1)
    await clock.advance(45_000)
    expect(listings(n8n)).toBe(2)
    // Activity ends the idle cadence at the next real poll.
    for (const w of n8n.workflows) w.active = true
    await clock.advance(135_000)
    expect(obs.idle()).toBe(false)
    const before = listings(n8n)
    await clock.advance(45_000)
    expect(listings(n8n)).toBe(before + 1)
    expect(service.events.tail().map((e) => e.kind)).toEqual(
      expect.arrayContaining(['observer.idle', 'observer.busy']),
    )
    await obs.flow.stop()
  })

  test('only one observer is active per gateway target, across processes sharing the database', async () => {
    const { n8n, clock, service } = await setup()
    const a = createObservers(service, { timer: clock, holder: 'process-a' })
    watch(clock, a)
    const b = createObservers(service, { timer: clock, holder: 'process-b' })
    watch(clock, b)
    await a.flow.runOnce()
    await b.flow.runOnce()
    expect(listings(n8n)).toBe(1)
    expect(a.flow.stats().holds_lease).toBe(true)
    expect(b.flow.stats().holds_lease).toBe(false)
    // When A stops it releases the lease, and B takes over.
    await a.flow.stop()
    await b.flow.runOnce()
    expect(b.flow.stats().holds_lease).toBe(true)
    expect(listings(n8n)).toBe(2)
    await b.flow.stop()
  })

  test('after a restart the first poll waits out the 30 s floor since the last one, plus at most 3 s', async () => {
    const { clock, service } = await setup()
    expect(await restartDelayMs(service, clock.now(), () => 0.5)).toBe(1500)
    await recordFailedSync(service.storage, new Date(clock.now() - 10_000).toISOString(), 'down')
    const delay = await restartDelayMs(service, clock.now(), () => 1)
    expect(delay).toBe(20_000 + 3000)
  })

  test('the upgrade observer makes the scheduled report every idle poll', async () => {
    const { clock, service, u } = await setup()
    const upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => Response.json({ 'dist-tags': { latest: '2.8.4' } }),
    })
    try {
      const s = createWta(
        { ...u.ctx.config, WTA_UPSTREAM_URL: `http://127.0.0.1:${upstream.port}` },
        u.ctx.storage,
        { now: () => new Date(clock.now()) },
      )
      const obs = createObservers(s, { timer: clock, random: () => 0 })
      watch(clock, obs)
      obs.upgrade.start()
      await clock.advance(0)
      expect((await u.request('/api/v1/upgrade/scheduled/latest')).status).toBe(404)
      await clock.advance(120_000)
      const res = await u.request('/api/v1/upgrade/scheduled/latest')
      expect(res.status).toBe(200)
      expect((await res.json()).data.trigger).toBe('scheduled')
      await obs.upgrade.stop()
    } finally {
      upstream.stop(true)
    }
    expect(service.events.tail().map((e) => e.kind)).toContain('upgrade.report')
  })
})

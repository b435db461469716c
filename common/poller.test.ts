import { describe, expect, test } from 'bun:test'
import { acquireLease, leases, sqliteLease } from '../db/lease.ts'
import { openTestDatabase } from '../db/testing.ts'
import { createPoller, type Timer } from './poller.ts'

/** A clock that only moves when told; timers fire in order as it passes them. */
class FakeTimer implements Timer {
  t = 1_000_000
  private seq = 0
  private pending = new Map<number, { at: number; fn: () => void }>()
  now = () => this.t
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq
    this.pending.set(id, { at: this.t + ms, fn })
    return id
  }
  clearTimeout = (h: unknown) => void this.pending.delete(h as number)
  /** Delays of the timers now pending, from now. */
  delays = () => [...this.pending.values()].map((p) => p.at - this.t)
  async advance(ms: number) {
    const end = this.t + ms
    for (;;) {
      const next = [...this.pending.entries()].sort((a, b) => a[1].at - b[1].at)[0]
      if (!next || next[1].at > end) break
      this.pending.delete(next[0])
      this.t = next[1].at
      next[1].fn()
      for (let i = 0; i < 5; i++) await Promise.resolve()
      await Bun.sleep(0)
    }
    this.t = end
  }
}

const settle = () => Bun.sleep(0)

describe('poller', () => {
  test('runs at the interval with jitter inside its bounds, never below the floor', async () => {
    const timer = new FakeTimer()
    let runs = 0
    const p = createPoller({
      name: 't',
      intervalMs: 1000,
      jitter: 0.1,
      floorMs: 50,
      timer,
      random: () => 0.999,
      run: async () => void runs++,
    })
    p.start()
    await timer.advance(0)
    expect(runs).toBe(1)
    expect(timer.delays()).toEqual([1100])
    await timer.advance(1100)
    expect(runs).toBe(2)
    await p.stop()
    // An interval below the floor is raised to it.
    const q = createPoller({ name: 'f', intervalMs: 1, floorMs: 500, jitter: 0, timer, run: async () => {} })
    q.start()
    await timer.advance(0)
    expect(timer.delays()).toEqual([500])
    await q.stop()
  })

  test('failures back off exponentially up to the bound, then recover to the interval', async () => {
    const timer = new FakeTimer()
    let fail = true
    const p = createPoller({
      name: 't',
      intervalMs: 1000,
      errorBaseMs: 100,
      maxBackoffMs: 500,
      jitter: 0,
      timer,
      run: async () => {
        if (fail) throw new Error('down')
      },
    })
    p.start()
    const seen: number[] = []
    await timer.advance(0)
    for (let i = 0; i < 4; i++) {
      seen.push(timer.delays()[0]!)
      await timer.advance(seen.at(-1)!)
    }
    expect(seen).toEqual([100, 200, 400, 500])
    expect(p.stats()).toMatchObject({ consecutive_failures: 5, last_error: 'down' })
    fail = false
    await timer.advance(500)
    expect(timer.delays()).toEqual([1000])
    expect(p.stats().consecutive_failures).toBe(0)
    await p.stop()
  })

  test('single flight: a run never overlaps the previous; stop waits for the one in flight', async () => {
    const timer = new FakeTimer()
    let concurrent = 0
    let maxConcurrent = 0
    let runs = 0
    let release!: () => void
    const p = createPoller({
      name: 't',
      intervalMs: 10,
      floorMs: 10,
      timer,
      run: async () => {
        concurrent++
        maxConcurrent = Math.max(maxConcurrent, concurrent)
        await new Promise<void>((r) => {
          release = r
        })
        runs++
        concurrent--
      },
    })
    p.start()
    await timer.advance(0)
    p.kick()
    p.kick()
    await timer.advance(100)
    expect(maxConcurrent).toBe(1)
    let stopped = false
    const stopping = p.stop().then(() => {
      stopped = true
    })
    await settle()
    expect(stopped).toBe(false)
    release()
    await stopping
    expect(stopped).toBe(true)
    expect(runs).toBe(1)
  })

  test('a lease renewal that throws during a run counts as not held and is retried, never an unhandled rejection', async () => {
    const timer = new FakeTimer()
    let calls = 0
    let release!: () => void
    const p = createPoller({
      name: 't',
      intervalMs: 10_000,
      floorMs: 10,
      timer,
      lease: {
        durationMs: 300,
        acquire: async () => {
          calls++
          if (calls === 2) throw new Error('database went away')
          return true
        },
        release: () => {},
      },
      run: () =>
        new Promise<void>((r) => {
          release = r
        }),
    })
    const unhandled: unknown[] = []
    const onUnhandled = (err: unknown) => void unhandled.push(err)
    process.on('unhandledRejection', onUnhandled)
    try {
      p.start()
      await timer.advance(0)
      expect(p.stats().holds_lease).toBe(true)
      await timer.advance(100) // the renewal throws
      expect(p.stats().holds_lease).toBe(false)
      await timer.advance(100) // and the next renewal takes it again
      expect(p.stats().holds_lease).toBe(true)
      expect(calls).toBe(3)
      release()
      await p.stop()
      await settle()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  test('lease: one poller of two on one database runs; the other takes over once the lease expires', async () => {
    const store = await openTestDatabase({ leases })
    const timer = new FakeTimer()
    const ran: string[] = []
    const make = (who: string) =>
      createPoller({
        name: who,
        intervalMs: 1000,
        jitter: 0,
        timer,
        lease: sqliteLease(store.db, 'job', { durationMs: 3000, holder: who, now: timer.now }),
        run: async () => void ran.push(who),
      })
    const a = make('a')
    const b = make('b')
    a.start()
    await timer.advance(0)
    b.start()
    await timer.advance(2500)
    expect(new Set(ran)).toEqual(new Set(['a']))
    expect(b.stats().holds_lease).toBe(false)
    // a dies without releasing: its loop ends, its lease stays until it expires.
    const aRuns = ran.length
    await a.stop()
    expect(acquireLease(store.db, 'job', 'a', 3000, timer.now())).toBe(true)
    await timer.advance(2000)
    expect(ran.slice(aRuns)).toEqual([])
    await timer.advance(3000)
    expect(ran.at(-1)).toBe('b')
    expect(b.stats().holds_lease).toBe(true)
    await b.stop()
    expect(store.sqlite.query('SELECT count(*) AS n FROM leases').get()).toEqual({ n: 0 })
    store.close()
  })
})

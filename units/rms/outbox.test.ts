/** RMS on the shared outbox and poller: retries, credentials per attempt, the scheduled loop. */
import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { outboxMessages } from '../../db/outbox.ts'
import { fakePeer, type Json, json, type TestUnit } from '../../test/harness.ts'
import * as store from './store.ts'
import { bearer, bootLocal, TOKENS } from './testing.ts'

const RD = bearer(TOKENS.read)
const W = bearer(TOKENS.write)
const SINK_TOKEN = 'sink-token-0001'

describe('outbox to the event sink', () => {
  test('a refused delivery stays pending with its error and is sent again, with the token added per attempt', async () => {
    let up = false
    const sink = fakePeer(() => (up ? json({ ok: true }) : json({ error: 'down' }, 502)))
    const v = (await bootLocal({
      RMS_EVENT_SINK_URL: sink.url,
      RMS_EVENT_SINK_TOKEN: SINK_TOKEN,
    })) as TestUnit<unknown>
    try {
      expect((await v.send('POST', '/api/v1/control-agent/reconcile', {}, W)).status).toBe(200)
      expect(sink.requests).toHaveLength(1)
      expect(sink.requests[0]!.headers.get('authorization')).toBe(`Bearer ${SINK_TOKEN}`)
      const eventId = sink.requests[0]!.headers.get('x-svc-event-id')
      expect(JSON.parse(sink.requests[0]!.body)).toMatchObject({ event_id: eventId })
      const row = (await v.ctx.storage.db
        .select()
        .from(outboxMessages)
        .where(eq(outboxMessages.id, eventId!))
        .get())!
      expect(row).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 502 })
      expect(row.lastError).toContain('bad_status')
      expect(JSON.stringify(row.headers)).not.toContain(SINK_TOKEN)
      let metrics = await (await v.request('/metrics', { headers: RD })).text()
      expect(metrics).toContain('svc_rms_outbox_delivery_attempts_total{result="failed",unit="rms"} 1')
      expect(metrics).toContain('svc_outbox_messages{target="event-sink",state="pending",unit="rms"} 1')

      // Not before its backoff: a reconcile right away sends nothing.
      await v.send('POST', '/api/v1/control-agent/reconcile', {}, W)
      expect(sink.requests).toHaveLength(1)
      // Once due, the same event is sent again, byte for byte, and delivered.
      up = true
      await v.ctx.storage.transaction(async (tx) => {
        await tx.update(outboxMessages).set({ nextAttemptAt: new Date(0).toISOString() })
      })
      await v.send('POST', '/api/v1/control-agent/reconcile', {}, W)
      expect(sink.requests).toHaveLength(2)
      expect(sink.requests[1]!.body).toBe(sink.requests[0]!.body)
      expect(sink.requests[1]!.headers.get('x-svc-event-id')).toBe(eventId)
      expect(await store.outboxCounts(v.ctx.storage)).toEqual({ pending: 0, delivered: 1, dead: 0 })
      metrics = await (await v.request('/metrics', { headers: RD })).text()
      expect(metrics).toContain('svc_rms_outbox_events{state="delivered",unit="rms"} 1')
      expect(metrics).toContain(
        'svc_outbox_delivery_attempts_total{target="event-sink",result="delivered",unit="rms"} 1',
      )
    } finally {
      await v.dispose()
      sink.stop()
    }
  })
})

describe('the scheduled control loop', () => {
  test('reconciles at start under the lease, reports its next run, and releases the lease when stopped', async () => {
    const v = (await bootLocal()) as TestUnit<unknown>
    try {
      const task = v.background[0]!
      task.start()
      let runs: store.ReconcileRow[] = []
      for (let i = 0; i < 100 && !runs.some((r) => r.finishedAt); i++) {
        await Bun.sleep(20)
        runs = await store.lastRuns(v.ctx.storage.db, 5)
      }
      expect(runs).toMatchObject([{ trigger: 'schedule', outcome: 'ok' }])
      const schedule = (await (
        await v.request('/api/v1/control-agent/schedule', { headers: RD })
      ).json()) as Json
      expect(schedule.loop_running).toBe(true)
      const next = Date.parse(schedule.next_run_at) - Date.now()
      expect(next).toBeGreaterThan(100_000)
      expect(next).toBeLessThanOrEqual(132_000)
      await task.stop()
      expect((await store.listTransitions(v.ctx.storage.db, 10)).map((t) => t.transition)).toEqual([
        'released',
        'acquired',
      ])
      expect((await store.listLeases(v.ctx.storage.db))[0]).toMatchObject({ holder: null, generation: 1 })
    } finally {
      await v.dispose()
    }
  })
})

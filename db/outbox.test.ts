import { afterEach, describe, expect, test } from 'bun:test'
import { createLogger } from '../common/logger.ts'
import { createHttpMetrics } from '../common/metrics.ts'
import { type FakePeer, fakePeer, type Json, json } from '../test/harness.ts'
import { claimDue, createOutbox, enqueue, outboxMessages, outboxRoutes, outboxSummary } from './outbox.ts'
import { type OpenDb, openDatabase } from './sqlite.ts'
import { openTestDatabase } from './testing.ts'

const log = createLogger('t', 'silent')
let store: OpenDb
let peer: FakePeer
afterEach(() => {
  peer?.stop()
  store?.close()
})

async function setup(handler: () => Response, extra: { maxAttempts?: number } = {}) {
  store = await openTestDatabase({ outboxMessages })
  peer = fakePeer(handler)
  const metrics = createHttpMetrics('t')
  const outbox = createOutbox({
    db: store.db,
    log,
    registry: metrics.registry,
    targets: { sink: { url: `${peer.url}/in`, timeoutMs: 1000, headers: (m) => ({ 'x-event-id': m.id }) } },
    backoff: { baseMs: 1, maxMs: 1, jitter: 0 },
    ...extra,
  })
  return { outbox, metrics }
}

describe('outbox', () => {
  test('delivers the exact payload with stored and computed headers; a 2xx marks it delivered', async () => {
    const { outbox, metrics } = await setup(() => json({ ok: true }))
    const id = enqueue(store.db, { target: 'sink', payload: '{"a":1}', headers: { 'x-kind': 'k' } })
    expect(await outbox.deliverDue()).toBe(1)
    expect(peer.requests[0]).toMatchObject({ body: '{"a":1}' })
    expect(peer.requests[0]!.headers.get('x-kind')).toBe('k')
    expect(peer.requests[0]!.headers.get('x-event-id')).toBe(id)
    expect(await outboxSummary(store.db)).toMatchObject({ pending: 0, delivered: 1, dead: 0 })
    expect(await outbox.deliverDue()).toBe(0)
    const text = await metrics.registry.metrics()
    expect(text).toContain('svc_outbox_messages{target="sink",state="delivered",unit="t"} 1')
    expect(text).toContain('svc_outbox_delivery_attempts_total{target="sink",result="delivered",unit="t"} 1')
  })

  test('a failure stays pending with its error, is retried after backoff, and is dead after the last attempt', async () => {
    const { outbox, metrics } = await setup(() => json({ error: 'down' }, 502), { maxAttempts: 3 })
    enqueue(store.db, { target: 'sink', payload: 'x' })
    await outbox.deliverDue()
    expect(await outboxSummary(store.db)).toMatchObject({
      pending: 1,
      lastError: expect.stringContaining('bad_status'),
    })
    for (let i = 0; i < 5; i++) {
      await Bun.sleep(5)
      await outbox.deliverDue()
    }
    expect(peer.requests).toHaveLength(3)
    expect(new Set(peer.requests.map((r) => r.body))).toEqual(new Set(['x']))
    expect(await outboxSummary(store.db)).toMatchObject({ pending: 0, dead: 1 })
    expect(await metrics.registry.metrics()).toContain(
      'svc_outbox_messages{target="sink",state="dead",unit="t"} 1',
    )
    const app = outboxRoutes(store.db, { path: '/outbox' })
    const listed = (await (
      await app.handle(new Request('http://localhost/outbox?state=dead'))
    ).json()) as Json
    expect(listed.items).toMatchObject([{ state: 'dead', attempts: 3, last_status: 502 }])
    expect(listed.items[0].payload).toBeUndefined()
    expect((await app.handle(new Request('http://localhost/outbox?state=nope'))).status).toBe(422)
  })

  test('two processes on one database never claim the same row', async () => {
    store = await openTestDatabase({ outboxMessages })
    const other = openDatabase(store.path, [])
    for (let i = 0; i < 20; i++) enqueue(store.db, { target: 'sink', payload: String(i) })
    const now = Date.now()
    const a = claimDue(store.db, { holder: 'a', now, claimMs: 60_000, limit: 15 })
    const b = claimDue(other.db, { holder: 'b', now, claimMs: 60_000, limit: 15 })
    expect(a).toHaveLength(15)
    expect(b).toHaveLength(5)
    expect(new Set([...a, ...b].map((m) => m.id)).size).toBe(20)
    // Once the claims expire (a process died mid-delivery) the rows are due again.
    expect(claimDue(other.db, { holder: 'b', now: now + 60_000, claimMs: 1, limit: 50 })).toHaveLength(20)
    other.close()
  })

  test('a message with no configured URL waits', async () => {
    store = await openTestDatabase({ outboxMessages })
    const outbox = createOutbox({
      db: store.db,
      log,
      registry: createHttpMetrics('t').registry,
      targets: { sink: { url: undefined, timeoutMs: 100 } },
    })
    enqueue(store.db, { target: 'sink', payload: 'x' })
    expect(await outbox.deliverDue()).toBe(0)
    expect((await outboxSummary(store.db)).pending).toBe(1)
  })
})

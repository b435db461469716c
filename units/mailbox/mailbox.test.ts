import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { STATUS_MAX_AGE_MS } from '../../db/snapshot.ts'
import { writeElsewhere } from '../../db/testing.ts'
import { bootForTestAsync, type FakePeer, fakePeer, json, type TestUnit } from '../../test/harness.ts'
import { mailbox } from './index.ts'
import { DOWNSTREAM } from './store.ts'

const open: { units: TestUnit<unknown>[]; peers: FakePeer[] } = { units: [], peers: [] }
afterEach(async () => {
  for (const u of open.units.splice(0)) await u.dispose()
  for (const p of open.peers.splice(0)) p.stop()
})

/** The mailbox on the driver SVC_TEST_DRIVER names (a fresh sqld each on libsql). */
async function boot(env: Record<string, string> = {}) {
  const u = await bootForTestAsync(mailbox, env)
  open.units.push(u as TestUnit<unknown>)
  return u
}

const LIMIT = 131_072
const OVERHEAD = JSON.stringify({ topic: 't', message: '' }).length

/** A publish body of exactly `size` bytes. */
const bodyOf = (size: number) => JSON.stringify({ topic: 't', message: 'x'.repeat(size - OVERHEAD) })

const post = (
  u: Awaited<ReturnType<typeof boot>>,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) =>
  u.request('/publish', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit)

/** A chunked body: a stream with no content length. */
function chunked(text: string, chunk = 8192): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close()
      c.enqueue(bytes.slice(at, at + chunk))
      at += chunk
    },
  })
}

describe('mailbox publish guardrail', () => {
  test('131072 bytes are accepted, 131073 get 413 with the text body, with and without a length', async () => {
    const u = await boot()
    expect(bodyOf(LIMIT).length).toBe(LIMIT)
    const ok = await post(u, bodyOf(LIMIT))
    expect(ok.status).toBe(202)
    expect((await ok.json()).size_bytes).toBe(LIMIT)

    const over = await post(u, bodyOf(LIMIT + 1))
    expect(over.status).toBe(413)
    expect(over.headers.get('content-type')).toStartWith('text/plain')
    expect(await over.text()).toBe('payload too large')

    const okChunked = await post(u, chunked(bodyOf(LIMIT)))
    expect(okChunked.status).toBe(202)
    const overChunked = await post(u, chunked(bodyOf(LIMIT + 1)))
    expect(overChunked.status).toBe(413)
    expect(await overChunked.text()).toBe('payload too large')

    // Only the two accepted messages were stored.
    const page = await (await u.request('/messages?topic=t')).json()
    expect(page.data).toHaveLength(2)
  })

  test('a body over the shared body limit is answered as text too; the limit is configurable', async () => {
    const u = await boot({ MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: '200' })
    expect((await post(u, bodyOf(200))).status).toBe(202)
    const over = await post(u, bodyOf(201))
    expect(over.status).toBe(413)
    expect(await over.text()).toBe('payload too large')
    const huge = await post(u, 'x'.repeat(2_000_000))
    expect(huge.status).toBe(413)
    expect(await huge.text()).toBe('payload too large')
  })

  test('a limit above SVC_MAX_BODY_BYTES is refused at start', async () => {
    await expect(bootForTestAsync(mailbox, { MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: '2000000' })).rejects.toThrow(
      /MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES/,
    )
  })
})

describe('mailbox publish and read-back', () => {
  test('40 concurrent publishes (group-committed) are each stored once and read back in arrival order', async () => {
    const u = await boot()
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => u.send('POST', '/publish', { topic: 'burst', message: { n: i } })),
    )
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 202))
    const ids = await Promise.all(answers.map(async (r) => (await r.json()).message_id))
    const page = await (await u.request('/messages?topic=burst&limit=100')).json()
    expect(page.data).toHaveLength(40)
    expect(new Set(page.data.map((m: { message_id: string }) => m.message_id))).toEqual(new Set(ids))
    // Publishes of one turn commit in the order they arrived.
    expect(page.data.map((m: { message: { n: number } }) => m.message.n)).toEqual(ids.map((_, i) => i))
  })

  test('messages are stored durably and read back by topic with a cursor, across a restart', async () => {
    let u = await boot()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await u.send('POST', '/publish', {
        topic: i % 2 === 0 ? 'orders' : 'alerts',
        message: { n: i },
        headers: { 'x-trace': `t${i}` },
      })
      expect(res.status).toBe(202)
      const body = await res.json()
      expect(body.ok).toBe(true)
      expect(body.forwarding).toBe('not_configured')
      ids.push(body.message_id)
    }
    u = await u.restart()
    open.units.push(u as TestUnit<unknown>)
    const first = await (await u.request('/messages?topic=orders&limit=2')).json()
    expect(first.data.map((m: { message: { n: number } }) => m.message.n)).toEqual([0, 2])
    expect(first.data[0].headers).toEqual({ 'x-trace': 't0' })
    expect(first.data[0].message_id).toBe(ids[0])
    expect(first.next_cursor).toBeString()
    const second = await (
      await u.request(`/messages?topic=orders&limit=2&cursor=${first.next_cursor}`)
    ).json()
    expect(second.data.map((m: { message: { n: number } }) => m.message.n)).toEqual([4])
    expect(second.next_cursor).toBeNull()
    const all = await (await u.request('/messages')).json()
    expect(all.data).toHaveLength(5)
  })

  test('bad bodies get 4xx envelopes', async () => {
    const u = await boot()
    for (const body of [{}, { topic: 't' }, { topic: '', message: 'x' }, { topic: 't', message: null }]) {
      const res = await u.send('POST', '/publish', body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect((await res.json()).error.code).toBeString()
    }
    const text = await u.request('/publish', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    })
    expect(text.status).toBe(415)
    const malformed = await post(u, '{"topic":')
    expect(malformed.status).toBe(400)
    expect((await u.request('/messages?cursor=abc')).status).toBe(400)
  })

  test('accepted messages are forwarded to the downstream through the outbox, retried until it answers 2xx', async () => {
    let fail = true
    const downstream = fakePeer(() => (fail ? json({}, 503) : json({ ok: true })))
    open.peers.push(downstream)
    const u = await boot({ MAILBOX_DOWNSTREAM_URL: downstream.url, MAILBOX_DOWNSTREAM_TIMEOUT_MS: '1000' })
    const res = await u.send('POST', '/publish', {
      topic: 'orders',
      message: 'hello',
      headers: { 'x-a': 'b' },
    })
    const { message_id, forwarding } = await res.json()
    expect(forwarding).toBe('queued')
    const outbox = u.background[0] as unknown as { deliverDue(): Promise<number> }
    expect(await outbox.deliverDue()).toBe(0)
    let health = await (await u.request('/healthz')).json()
    expect(health.downstream).toMatchObject({ configured: true, pending: 1 })
    fail = false
    // The failed attempt waits its backoff; a restart keeps the row, and delivery happens once due.
    await Bun.sleep(1300)
    expect(await outbox.deliverDue()).toBe(1)
    const last = downstream.requests.at(-1)
    expect(JSON.parse(last?.body ?? '{}')).toMatchObject({
      message_id,
      topic: 'orders',
      message: 'hello',
      headers: { 'x-a': 'b' },
    })
    expect(last?.headers.get('x-mailbox-topic')).toBe('orders')
    health = await (await u.request('/healthz')).json()
    expect(health.downstream.pending).toBe(0)
  })

  test('with SVC_API_TOKEN set, publish and read need the bearer token; health stays open', async () => {
    const token = 'mailbox-token-0123456789'
    const u = await boot({ SVC_API_TOKEN: token })
    expect((await u.send('POST', '/publish', { topic: 't', message: 'x' })).status).toBe(401)
    expect(
      (
        await u.send(
          'POST',
          '/publish',
          { topic: 't', message: 'x' },
          { authorization: 'Bearer wrong-token-0123456789' },
        )
      ).status,
    ).toBe(401)
    expect(
      (await u.send('POST', '/publish', { topic: 't', message: 'x' }, { authorization: `Bearer ${token}` }))
        .status,
    ).toBe(202)
    expect((await u.request('/messages')).status).toBe(401)
    expect((await u.request('/messages', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    expect((await u.request('/healthz')).status).toBe(200)
    const doc = await (await u.request('/openapi.json')).json()
    expect(doc.paths['/publish'].post.security).toEqual([{ bearer: [] }])
  })
})

describe('mailbox /healthz: a snapshot of bounded age', () => {
  test("the mailbox's own writes show at once; a write behind its back within STATUS_MAX_AGE_MS", async () => {
    // No downstream: nothing delivers in the background, the rows stay as written.
    const u = await boot()
    const health = async () => (await u.request('/healthz')).json()
    const row = (id: string, state: string) =>
      `INSERT INTO outbox_messages (id, target, payload, headers, state, attempts, next_attempt_at, created_at)
       VALUES ('${id}', '${DOWNSTREAM}', '{}', '{}', '${state}', 0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`
    expect((await health()).downstream).toMatchObject({ pending: 0, dead: 0 })
    await u.storage.transaction((tx) => tx.run(sql.raw(row('own', 'pending'))))
    const taken = performance.now()
    expect((await health()).downstream).toMatchObject({ pending: 1, dead: 0 })

    await writeElsewhere(u.storage, row('elsewhere', 'dead'))
    const seen = await health()
    if (performance.now() - taken < STATUS_MAX_AGE_MS) expect(seen.status).toBe('ok')
    await Bun.sleep(STATUS_MAX_AGE_MS + 20)
    const after = await health()
    expect(after.status).toBe('degraded')
    expect(after.downstream).toMatchObject({ pending: 1, dead: 1 })
  })

  test('answers 304 to the ETag of the snapshot it still serves', async () => {
    const u = await boot()
    const first = await u.request('/healthz')
    const taken = performance.now()
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[^"]+"$/)
    const again = await u.request('/healthz', { headers: { 'if-none-match': etag } })
    if (performance.now() - taken < STATUS_MAX_AGE_MS) expect(again.status).toBe(304)
  })
})

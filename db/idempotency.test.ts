import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { AppError } from '../common/errors.ts'
import { createLogger } from '../common/logger.ts'
import { createHttpMetrics } from '../common/metrics.ts'
import { wire } from '../common/wire.ts'
import { raceIdempotent } from '../test/race.ts'
import {
  idempotencyKeys,
  idempotencyStatements,
  REPLAYED_HEADER,
  replayable,
  requestFingerprint,
  runIdempotent,
  saveAnswerIn,
} from './idempotency.ts'
import { type OpenDb, openDatabase } from './sqlite.ts'
import { openTestDatabase, openTestStorage } from './testing.ts'

let store: OpenDb
let effects = 0

function app(db: OpenDb['db']) {
  return new Elysia()
    .use(
      wire({
        unit: 't',
        log: createLogger('t', 'silent'),
        metrics: createHttpMetrics('t'),
        maxBodyBytes: 4096,
      }),
    )
    .post(
      '/orders',
      ({ body, headers }) =>
        replayable(
          db,
          { scope: 'POST /orders', key: headers['idempotency-key'], request: body },
          async () => {
            await Bun.sleep(5)
            if (body.item === 'refused')
              return { status: 422, body: { error: { code: 'refused', message: 'No.' } } }
            if (body.item === 'boom') throw new AppError(503, 'down', 'Down.')
            effects++
            return { status: 201, body: { order: effects, item: body.item, at: performance.now() } }
          },
        ),
      { body: t.Object({ item: t.String() }) },
    )
}

const post = (a: ReturnType<typeof app>, item: string, key?: string) =>
  a.handle(
    new Request('http://localhost/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify({ item }),
    }),
  )

beforeAll(async () => {
  store = await openTestDatabase({ idempotencyKeys })
})
afterAll(() => store.close())

describe('replayable (Elysia helper)', () => {
  test('the same key and body replays the first answer byte for byte, marked as replayed', async () => {
    const a = app(store.db)
    const before = effects
    const first = await post(a, 'book', 'k-1')
    const firstText = await first.text()
    expect(first.status).toBe(201)
    expect(first.headers.get(REPLAYED_HEADER)).toBeNull()
    const again = await post(a, 'book', 'k-1')
    expect(again.status).toBe(201)
    expect(again.headers.get(REPLAYED_HEADER)).toBe('true')
    expect(again.headers.get('content-type')).toContain('application/json')
    expect(again.headers.get('x-request-id')).toBeTruthy()
    expect(await again.text()).toBe(firstText)
    expect(effects - before).toBe(1)
  })

  test('the same key with another body is a 409 idempotency_conflict envelope', async () => {
    const a = app(store.db)
    await post(a, 'pen', 'k-2')
    const res = await post(a, 'ink', 'k-2')
    expect(res.status).toBe(409)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('idempotency_conflict')
  })

  test('50 concurrent identical requests: one effect, identical answers', async () => {
    const a = app(store.db)
    const { answers } = await raceIdempotent(50, () => post(a, 'race', 'k-race'), { effects: () => effects })
    expect(answers).toHaveLength(50)
  })

  test('refusals and failures are not remembered: the key can be retried', async () => {
    const a = app(store.db)
    expect((await post(a, 'refused', 'k-3')).status).toBe(422)
    expect((await post(a, 'boom', 'k-3')).status).toBe(503)
    const res = await post(a, 'refused', 'k-3')
    expect(res.status).toBe(422)
    expect(res.headers.get(REPLAYED_HEADER)).toBeNull()
  })

  test('without a key every request runs', async () => {
    const a = app(store.db)
    const before = effects
    await post(a, 'free')
    await post(a, 'free')
    expect(effects - before).toBe(2)
  })
})

describe('runIdempotent', () => {
  const ok = (n: number) => ({ status: 200, headers: {}, body: new TextEncoder().encode(String(n)) })

  test('two connections on one file (two processes): one execution, the other waits and replays', async () => {
    const other = openDatabase(store.path, [])
    let runs = 0
    const req = { scope: 's', key: 'two-conn', fingerprint: requestFingerprint({ a: 1 }) }
    const exec = async () => {
      runs++
      await Bun.sleep(30)
      return ok(runs)
    }
    const [x, y] = await Promise.all([runIdempotent(store.db, req, exec), runIdempotent(other.db, req, exec)])
    expect(runs).toBe(1)
    expect([x.replayed, y.replayed].sort()).toEqual([false, true])
    expect(new TextDecoder().decode(y.response.body)).toBe('1')
    other.close()
  })

  test('a claim left by a dead process is taken over once it expires, not before', async () => {
    const req = { scope: 's', key: 'orphan', fingerprint: 'f' }
    const s = idempotencyStatements(store.db)
    const t0 = Date.parse('2026-01-01T00:00:00Z')
    s.claim(req, new Date(t0).toISOString(), new Date(t0 + 1000).toISOString())
    const early = runIdempotent(store.db, req, async () => ok(1), { now: () => t0 + 500, waitMs: 0 })
    await expect(early).rejects.toMatchObject({ errorCode: 'idempotency_in_progress', status: 409 })
    const late = await runIdempotent(store.db, req, async () => ok(7), { now: () => t0 + 1000 })
    expect(late.replayed).toBe(false)
    expect(s.lookup(req)).toMatchObject({ state: 'replay', response: { status: 200 } })
  })

  test('a row kept without a fingerprint (imported) replays for any request', () => {
    const s = idempotencyStatements(store.db)
    store.sqlite.run(
      "INSERT INTO idempotency_keys (scope, key, fingerprint, status, headers, body, created_at) VALUES ('s', 'old', NULL, 200, '{}', CAST('x' AS BLOB), 'now')",
    )
    expect(s.lookup({ scope: 's', key: 'old', fingerprint: 'anything' }).state).toBe('replay')
    expect(s.lookup({ scope: 'other', key: 'old', fingerprint: 'anything' }).state).toBe('new')
  })
})

describe('runIdempotent on storage, the answer saved with the effect', () => {
  test('savedByExecute: one transaction holds the effect and its answer, none saves it again; replays are that answer', async () => {
    const storage = await openTestStorage({ idempotencyKeys })
    try {
      const req = { scope: 's', key: 'k1', fingerprint: 'f1' }
      const answer = { status: 200, headers: {}, body: new TextEncoder().encode('{"n":1}') }
      const execute = () =>
        storage.transaction(async (tx) => {
          await saveAnswerIn(tx, req, answer, new Date().toISOString())
          return answer
        })
      const before = storage.writes
      const first = await runIdempotent(storage, req, execute, { savedByExecute: true })
      // The claim and the effect's own transaction: no third write for the answer.
      expect(storage.writes - before).toBe(2)
      expect(first.replayed).toBe(false)
      const again = await runIdempotent(storage, req, execute, { savedByExecute: true })
      expect(again.replayed).toBe(true)
      expect(new TextDecoder().decode(again.response.body)).toBe('{"n":1}')
    } finally {
      await storage.close()
    }
  })
})

/**
 * Two ALS processes on one libSQL server (two in-process boots on one DATABASE_URL): a trace is
 * recorded once whichever process took it, and an activate or rollback key takes effect once
 * across both, every caller getting the first answer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { bootForTestAsync } from '../../test/harness.ts'
import { type Sqld, sqldBinary, startSqld } from '../../test/sqld.ts'
import { als } from './index.ts'
import { runs, transitions } from './tables.ts'
import { type Als, approvedProposal, type FakeLane, fakeLane, laneEnv, ok, traceBody } from './testing.ts'

const INTAKE = '/api/v1/learning/signals/intake'

describe.skipIf(!sqldBinary())('two ALS replicas on one sqld', () => {
  let sqld: Sqld
  let lane: FakeLane
  let a: Als
  let b: Als
  beforeAll(async () => {
    sqld = await startSqld()
    lane = fakeLane()
    const env = { DATABASE_URL: sqld.url, ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane) }
    a = (await bootForTestAsync(als, env)) as Als
    b = (await bootForTestAsync(als, env)) as Als
  })
  afterAll(async () => {
    await a.dispose()
    await b.dispose()
    await sqld.stop()
    lane.peer.stop()
  })

  test('each trace is recorded once; the same trace on both gets one run', async () => {
    const bodies = Array.from({ length: 20 }, () => traceBody())
    const twice = traceBody()
    const answers = await Promise.all([
      ...bodies.map(async (body, i) => ok(await (i % 2 === 0 ? a : b).send('POST', INTAKE, body))),
      ok(await a.send('POST', INTAKE, twice)),
      ok(await b.send('POST', INTAKE, twice)),
    ])
    expect(new Set(answers.slice(0, 20).map((r) => r.run_id)).size).toBe(20)
    expect(answers[20]).toEqual(answers[21])
    const stored = await a.storage.db.select({ n: count() }).from(runs).get()
    expect(stored?.n).toBe(21)
  })

  test('one activate key across both processes: one activation, the first answer everywhere', async () => {
    const id = await approvedProposal(a, lane)
    const activate = (u: Als) =>
      u.send('POST', '/api/v1/learning/promotions/activate', { proposal_id: id, idempotency_key: 'k-act' })
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => activate(i % 2 ? a : b)))
    const bodies = await Promise.all(responses.map((r) => ok(r)))
    for (const body of bodies) expect(body).toEqual(bodies[0])
    const activations = await b.storage.db
      .select({ n: count() })
      .from(transitions)
      .where(eq(transitions.toState, 'activated'))
      .get()
    expect(activations?.n).toBe(1)
    const other = await b.send('POST', '/api/v1/learning/promotions/activate', {
      proposal_id: 'another',
      idempotency_key: 'k-act',
    })
    expect(other.status).toBe(409)
    expect((await other.json()).error).toMatchObject({
      code: 'idempotency_key_reused',
      details: { proposal_id: id },
    })
  })
})

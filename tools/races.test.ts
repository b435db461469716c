/**
 * The race helpers applied to the landed units' idempotency keys: ALS promotions activate and
 * rollback (one key, N concurrent identical requests → one transition, identical answers).
 * PWS sandbox writes and expected_version writebacks join here when PWS lands.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { raceIdempotent } from '../test/race.ts'
import { approvedProposal, bootAls, type FakeLane, fakeLane, laneEnv } from '../units/als/testing.ts'

const N = 16
let lane: FakeLane
beforeAll(() => {
  lane = fakeLane()
})
afterAll(() => lane.peer.stop())

const transitionsTo = (u: ReturnType<typeof bootAls>, state: string) =>
  (
    u.database.sqlite.query('SELECT count(*) AS n FROM als_transitions WHERE to_state = ?').get(state) as {
      n: number
    }
  ).n

describe('ALS idempotency keys under concurrency', () => {
  test('activate: one activation, identical answers', async () => {
    const u = bootAls({ ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane) })
    try {
      const id = await approvedProposal(u, lane)
      const { answers } = await raceIdempotent(
        N,
        () =>
          u.send('POST', '/api/v1/learning/promotions/activate', {
            proposal_id: id,
            idempotency_key: 'race-act',
          }),
        { effects: () => transitionsTo(u, 'activated') },
      )
      expect(answers[0]?.status).toBe(200)
    } finally {
      await u.dispose()
    }
  })

  test('rollback: one rollback, identical answers', async () => {
    const u = bootAls({ ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane) })
    try {
      const id = await approvedProposal(u, lane)
      const act = await u.send('POST', '/api/v1/learning/promotions/activate', {
        proposal_id: id,
        idempotency_key: 'a1',
      })
      expect(act.status).toBe(200)
      await raceIdempotent(
        N,
        () =>
          u.send('POST', '/api/v1/learning/promotions/rollback', {
            proposal_id: id,
            idempotency_key: 'race-rb',
            reason: 'race test',
          }),
        { effects: () => transitionsTo(u, 'rolled_back') },
      )
    } finally {
      await u.dispose()
    }
  })
})

/**
 * The race helpers applied to the landed units' idempotency keys and versions: ALS promotions
 * activate and rollback (one key, N concurrent identical requests → one transition, identical
 * answers); RMS patch apply (a plan is applied once against the host state it was planned on:
 * N concurrent applies → one success, N-1 conflicts). PWS sandbox writes and expected_version
 * writebacks join here when PWS lands.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { raceIdempotent, raceVersioned } from '../test/race.ts'
import { transitions } from '../units/als/tables.ts'
import {
  type Als,
  approvedProposal,
  bootAls,
  type FakeLane,
  fakeLane,
  laneEnv,
} from '../units/als/testing.ts'
import { rolloutCount } from '../units/rms/store.ts'
import { bearer, bootLocal, TOKENS } from '../units/rms/testing.ts'

const N = 16
let lane: FakeLane
beforeAll(() => {
  lane = fakeLane()
})
afterAll(() => lane.peer.stop())

const transitionsTo = async (u: Als, state: string) =>
  (await u.storage.db.select({ n: count() }).from(transitions).where(eq(transitions.toState, state)).get())
    ?.n ?? 0

describe('ALS idempotency keys under concurrency', () => {
  test('activate: one activation, identical answers', async () => {
    const u = await bootAls({ ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane) })
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
    const u = await bootAls({ ALS_SERVICE_MODE: 'promotion_enabled', ...laneEnv(lane) })
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

describe('RMS patch plans under concurrency', () => {
  test('apply: one plan, N concurrent applies, one rollout and N-1 conflicts', async () => {
    const u = await bootLocal()
    try {
      const W = bearer(TOKENS.write)
      const planned = await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, W)
      expect(planned.status).toBe(200)
      const plan = await planned.json()
      const rollouts = () => rolloutCount(u.ctx.storage.db)
      const before = await rollouts()
      const { answers, winner } = await raceVersioned(N, () =>
        u.send(
          'POST',
          '/api/v1/runtime-host/patch/apply',
          { plan_id: plan.plan_id, plan_hash: plan.plan_hash },
          W,
        ),
      )
      expect(answers[winner]?.status).toBe(200)
      expect(answers.filter((a) => a.status === 409)).toHaveLength(N - 1)
      expect((await rollouts()) - before).toBe(1)
    } finally {
      await u.dispose()
    }
  })
})

/**
 * ALS and RMS wired as `svc suite` wires them (bin/suite.ts: URLs and the generated token), with
 * RMS listening on a real port: ALS's approval lane is a real HTTP call to RMS, not a fake.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { suiteEnv } from '../bin/suite.ts'
import { type Als, bootAls, ok, proposeFromEvidence, refused } from '../units/als/testing.ts'
import { rms } from '../units/rms/index.ts'
import { bootForTest, freePort, type TestUnit } from './harness.ts'

const OPERATOR = 'operator-token-for-the-test'
let rmsUnit: TestUnit<unknown>
let rmsPort = 0
let alsUnit: Als

beforeAll(async () => {
  const port = freePort()
  const envs = suiteEnv(['als', 'rms'], { SVC_SUITE_PORT_OFFSET: String(port - 18086) })
  const rmsEnv = envs.rms ?? {}
  rmsUnit = bootForTest(rms, {
    RMS_LOCAL_TOKENS: `${rmsEnv.RMS_LOCAL_TOKENS},${OPERATOR}:user:operator:rw`,
    RMS_CONTROL_AGENT_ENABLED: 'false',
  })
  rmsPort = Number(rmsEnv.PORT)
  rmsUnit.app.listen({ port: rmsPort, hostname: '127.0.0.1' })
  const alsEnv = envs.als ?? {}
  alsUnit = await bootAls({
    SVC_RMS_URL: alsEnv.SVC_RMS_URL,
    SVC_RMS_TOKEN: alsEnv.SVC_RMS_TOKEN,
    ALS_SERVICE_MODE: 'promotion_enabled',
  })
})

afterAll(async () => {
  await rmsUnit.app.stop(true)
  await rmsUnit.dispose()
  await alsUnit.dispose()
})

/** A new approval recorded in RMS by an operator: 201. */
const recordApproval = async (body: Record<string, unknown>) =>
  ok(
    await rmsUnit.send('POST', '/api/v1/execution/approvals', body, { authorization: `Bearer ${OPERATOR}` }),
    201,
  )

/** ALS's approve-check for a proposal and an approval id: the call that reads RMS's lane. */
const approveCheck = (proposalId: string, approvalId: string) =>
  alsUnit.send('POST', '/api/v1/learning/promotions/approve-check', {
    proposal_id: proposalId,
    approval_id: approvalId,
  })

describe('ALS approval lane against the real RMS', () => {
  test('an approval recorded in RMS lets ALS approve and activate the proposal', async () => {
    const p = await proposeFromEvidence(alsUnit)
    const approval = await recordApproval({
      proposal_ref: p.proposal_id,
      decision: 'approved',
      policy_approved: true,
      human_approved: true,
    })
    const check = await ok(await approveCheck(p.proposal_id, approval.approval_id))
    expect(check.proposal_state).toBe('approved')
    const act = await ok(
      await alsUnit.send('POST', '/api/v1/learning/promotions/activate', {
        proposal_id: p.proposal_id,
        idempotency_key: 'it-1',
      }),
    )
    expect(act.proposal_state).toBe('activated')
  })

  test('an approval RMS does not know is refused by ALS, and nothing is activated', async () => {
    const p = await proposeFromEvidence(alsUnit)
    await refused(await approveCheck(p.proposal_id, 'no-such-approval'), 422, 'approval_missing')
    const stored = await ok(await alsUnit.request(`/api/v1/learning/proposals/${p.proposal_id}`))
    expect(stored.proposal_state).not.toBe('activated')
  })

  test('with RMS stopped, approve-check fails closed with 503', async () => {
    const p = await proposeFromEvidence(alsUnit)
    await rmsUnit.app.stop(true)
    try {
      await refused(await approveCheck(p.proposal_id, 'any'), 503, 'approval_lane_unavailable')
    } finally {
      rmsUnit.app.listen({ port: rmsPort, hostname: '127.0.0.1' })
    }
  })
})

/** Persistent agents, learning proposals (review and activation rules) and execution approvals. */
import { afterEach, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { Json, TestUnit } from '../../test/harness.ts'
import { executionApprovals } from './tables.ts'
import { bearer, bootLocal, exampleHostCopy, TOKENS } from './testing.ts'

const WRITER = bearer(TOKENS.write)
const REVIEWER = bearer(TOKENS.reviewer)
const READER = bearer(TOKENS.read)
const BASE = '/api/v1/persistent-agents/support-desk/learning-proposals'

let units: TestUnit<unknown>[] = []
afterEach(async () => {
  for (const u of units) await u.dispose()
  units = []
})

async function propose(u: TestUnit<unknown>, headers = WRITER): Promise<Json> {
  const res = await u.send(
    'POST',
    BASE,
    { change: { summary: 'Warmer tone', settings: { tone: 'warm' } } },
    headers,
  )
  expect(res.status).toBe(201)
  return ((await res.json()) as Json).proposal
}

describe('persistent agents', () => {
  test('declared on the host, listed with learning and workspace; there is no create route', async () => {
    const u = (await bootLocal()) as TestUnit<unknown>
    units.push(u)
    const list = (await (await u.request('/api/v1/persistent-agents', { headers: READER })).json()) as Json
    expect(list.items.map((a: Json) => a.agent_slug)).toEqual(['billing-clerk', 'support-desk'])
    const one = (await (
      await u.request('/api/v1/persistent-agents/support-desk', { headers: READER })
    ).json()) as Json
    expect(one.agent).toMatchObject({
      admitted: true,
      learning: { mode: 'proposal_review', settings: { tone: 'concise' }, pending_proposals: 0 },
      workspace: { workspace_id: 'ws-support-desk', state: 'present', present: true },
    })
    expect((await u.request('/api/v1/persistent-agents/research-worker', { headers: READER })).status).toBe(
      404,
    )
    expect((await u.send('POST', '/api/v1/persistent-agents', { agent_slug: 'x' }, WRITER)).status).toBe(404)
    const ws = (await (await u.request('/api/v1/workspaces/persistent', { headers: READER })).json()) as Json
    expect(ws.items.map((w: Json) => w.state)).toEqual(['present', 'present'])
  })
})

describe('learning proposals', () => {
  test('proposer from the authority context; no self-review; review is terminal; activation after approval by another subject', async () => {
    const dir = exampleHostCopy()
    const u = (await bootLocal({ RMS_RUNTIME_HOST_DIR: dir })) as TestUnit<unknown>
    units.push(u)
    const p = await propose(u)
    expect(p).toMatchObject({
      proposer: 'user:writer',
      state: 'pending_review',
      terminal: false,
      review: null,
      activation: null,
    })
    expect(p.change_hash).toMatch(/^[0-9a-f]{64}$/)

    // Activation before review is refused; so is self-review.
    const early = await u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, REVIEWER)
    expect(early.status).toBe(422)
    expect(((await early.json()) as Json).error.code).toBe('review_required')
    const self = await u.send(
      'POST',
      `${BASE}/${p.proposal_id}/review`,
      { decision: 'approved', reason: 'mine' },
      WRITER,
    )
    expect(self.status).toBe(403)
    expect(((await self.json()) as Json).error.code).toBe('self_review_forbidden')
    // A read-only token cannot review at all.
    expect(
      (await u.send('POST', `${BASE}/${p.proposal_id}/review`, { decision: 'approved', reason: 'x' }, READER))
        .status,
    ).toBe(403)
    // Bad decisions are validation failures.
    expect(
      (await u.send('POST', `${BASE}/${p.proposal_id}/review`, { decision: 'maybe', reason: 'x' }, REVIEWER))
        .status,
    ).toBe(400)

    const reviewed = await u.send(
      'POST',
      `${BASE}/${p.proposal_id}/review`,
      { decision: 'approved', reason: 'looks right' },
      REVIEWER,
    )
    expect(reviewed.status).toBe(200)
    const r = ((await reviewed.json()) as Json).proposal
    expect(r).toMatchObject({
      state: 'approved',
      terminal: true,
      review: { reviewer: 'user:reviewer', decision: 'approved', reason: 'looks right' },
    })
    // Approved is terminal: no second review, not even a rejection.
    const again = await u.send(
      'POST',
      `${BASE}/${p.proposal_id}/review`,
      { decision: 'rejected', reason: 'changed my mind' },
      REVIEWER,
    )
    expect(again.status).toBe(409)
    expect(((await again.json()) as Json).error.code).toBe('proposal_terminal')

    // The proposer cannot activate their own proposal, even approved.
    const selfActivate = await u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, WRITER)
    expect(selfActivate.status).toBe(403)
    expect(((await selfActivate.json()) as Json).error.code).toBe('self_activation_forbidden')
    const activated = await u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, REVIEWER)
    expect(activated.status).toBe(200)
    const a = (await activated.json()) as Json
    expect(a.proposal.activation.activated_by).toBe('user:reviewer')
    expect(a.rollout.status).toBe('applied')
    const file = JSON.parse(readFileSync(join(dir, 'agents/a-support-desk.json'), 'utf8')) as Json
    expect(file.learning).toEqual({
      mode: 'proposal_review',
      settings: { tone: 'warm', escalate_after_replies: 3 },
      active_proposal_id: p.proposal_id,
    })
    expect((await u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, REVIEWER)).status).toBe(409)

    const audit = (await (
      await u.request('/api/v1/audit/events?kind=learning_proposal.', { headers: READER })
    ).json()) as Json
    expect(audit.events.map((e: Json) => `${e.kind}:${e.details.code ?? ''}`)).toEqual([
      'learning_proposal.refused:already_activated',
      'learning_proposal.activated:',
      'learning_proposal.refused:self_activation_forbidden',
      'learning_proposal.refused:proposal_terminal',
      'learning_proposal.reviewed:',
      'learning_proposal.refused:self_review_forbidden',
      'learning_proposal.refused:review_required',
      'learning_proposal.created:',
    ])
    expect(audit.events[2]).toMatchObject({
      subject: 'user:writer',
      outcome: 'refused',
      details: { action: 'activate' },
    })
  })

  test('two concurrent activations of one approved proposal: one is recorded, the other refused', async () => {
    const dir = exampleHostCopy()
    const u = (await bootLocal({ RMS_RUNTIME_HOST_DIR: dir })) as TestUnit<unknown>
    units.push(u)
    const p = await propose(u)
    const review = { decision: 'approved', reason: 'ok' }
    expect((await u.send('POST', `${BASE}/${p.proposal_id}/review`, review, REVIEWER)).status).toBe(200)
    const answers = await Promise.all(
      [1, 2].map(() => u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, REVIEWER)),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
    const audit = (await (
      await u.request('/api/v1/audit/events?kind=learning_proposal.activated', { headers: READER })
    ).json()) as Json
    expect(audit.count).toBe(1)
  })

  test('rejected is terminal and can never be activated; a new change needs a new proposal', async () => {
    const u = (await bootLocal()) as TestUnit<unknown>
    units.push(u)
    const p = await propose(u)
    const rej = await u.send(
      'POST',
      `${BASE}/${p.proposal_id}/review`,
      { decision: 'rejected', reason: 'too casual' },
      REVIEWER,
    )
    expect(((await rej.json()) as Json).proposal).toMatchObject({ state: 'rejected', terminal: true })
    expect(
      (
        await u.send(
          'POST',
          `${BASE}/${p.proposal_id}/review`,
          { decision: 'approved', reason: 'x' },
          REVIEWER,
        )
      ).status,
    ).toBe(409)
    const act = await u.send('POST', `${BASE}/${p.proposal_id}/activate`, {}, REVIEWER)
    expect(act.status).toBe(422)
    expect(((await act.json()) as Json).error.code).toBe('proposal_rejected')
    const second = await propose(u, REVIEWER)
    expect(second.proposer).toBe('user:reviewer')
    const list = (await (await u.request(BASE, { headers: READER })).json()) as Json
    expect(list.proposals.map((x: Json) => x.state)).toEqual(['pending_review', 'rejected'])
    const one = await u.request(`${BASE}/${p.proposal_id}`, { headers: READER })
    expect(((await one.json()) as Json).proposal.state).toBe('rejected')
    // Persisted across a restart.
    units = []
    const v = (await u.restart()) as TestUnit<unknown>
    units.push(v)
    const after = (await (await v.request(BASE, { headers: READER })).json()) as Json
    expect(after.count).toBe(2)
  })

  test('proposals only for persistent agents; the body is validated', async () => {
    const u = (await bootLocal()) as TestUnit<unknown>
    units.push(u)
    const res = await u.send(
      'POST',
      '/api/v1/persistent-agents/research-worker/learning-proposals',
      { change: { summary: 'x', settings: {} } },
      WRITER,
    )
    expect(res.status).toBe(404)
    expect((await u.send('POST', BASE, { change: { summary: '', settings: {} } }, WRITER)).status).toBe(400)
    expect(
      (
        await u.send(
          'POST',
          BASE,
          { change: { summary: 'x', settings: {} }, proposer: 'someone-else' },
          WRITER,
        )
      ).status,
    ).toBe(400)
    expect((await u.request(`${BASE}/nope`, { headers: READER })).status).toBe(404)
  })
})

describe('execution approvals (ALS approval lane)', () => {
  test('record, read, decide a pending one once; decisions are final; stale after expiry', async () => {
    const u = (await bootLocal()) as TestUnit<unknown>
    units.push(u)
    const pending = await u.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        approval_id: 'appr-1',
        proposal_ref: 'als:p-1',
        decision: 'pending',
        policy_approved: true,
        human_approved: false,
      },
      WRITER,
    )
    expect(pending.status).toBe(201)
    expect(await pending.json()).toMatchObject({
      approval_id: 'appr-1',
      decision: 'pending',
      decided_at: null,
      stale: false,
    })
    const decided = await u.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        approval_id: 'appr-1',
        proposal_ref: 'als:p-1',
        decision: 'approved',
        policy_approved: true,
        human_approved: true,
      },
      WRITER,
    )
    expect(decided.status).toBe(200)
    const got = (await (
      await u.request('/api/v1/execution/approvals/appr-1', { headers: READER })
    ).json()) as Json
    expect(got).toMatchObject({
      approval_id: 'appr-1',
      proposal_ref: 'als:p-1',
      decision: 'approved',
      policy_approved: true,
      human_approved: true,
      stale: false,
      decided_by: 'user:writer',
    })
    expect(typeof got.decided_at).toBe('string')
    const redo = await u.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        approval_id: 'appr-1',
        proposal_ref: 'als:p-1',
        decision: 'rejected',
        policy_approved: false,
        human_approved: false,
      },
      WRITER,
    )
    expect(redo.status).toBe(409)
    const mismatch = await u.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        approval_id: 'appr-2',
        proposal_ref: 'als:p-2',
        decision: 'approved',
        policy_approved: false,
        human_approved: true,
      },
      WRITER,
    )
    expect(mismatch.status).toBe(422)
    expect((await u.request('/api/v1/execution/approvals/nope', { headers: READER })).status).toBe(404)
    // An approval past its validity is reported stale (ALS then fails closed).
    const short = await u.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        proposal_ref: 'als:p-3',
        decision: 'approved',
        policy_approved: true,
        human_approved: true,
        valid_for_s: 60,
      },
      WRITER,
    )
    const id = ((await short.json()) as Json).approval_id as string
    await u.ctx.storage.transaction(async (tx) => {
      await tx
        .update(executionApprovals)
        .set({ expiresAt: '2020-01-01T00:00:00.000Z' })
        .where(eq(executionApprovals.approvalId, id))
    })
    const stale = (await (
      await u.request(`/api/v1/execution/approvals/${id}`, { headers: READER })
    ).json()) as Json
    expect(stale.stale).toBe(true)
    const list = (await (await u.request('/api/v1/execution/approvals', { headers: READER })).json()) as Json
    expect(list.count).toBe(2)
  })
})

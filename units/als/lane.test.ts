import { afterEach, describe, expect, test } from 'bun:test'
import { type FakePeer, fakePeer, json } from '../../test/harness.ts'
import { fetchApproval } from './lane.ts'

const peers: FakePeer[] = []
afterEach(() => {
  for (const p of peers.splice(0)) p.stop()
})
const lane = (handler: Parameters<typeof fakePeer>[0]) => {
  const peer = fakePeer(handler)
  peers.push(peer)
  return { rmsUrl: peer.url, token: 'tok', timeoutMs: 200, peer }
}
const approval = {
  approval_id: 'ap/1',
  proposal_ref: 'p-1',
  decision: 'approved',
  policy_approved: true,
  human_approved: true,
  decided_at: null,
  stale: false,
  recorded_by: 'extra fields are fine',
}

describe('RMS approval lane client', () => {
  test('asks GET /api/v1/execution/approvals/{id} with the bearer token, id path-encoded', async () => {
    const l = lane(() => json(approval))
    const answer = await fetchApproval(l, 'ap/1')
    expect(answer).toMatchObject({ kind: 'found', approval: { approval_id: 'ap/1', proposal_ref: 'p-1' } })
    expect(l.peer.requests[0]?.path).toBe('/api/v1/execution/approvals/ap%2F1')
    expect(l.peer.requests[0]?.headers.get('authorization')).toBe('Bearer tok')
  })

  test('404 is a missing approval', async () => {
    expect(
      await fetchApproval(
        lane(() => json({}, 404)),
        'x',
      ),
    ).toEqual({ kind: 'missing' })
  })

  test('everything else is unavailable: 5xx, 401, off-contract body, another approval, timeout, not configured', async () => {
    const cases: [Parameters<typeof fakePeer>[0], string][] = [
      [() => json({}, 500), 'bad_status'],
      [() => json({}, 401), 'bad_status'],
      [() => json({ ...approval, decision: 'maybe' }), 'bad_body'],
      [() => json({ ...approval, approval_id: 'other' }), 'bad_body'],
      [
        async () => {
          await Bun.sleep(400)
          return json(approval)
        },
        'timeout',
      ],
    ]
    for (const [handler, reason] of cases) {
      const answer = await fetchApproval(lane(handler), 'ap/1')
      expect(answer).toMatchObject({ kind: 'unavailable', reason })
    }
    expect(await fetchApproval({ rmsUrl: undefined, token: undefined, timeoutMs: 100 }, 'x')).toMatchObject({
      kind: 'unavailable',
      reason: 'not_configured',
    })
  })
})

/**
 * Two RMS processes on one libSQL server (two replicas): the reconcile lease is held by one of them
 * at a time, the desired state is adopted once, an approval decision is final across both, and
 * every audit event reaches the event sink exactly once, whichever process recorded it.
 */
import { describe, expect, test } from 'bun:test'
import { fakePeer, type Json, json, type RunningUnit, runUnitProcess, tempDir } from '../../test/harness.ts'
import { sqldBinary, startSqld } from '../../test/sqld.ts'
import { bearer, LOCAL_TOKENS, TOKENS } from './testing.ts'

const W = bearer(TOKENS.write)

const getJson = async (url: string) => {
  const res = await fetch(url, { headers: W })
  expect(res.status).toBe(200)
  return (await res.json()) as Json
}
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...W },
    body: JSON.stringify(body),
  })

/** Which of the processes say they hold the reconcile lease now. */
const holders = async (units: RunningUnit[]) => {
  const held = await Promise.all(
    units.map(async (u) => (await getJson(`${u.url}/api/v1/control-agent/status`)).holds_lease as boolean),
  )
  return units.filter((_, i) => held[i])
}

describe.skipIf(!sqldBinary())('two rms replicas on one sqld', () => {
  test('one lease holder at a time; adoption once; approvals final; each audit event delivered once', async () => {
    const sqld = await startSqld()
    const delivered: string[] = []
    const sink = fakePeer((r) => {
      delivered.push(r.headers.get('x-svc-event-id') ?? '')
      return json({ ok: true })
    })
    const env = {
      DATABASE_URL: sqld.url,
      RMS_LOCAL_TOKENS: LOCAL_TOKENS,
      RMS_EVENT_SINK_URL: sink.url,
      RMS_HOST_SCAN_CACHE_MS: '0',
    }
    // Started together: both adopt-if-empty and both control loops try the lease at once.
    const [a, b] = await Promise.all([
      runUnitProcess('rms', '/health', { ...env, SVC_DATA_DIR: tempDir('svc-rms-rep-') }),
      runUnitProcess('rms', '/health', { ...env, SVC_DATA_DIR: tempDir('svc-rms-rep-') }),
    ])
    const units = [a!, b!]
    try {
      let holding: RunningUnit[] = []
      for (let i = 0; i < 100 && holding.length === 0; i++) {
        await Bun.sleep(50)
        holding = await holders(units)
      }
      expect(holding).toHaveLength(1)
      const holder = holding[0]!
      const other = units.find((u) => u !== holder)!

      // The other process is refused, naming the holder; both see the same lease row.
      const leases = await Promise.all(units.map((u) => getJson(`${u.url}/api/v1/control-agent/leases`)))
      expect(leases[0].items[0].holder).toBe(leases[1].items[0].holder)
      const tries = await Promise.all(
        Array.from({ length: 6 }, (_, i) => post(`${units[i % 2]!.url}/api/v1/control-agent/reconcile`, {})),
      )
      const byProcess = tries.map((r, i) => [units[i % 2] === holder, r.status] as const)
      for (const [isHolder, status] of byProcess) expect(status).toBe(isHolder ? 200 : 409)
      expect(await holders(units)).toEqual([holder])

      // Adopted once, although both started on the empty database together.
      const adopted = await getJson(`${a!.url}/api/v1/audit/events?kind=desired.adopted`)
      expect(adopted.count).toBe(1)

      // One approval id decided from both processes at once: one decision wins, the other is final.
      const decide = (u: RunningUnit, decision: 'approved' | 'rejected') =>
        post(`${u.url}/api/v1/execution/approvals`, {
          approval_id: 'replica-approval-1',
          proposal_ref: 'als:proposal:r1',
          decision,
          policy_approved: decision === 'approved',
          human_approved: decision === 'approved',
        })
      const decided = await Promise.all([decide(a!, 'approved'), decide(b!, 'rejected')])
      expect(decided.map((r) => r.status).sort()).toEqual([201, 409])
      const loser = await decided.find((r) => r.status === 409)!.json()
      expect((loser as Json).error.code).toBe('approval_decided')

      // The holder's reconcile delivers the outbox: every audit event of both processes, once.
      expect((await post(`${holder.url}/api/v1/control-agent/reconcile`, {})).status).toBe(200)
      const events = await getJson(`${other.url}/api/v1/audit/events?limit=200`)
      const ids = (events.events as Json[]).map((e) => e.event_id as string)
      expect(ids.length).toBeGreaterThan(0)
      expect([...delivered].sort()).toEqual([...ids].sort())

      // The holder stops (releasing the lease); the other takes it over with a new generation.
      expect(await holder.stop()).toBe(0)
      const taken = await post(`${other.url}/api/v1/control-agent/reconcile`, {})
      expect(taken.status).toBe(200)
      expect(((await taken.json()) as Json).lease).toMatchObject({
        held_by_this_instance: true,
        generation: 2,
      })
    } finally {
      for (const u of units) if (u.proc.exitCode === null) await u.stop()
      sink.stop()
      await sqld.stop()
    }
  }, 60_000)

  test('the server gone: /ready says not ready, reads and writes answer 503, and SIGTERM still exits 0', async () => {
    const sqld = await startSqld()
    const u = await runUnitProcess('rms', '/health', {
      DATABASE_URL: sqld.url,
      RMS_LOCAL_TOKENS: LOCAL_TOKENS,
      SVC_DATA_DIR: tempDir('svc-rms-rep-'),
    })
    try {
      for (let i = 0; i < 100 && !(await getJson(`${u.url}/api/v1/control-agent/status`)).holds_lease; i++)
        await Bun.sleep(50)
      await sqld.stop()
      const ready = await fetch(`${u.url}/ready`)
      expect(ready.status).toBe(503)
      expect(((await ready.json()) as Json).status).toBe('not_ready')
      const audit = await fetch(`${u.url}/api/v1/audit/events`, { headers: W })
      expect(audit.status).toBe(503)
      const body = (await audit.json()) as Json
      expect(body.error.code).toBe('persistence_unavailable')
      expect(JSON.stringify(body)).not.toContain('select')
      const write = await post(`${u.url}/api/v1/execution/approvals`, {
        proposal_ref: 'als:proposal:gone',
        decision: 'pending',
        policy_approved: false,
        human_approved: false,
      })
      expect(write.status).toBe(503)
      expect(((await write.json()) as Json).error.code).toBe('persistence_unavailable')
    } finally {
      expect(await u.stop()).toBe(0)
    }
    // The log names why: the driver's error rides along as the 503's cause.
    const log = await u.output()
    expect(log).toContain('"msg":"request failed"')
    expect(log).toContain('ECONNREFUSED')
  }, 30_000)
})

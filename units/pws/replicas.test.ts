/**
 * Two PWS instances on one libSQL server (two replicas, booted in one test process on the same
 * DATABASE_URL): a task PATCH with one expected_version wins once whichever instance takes it,
 * the EIS support handoff makes one task per correlation_id (and per ticket), and the provider
 * poll runs in one instance at a time.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, count, eq } from 'drizzle-orm'
import type { Json, TestResponse } from '../../test/harness.ts'
import { type Sqld, sqldBinary, startSqld } from '../../test/sqld.ts'
import { type FakeHost, fakeCodeHost } from './fixtures/code-host.ts'
import { supportHandoffs, tasks } from './tables.ts'
import { bootPwsAsync, type PwsTest } from './testing.ts'

const TOKEN = 'eis-handoff-token-0123456789'
const P = '/api/v1/projects/shared'

describe.skipIf(!sqldBinary())('two PWS replicas on one sqld', () => {
  let sqld: Sqld
  let a: PwsTest
  let b: PwsTest
  beforeAll(async () => {
    sqld = await startSqld()
    const env = { PWS_SUPPORT_HANDOFF_TOKEN: TOKEN, DATABASE_URL: sqld.url }
    a = await bootPwsAsync(env)
    b = await bootPwsAsync(env)
    await a.project('shared')
  })
  afterAll(async () => {
    await a?.u.dispose()
    await b?.u.dispose()
    await sqld?.stop()
  })
  const either = (i: number) => (i % 2 === 0 ? a : b)

  test('the same expected_version PATCHed through both: exactly one 200, the other 409, one move stored', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await a.send('POST', `${P}/tasks`, { title: `Race ${round}` })
      const task = await created.json()
      const answers = await Promise.all(
        (['ready', 'review'] as const).map((lane, i) =>
          either(i).send('PATCH', `${P}/tasks/${task.task_key}`, {
            lane,
            expected_version: task.version_token,
          }),
        ),
      )
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
      const won = await (answers.find((r) => r.status === 200) as TestResponse).json()
      const lost = await (answers.find((r) => r.status === 409) as TestResponse).json()
      expect(lost.error.code).toBe('version_conflict')
      expect(lost.current_version).toBe(won.version_token)
      // Both instances read the winner's lane and version.
      for (const u of [a, b]) {
        const now = await (await u.get(`${P}/tasks/${task.task_key}`)).json()
        expect(now).toMatchObject({ lane: won.lane, version_token: won.version_token })
      }
    }
  })

  test('one support envelope sent 10 times to both: one task, one created and nine unchanged', async () => {
    const envelope = (correlationId: string, ticketId: string): Json => ({
      correlation_id: correlationId,
      source: { system: 'zammad', ticket_id: ticketId, event: 'ticket.created' },
      ticket: { id: ticketId, state: 'open', priority: 'normal', title: `Ticket ${ticketId}` },
    })
    const post = (u: PwsTest, body: Json) =>
      u.u.send('POST', '/api/v1/support/handoff', body, { authorization: `Bearer ${TOKEN}` })
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(either(i), envelope('replica-corr-1', '9001'))),
    )
    const bodies = await Promise.all(answers.map((r) => r.json()))
    expect(answers.every((r) => r.status === 200 || r.status === 201)).toBe(true)
    expect(bodies.filter((x) => x.result === 'created')).toHaveLength(1)
    expect(bodies.filter((x) => x.result === 'unchanged')).toHaveLength(9)
    expect(new Set(bodies.map((x) => x.task_key)).size).toBe(1)

    // Five more correlation ids, each about a new ticket, through both at once: five more tasks.
    const fresh = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post(either(i), envelope(`replica-corr-${i + 2}`, `91${i}`))),
    )
    expect(fresh.map((r) => r.status)).toEqual(fresh.map(() => 201))
    const db = a.u.ctx.storage.db
    const ofTicket = (ref: string) =>
      db
        .select({ n: count() })
        .from(tasks)
        .where(and(eq(tasks.projectId, 'support'), eq(tasks.sourceReference, ref)))
        .get()
    expect((await ofTicket('zammad:9001'))?.n).toBe(1)
    for (let i = 0; i < 5; i++) expect((await ofTicket(`zammad:91${i}`))?.n).toBe(1)
    expect((await db.select({ n: count() }).from(supportHandoffs).get())?.n).toBe(6)
  })
})

describe.skipIf(!sqldBinary())('the provider poll across two replicas', () => {
  test('one lease: one instance polls while both run; the other takes over once it stops', async () => {
    const sqld = await startSqld()
    // Each instance reads its own copy of the code host, so the requests say who polled.
    const hosts = [fakeCodeHost('gh-token'), fakeCodeHost('gh-token')]
    const boot = (host: FakeHost) =>
      bootPwsAsync({
        DATABASE_URL: sqld.url,
        PWS_GITHUB_URL: host.peer.url,
        PWS_GITHUB_TOKEN: 'gh-token',
        PWS_POLL_INTERVAL_S: '1',
      })
    const [a, b] = [await boot(hosts[0] as FakeHost), await boot(hosts[1] as FakeHost)] as [PwsTest, PwsTest]
    const polled = () => hosts.map((h) => h.peer.requests.length)
    try {
      await a.project('polled', { primary_repo_ref: { provider: 'github', full_name: 'acme/app' } })
      for (const u of [a, b]) for (const task of u.u.background) task.start()
      await Bun.sleep(3500)
      const first = polled()
      expect(first.filter((n) => n > 0)).toHaveLength(1)
      const holder = (first[0] as number) > 0 ? a : b
      const other = holder === a ? 1 : 0
      await holder.u.dispose()
      await Bun.sleep(3000)
      expect(polled()[other]).toBeGreaterThan(0)
    } finally {
      await a.u.dispose().catch(() => undefined)
      await b.u.dispose().catch(() => undefined)
      for (const h of hosts) h.peer.stop()
      await sqld.stop()
    }
  }, 20_000)
})

/**
 * Two mailbox instances on one libSQL server (two replicas, booted in one test process on the
 * same DATABASE_URL): publishes taken by either are read back from both in one arrival order,
 * and each message is forwarded once, whichever outbox worker claimed it.
 */
import { expect, test } from 'bun:test'
import { bootForTestAsync, fakePeer, json } from '../../test/harness.ts'
import { sqldBinary, startSqld } from '../../test/sqld.ts'
import { mailbox } from './index.ts'

test.skipIf(!sqldBinary())(
  'two mailbox replicas on one sqld: one order, each message forwarded once',
  async () => {
    const sqld = await startSqld()
    const forwarded: string[] = []
    const downstream = fakePeer(async (r) => {
      forwarded.push((JSON.parse(r.body) as { message_id: string }).message_id)
      await Bun.sleep(2)
      return json({ ok: true })
    })
    const env = { DATABASE_URL: sqld.url, MAILBOX_DOWNSTREAM_URL: downstream.url }
    const a = await bootForTestAsync(mailbox, env)
    const b = await bootForTestAsync(mailbox, env)
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).send('POST', '/publish', { topic: 'shared', message: { n: i } }),
        ),
      )
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 202))
      const ids = await Promise.all(answers.map(async (r) => (await r.json()).message_id as string))
      const fromA = await (await a.request('/messages?topic=shared&limit=100')).json()
      const fromB = await (await b.request('/messages?topic=shared&limit=100')).json()
      expect(fromA.data).toHaveLength(20)
      expect(fromB).toEqual(fromA)
      expect(new Set(fromA.data.map((m: { message_id: string }) => m.message_id))).toEqual(new Set(ids))

      const workers = [a, b].map((u) => u.background[0] as unknown as { deliverDue(): Promise<number> })
      const [da, db] = await Promise.all(workers.map((w) => w.deliverDue()))
      expect((da ?? 0) + (db ?? 0)).toBe(20)
      expect(forwarded.toSorted()).toEqual(ids.toSorted())
    } finally {
      downstream.stop()
      await a.dispose()
      await b.dispose()
      await sqld.stop()
    }
  },
)

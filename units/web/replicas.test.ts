/**
 * Two WEB processes on one libSQL server (two replicas): every contact intake is stored once and
 * delivered to the webhook exactly once, whichever process took it and whichever outbox worker
 * claimed it.
 */
import { describe, expect, test } from 'bun:test'
import { fakePeer, json, runUnitProcess, tempDir } from '../../test/harness.ts'
import { sqldBinary, startSqld } from '../../test/sqld.ts'

type Status = {
  contact_intake: { intakes_stored: number; deliveries_pending: number; deliveries_delivered: number }
}

describe.skipIf(!sqldBinary())('two web replicas on one sqld', () => {
  test('each intake is delivered once, by one of the two outbox workers', async () => {
    const sqld = await startSqld()
    const turnstile = fakePeer(() => json({ success: true }))
    const delivered: string[] = []
    const webhook = fakePeer(async (r) => {
      delivered.push(
        (JSON.parse(r.body) as { platform_event: { intake_id: string } }).platform_event.intake_id,
      )
      await Bun.sleep(5)
      return json({ ok: true })
    })
    const env = {
      DATABASE_URL: sqld.url,
      TURNSTILE_SECRET_KEY: 'replica-test-secret',
      TURNSTILE_VERIFY_URL: `${turnstile.url}/siteverify`,
      CONTACT_WEBHOOK_URL: `${webhook.url}/hook`,
      CONTACT_WEBHOOK_SECRET: 'replica-signing-secret-0123',
      CONTACT_OUTBOX_POLL_MS: '50',
    }
    const a = await runUnitProcess('web', '/health', { ...env, SVC_DATA_DIR: tempDir() })
    const b = await runUnitProcess('web', '/health', { ...env, SVC_DATA_DIR: tempDir() })
    try {
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${(i % 2 === 0 ? a : b).url}/api/contact`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              name: `Replica ${i}`,
              email: `r${i}@example.com`,
              interest: 'support',
              message: `message ${i}`,
              'cf-turnstile-response': 't',
            }),
          })
          expect(res.status).toBe(200)
          return ((await res.json()) as { intake_id: string }).intake_id
        }),
      )
      for (let i = 0; i < 200 && new Set(delivered).size < ids.length; i++) await Bun.sleep(50)
      await Bun.sleep(300) // time for a duplicate to show up, were a row claimed twice
      expect([...delivered].sort()).toEqual([...ids].sort())
      for (const unit of [a, b]) {
        const status = (await (await fetch(`${unit.url}/status.json`)).json()) as Status
        expect(status.contact_intake).toMatchObject({
          intakes_stored: 20,
          deliveries_pending: 0,
          deliveries_delivered: 20,
        })
      }
    } finally {
      expect(await a.stop()).toBe(0)
      expect(await b.stop()).toBe(0)
      turnstile.stop()
      webhook.stop()
      await sqld.stop()
    }
  }, 40_000)
})

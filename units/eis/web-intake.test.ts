/**
 * WEB → EIS (CONTRACTS.md §4): a contact submitted on WEB's form, delivered by WEB's outbox to a
 * listening EIS, becomes a Lead; WEB redelivering the same intake creates nothing new.
 */
import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { bootForTestAsync, fakePeer, freePort, json } from '../../test/harness.ts'
import { web } from '../web/index.ts'
import * as store from './store.ts'
import { bootEis, SECRETS } from './testing.ts'

test("a contact submitted on WEB's form is a Lead in EIS, once", async () => {
  const eis = await bootEis()
  eis.app.listen({ port: freePort(), hostname: '127.0.0.1' })
  const siteverify = fakePeer(() => json({ success: true, 'error-codes': [], hostname: 'localhost' }))
  const w = await bootForTestAsync(web, {
    TURNSTILE_SECRET_KEY: 'turnstile-secret-for-this-test',
    TURNSTILE_VERIFY_URL: siteverify.url,
    CONTACT_WEBHOOK_URL: `http://127.0.0.1:${eis.app.server?.port}/api/method/svc_erp_core.api.webhooks.website_contact_intake`,
    CONTACT_WEBHOOK_SECRET: SECRETS.ERP_API_SHARED_SECRET,
  })
  try {
    const res = await w.send('POST', '/api/contact', {
      'cf-turnstile-response': 'token',
      name: 'Grace Hopper',
      email: 'Grace@Example.org',
      interest: 'erp',
      message: 'Please call me back.',
      company: 'Navy',
    })
    expect((await res.json()).delivery).toBe('webhook')
    const outbox = w.background[0] as unknown as { runOnce(): Promise<unknown> }
    await outbox.runOnce()
    const lead = await store.findLeadByEmail(eis.ctx.storage, 'grace@example.org')
    expect(lead).toMatchObject({
      leadName: 'Grace Hopper',
      companyName: 'Navy',
      interest: 'erp',
      notes: 'Please call me back.',
      intakeCount: 1,
    })
    expect(await store.eventCounts(eis.ctx.storage)).toEqual({ processed: 1 })
    // WEB resends the stored bytes (as after a lost answer): nothing new.
    await w.ctx.storage.transaction((tx) =>
      tx.run(sql`UPDATE outbox_messages SET state = 'pending', next_attempt_at = '2000-01-01T00:00:00.000Z'`),
    )
    await outbox.runOnce()
    expect((await store.findLeadByEmail(eis.ctx.storage, 'grace@example.org'))?.intakeCount).toBe(1)
    expect(await store.eventCounts(eis.ctx.storage)).toEqual({ processed: 1 })
    expect((await store.tableCounts(eis.ctx.storage)).leads).toBe(1)
  } finally {
    siteverify.stop()
    await w.dispose()
    await eis.app.stop(true)
    await eis.dispose()
  }
})

/**
 * Two EIS instances on one libSQL server (two replicas, booted in one test process on the same
 * DATABASE_URL): keyed callbacks take effect once, redeliveries of one webhook are stored once,
 * and concurrent intakes of one address make one Lead, whichever instance took each request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { bootForTestAsync, type TestResponse } from '../../test/harness.ts'
import { type Sqld, sqldBinary, startSqld } from '../../test/sqld.ts'
import { eis } from './index.ts'
import * as store from './store.ts'
import { integrationEvents } from './tables.ts'
import { BASE_ENV, call, type EisUnit, SECRETS, signedPost, webContact } from './testing.ts'

describe.skipIf(!sqldBinary())('two EIS replicas on one sqld', () => {
  let sqld: Sqld
  let a: EisUnit
  let b: EisUnit
  beforeAll(async () => {
    sqld = await startSqld()
    const env = { ...BASE_ENV, DATABASE_URL: sqld.url }
    a = await bootForTestAsync(eis, env)
    b = await bootForTestAsync(eis, env)
  })
  afterAll(async () => {
    await a?.dispose()
    await b?.dispose()
    await sqld?.stop()
  })
  const either = (i: number) => (i % 2 === 0 ? a : b)
  const eventsOf = async (source: string) =>
    (
      await a.ctx.storage.db
        .select({ n: count() })
        .from(integrationEvents)
        .where(eq(integrationEvents.source, source))
        .get()
    )?.n

  test('one keyed callback sent 20 times to both: one effect, 20 identical answers', async () => {
    const intake = await signedPost(
      a,
      'webhooks.supplier_intake',
      { intake_id: crypto.randomUUID(), vendor: { name: 'V' } },
      SECRETS.AUTOMATION_SHARED_SECRET,
    )
    const name = (await intake.json()).message.supplier_intake
    const approval = (await (await call(b, 'workflows.request_supplier_intake_approval', { name })).json())
      .message
    const body = { packet: approval.packet.name, decision: 'approved', actor: { subject: 'reviewer' } }
    const answers: TestResponse[] = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        signedPost(either(i), 'callbacks.automation_hil_decision', body, SECRETS.AUTOMATION_SHARED_SECRET, {
          'idempotency-key': 'replica-hil-1',
        }),
      ),
    )
    const texts = await Promise.all(answers.map((r) => r.text()))
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200))
    expect(new Set(texts).size).toBe(1)
    expect(await eventsOf('callbacks.automation_hil_decision')).toBe(1)
    expect((await store.findSupplierIntake(b.ctx.storage, name))?.status).toBe('approved')
  })

  test('one contact intake redelivered 10 times to both, and 10 new intakes of one address: 2 Leads in all', async () => {
    const once = webContact('replica-once@example.org')
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        signedPost(either(i), 'webhooks.website_contact_intake', once, SECRETS.ERP_API_SHARED_SECRET),
      ),
    )
    const sameMessages = await Promise.all(same.map(async (r) => (await r.json()).message))
    expect(new Set(sameMessages.map((m) => m.integration_event)).size).toBe(1)
    expect(sameMessages.filter((m) => !m.duplicate)).toHaveLength(1)

    const fresh = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        signedPost(
          either(i),
          'webhooks.website_contact_intake',
          webContact('replica-many@example.org'),
          SECRETS.ERP_API_SHARED_SECRET,
        ),
      ),
    )
    expect(fresh.map((r) => r.status)).toEqual(fresh.map(() => 200))
    const freshMessages = await Promise.all(fresh.map(async (r) => (await r.json()).message))
    expect(new Set(freshMessages.map((m) => m.lead)).size).toBe(1)
    expect((await store.findLeadByEmail(a.ctx.storage, 'replica-many@example.org'))?.intakeCount).toBe(10)
    expect((await store.tableCounts(b.ctx.storage)).leads).toBe(2)
    expect(await eventsOf('webhooks.website_contact_intake')).toBe(11)
  })
})

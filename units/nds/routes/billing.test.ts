import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { paddle, signBody } from '../../../common/signature.ts'
import { fakePeer, type Json, json } from '../../../test/harness.ts'
import { bootNds, createKey, sqlOf } from '../testing.ts'

const SECRET = 'pdl_ntfset_test_secret_0123456789'
const paddleApi = fakePeer((req) => {
  if (req.path === '/transactions') {
    const body = JSON.parse(req.body)
    return json(
      {
        data: {
          id: 'txn_01abc',
          status: 'ready',
          customer_id: null,
          checkout: { url: `https://pay.example/checkout?_ptxn=txn_01abc&price=${body.items[0].price_id}` },
        },
      },
      201,
    )
  }
  const portal = /^\/customers\/(ctm_[a-z0-9]+)\/portal-sessions$/.exec(req.path)
  if (portal)
    return json(
      { data: { id: 'cpls_1', urls: { general: { overview: `https://portal.example/${portal[1]}` } } } },
      201,
    )
  return json({ error: { code: 'not_found' } }, 404)
})
const unit = await bootNds({
  NDS_PADDLE_API_URL: paddleApi.url,
  NDS_PADDLE_API_KEY: 'pdl_sdbx_apikey_test',
  NDS_PADDLE_PRICE_ID: 'pri_01default',
  PADDLE_WEBHOOK_SECRET: SECRET,
})
let me: { accountId: string; auth: Record<string, string> }
let other: { accountId: string; auth: Record<string, string> }

beforeAll(async () => {
  me = await createKey(unit, 'me')
  other = await createKey(unit, 'other')
})
afterAll(async () => {
  paddleApi.stop()
  await unit.dispose()
})

const webhook = (payload: unknown, { secret = SECRET, now = Date.now() } = {}) => {
  const body = JSON.stringify(payload)
  return unit.request('/v1/webhooks/paddle', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signBody(paddle(), secret, body, now) },
    body,
  })
}
const account = async (id: string) =>
  (await sqlOf(unit).get<Json>('SELECT * FROM accounts WHERE account_id = ?', [id])) as Json

describe('billing', () => {
  test('checkout creates a Paddle transaction with the bearer key and returns its checkout URL', async () => {
    const res = await unit.send(
      'POST',
      `/v1/accounts/${me.accountId}/billing/checkout`,
      { price_id: 'pri_01pro' },
      me.auth,
    )
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      account_id: me.accountId,
      transaction_id: 'txn_01abc',
      status: 'ready',
      checkout_url: 'https://pay.example/checkout?_ptxn=txn_01abc&price=pri_01pro',
    })
    const sent = paddleApi.requests.at(-1)
    expect(sent?.headers.get('authorization')).toBe('Bearer pdl_sdbx_apikey_test')
    expect(JSON.parse(sent?.body ?? '{}').custom_data).toEqual({ account_id: me.accountId })
    const dflt = await (
      await unit.send('POST', `/v1/accounts/${me.accountId}/billing/checkout`, {}, me.auth)
    ).json()
    expect(dflt.checkout_url).toContain('pri_01default')
  })

  test("another key's account is 404, never a hint; no customer yet is 422", async () => {
    for (const path of ['billing/checkout', 'billing/customer-portal']) {
      expect((await unit.send('POST', `/v1/accounts/${other.accountId}/${path}`, {}, me.auth)).status).toBe(
        404,
      )
      expect((await unit.send('POST', `/v1/accounts/nope/${path}`, {}, me.auth)).status).toBe(404)
    }
    const portal = await unit.send(
      'POST',
      `/v1/accounts/${me.accountId}/billing/customer-portal`,
      {},
      me.auth,
    )
    expect(portal.status).toBe(422)
    expect((await portal.json()).error.code).toBe('no_billing_customer')
  })

  test('Paddle down: 503 payment_provider_unavailable', async () => {
    const down = await bootNds({
      NDS_PADDLE_API_URL: 'http://127.0.0.1:1',
      NDS_PADDLE_API_KEY: 'k',
      NDS_PEER_TIMEOUT_MS: '500',
    })
    try {
      const k = await createKey(down)
      const res = await down.send(
        'POST',
        `/v1/accounts/${k.accountId}/billing/checkout`,
        { price_id: 'pri_01x' },
        k.auth,
      )
      expect(res.status).toBe(503)
      expect((await res.json()).error.code).toBe('payment_provider_unavailable')
      const unconfigured = await bootNds()
      const u = await createKey(unconfigured)
      const r2 = await unconfigured.send('POST', `/v1/accounts/${u.accountId}/billing/checkout`, {}, u.auth)
      expect((await r2.json()).error.code).toBe('billing_not_configured')
      await unconfigured.dispose()
    } finally {
      await down.dispose()
    }
  })
})

describe('POST /v1/webhooks/paddle', () => {
  const subscription = (notificationId: string, status: string, occurredAt: string, accountId: string) => ({
    event_id: `evt_${notificationId}`,
    notification_id: notificationId,
    event_type: 'subscription.updated',
    occurred_at: occurredAt,
    data: { id: 'sub_01x', status, customer_id: 'ctm_01abc', custom_data: { account_id: accountId } },
  })

  test('a verified notification updates the subscription; the same notification id again changes nothing', async () => {
    const first = await webhook(subscription('ntf_1', 'active', '2026-11-02T10:00:00.000Z', me.accountId))
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ received: true, notification_id: 'ntf_1', outcome: 'applied' })
    expect(await account(me.accountId)).toMatchObject({
      subscription_status: 'active',
      paddle_customer_id: 'ctm_01abc',
      subscription_id: 'sub_01x',
    })
    // a redelivery (Paddle retries): new signature, same notification id
    const again = await webhook(subscription('ntf_1', 'canceled', '2026-11-02T10:00:00.000Z', me.accountId), {
      now: Date.now() + 1000,
    })
    expect((await again.json()).outcome).toBe('duplicate')
    expect((await account(me.accountId)).subscription_status).toBe('active')
    // an older event arriving late is recorded, not applied
    const late = await webhook(subscription('ntf_0', 'past_due', '2026-11-01T10:00:00.000Z', me.accountId))
    expect((await late.json()).outcome).toBe('ignored')
    expect((await account(me.accountId)).subscription_status).toBe('active')
    // now the portal works: the customer id came with the notification
    const portal = await unit.send(
      'POST',
      `/v1/accounts/${me.accountId}/billing/customer-portal`,
      {},
      me.auth,
    )
    expect(await portal.json()).toMatchObject({
      customer_id: 'ctm_01abc',
      portal_url: 'https://portal.example/ctm_01abc',
    })
  })

  test('unknown accounts are acknowledged and recorded', async () => {
    const ghost = subscription('ntf_ghost', 'active', '2026-11-02T11:00:00.000Z', 'acct_unknown')
    const res = await webhook({ ...ghost, data: { ...ghost.data, customer_id: 'ctm_ghost' } })
    expect(res.status).toBe(200)
    expect((await res.json()).outcome).toBe('unknown_account')
    const row = (await sqlOf(unit).get(
      "SELECT outcome FROM paddle_notifications WHERE notification_id = 'ntf_ghost'",
    )) as Json
    expect(row.outcome).toBe('unknown_account')
  })

  test('bad, stale, future, missing signatures are 401 and change nothing', async () => {
    const payload = subscription('ntf_bad', 'canceled', '2026-11-03T00:00:00.000Z', me.accountId)
    expect((await webhook(payload, { secret: 'wrong-secret' })).status).toBe(401)
    expect((await webhook(payload, { now: Date.now() - 6 * 60_000 })).status).toBe(401)
    expect((await webhook(payload, { now: Date.now() + 6 * 60_000 })).status).toBe(401)
    const unsigned = await unit.send('POST', '/v1/webhooks/paddle', payload)
    expect(unsigned.status).toBe(401)
    expect((await unsigned.json()).error.code).toBe('signature_missing')
    expect((await account(me.accountId)).subscription_status).toBe('active')
    const bad = await webhook({ nope: true })
    expect(bad.status).toBe(400)
  })
})

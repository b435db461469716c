import { afterAll, describe, expect, test } from 'bun:test'
import { fakePeer, json } from '../../../test/harness.ts'
import { bootNds, createKey, sqlOf } from '../testing.ts'

const GATES = [
  'operational-dashboard-summary',
  'operational-slo-gates',
  'security-compliance-gates',
  'incident-readiness-gates',
  'security-pen-test-evidence',
  'secret-readiness',
  'payment-readiness',
  'tls-proxy-readiness',
]
const paddleApi = fakePeer((req) =>
  req.headers.get('authorization') === 'Bearer pdl_live_key' ? json({ data: [] }) : json({ error: {} }, 403),
)
afterAll(() => paddleApi.stop())

const statusOf = (gate: { checks: { name: string; status: string }[] }, name: string) =>
  gate.checks.find((c) => c.name === name)?.status

describe('readiness gates', () => {
  test('unconfigured: the eight gates need a key and report what is missing', async () => {
    const unit = await bootNds()
    try {
      const { auth } = await createKey(unit)
      for (const g of GATES) {
        expect((await unit.request(`/v1/research/${g}`)).status).toBe(401)
        const res = await unit.request(`/v1/research/${g}`, { headers: auth })
        expect(res.status).toBe(200)
        const body = await res.json()
        expect(body.gate).toBe(g)
        expect(body.checks.length).toBeGreaterThan(0)
      }
      const payment = await (await unit.request('/v1/research/payment-readiness', { headers: auth })).json()
      expect(payment.status).toBe('fail')
      expect(statusOf(payment, 'paddle_api_key')).toBe('fail')
      const pen = await (
        await unit.request('/v1/research/security-pen-test-evidence', { headers: auth })
      ).json()
      expect(statusOf(pen, 'last_pen_test')).toBe('fail')
      const tls = await (await unit.request('/v1/research/tls-proxy-readiness', { headers: auth })).json()
      expect(statusOf(tls, 'public_base_url_https')).toBe('warn')
      const security = await (
        await unit.request('/v1/research/security-compliance-gates', { headers: auth })
      ).json()
      expect(statusOf(security, 'api_keys_stored_hashed')).toBe('pass')
    } finally {
      await unit.dispose()
    }
  })

  test('configured: checks pass, the Paddle API is asked live, an old key is due for rotation', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const unit = await bootNds({
      NDS_PADDLE_API_URL: paddleApi.url,
      NDS_PADDLE_API_KEY: 'pdl_live_key',
      NDS_PADDLE_PRICE_ID: 'pri_01abc',
      PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_0123456789abcdef0123456789',
      NDS_PUBLIC_BASE_URL: 'https://news.example.com',
      NDS_FORCE_HTTPS_REDIRECT: 'true',
      NDS_TRUSTED_HOSTS: 'news.example.com,localhost',
      NDS_PEN_TEST_REPORT_DATE: today,
      NDS_PEN_TEST_REPORT_URL: 'https://docs.example.com/pentest-2026.pdf',
      NDS_KEY_MAX_AGE_DAYS: '30',
    })
    try {
      const { auth } = await createKey(unit)
      const get = async (g: string) => (await unit.request(`/v1/research/${g}`, { headers: auth })).json()
      const payment = await get('payment-readiness')
      expect(statusOf(payment, 'paddle_api_reachable')).toBe('pass')
      expect(paddleApi.requests.at(-1)?.path).toBe('/event-types')
      expect((await get('tls-proxy-readiness')).status).toBe('pass')
      expect((await get('security-pen-test-evidence')).status).toBe('pass')
      expect(statusOf(await get('secret-readiness'), 'api_key_rotation_age')).toBe('pass')
      await sqlOf(unit).run("UPDATE api_keys SET created_at = '2020-01-01T00:00:00.000Z'")
      expect(statusOf(await get('secret-readiness'), 'api_key_rotation_age')).toBe('warn')
    } finally {
      await unit.dispose()
    }
  })

  test('trusted hosts and the https redirect are enforced, probes excepted', async () => {
    const unit = await bootNds({ NDS_TRUSTED_HOSTS: 'news.example.com', NDS_FORCE_HTTPS_REDIRECT: 'true' })
    try {
      const wrong = await unit.request('/v1/health/info', { headers: { host: 'evil.example' } })
      expect(wrong.status).toBe(400)
      expect((await wrong.json()).error.code).toBe('untrusted_host')
      expect((await unit.request('/v1/health/live', { headers: { host: 'evil.example' } })).status).toBe(200)
      const plain = await unit.request('/v1/health/info?x=1', {
        headers: { host: 'news.example.com', 'x-forwarded-proto': 'http' },
      })
      expect(plain.status).toBe(308)
      expect(plain.headers.get('location')).toBe('https://news.example.com/v1/health/info?x=1')
      expect(
        (
          await unit.request('/v1/health/info', {
            headers: { host: 'news.example.com', 'x-forwarded-proto': 'https' },
          })
        ).status,
      ).toBe(200)
    } finally {
      await unit.dispose()
    }
  })
})

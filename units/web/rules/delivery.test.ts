import { describe, expect, test } from 'bun:test'
import { contactPayload, RETRY_MAX_MS, retryDelayMs } from './delivery.ts'

describe('retryDelayMs', () => {
  test('doubles from one second and is capped at ten minutes, jitter included', () => {
    expect(retryDelayMs(1, () => 0)).toBe(1000)
    expect(retryDelayMs(2, () => 0)).toBe(2000)
    expect(retryDelayMs(5, () => 0)).toBe(16000)
    expect(retryDelayMs(50, () => 1)).toBe(RETRY_MAX_MS)
    expect(retryDelayMs(3, () => 1)).toBe(4800)
  })
})

describe('contactPayload', () => {
  test('carries exactly contact, interest, profiling, site and platform_event', () => {
    const payload = contactPayload(
      {
        intakeId: 'i-1',
        receivedAt: '2026-11-22T00:00:00.000Z',
        name: 'A',
        email: 'a@b.co',
        interest: 'support',
        message: 'm',
        optional: { phone: '+1' },
      },
      { tool_key: 'public-website', public_base_url: 'https://x', runtime_kind: 'k' },
    )
    expect(payload.contact).toEqual({ name: 'A', email: 'a@b.co', message: 'm', phone: '+1' })
    expect(payload.platform_event).toMatchObject({
      intake_id: 'i-1',
      occurred_at: '2026-11-22T00:00:00.000Z',
    })
    expect(payload.platform_event.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/)
  })
})

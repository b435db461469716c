import { type Backoff, backoffDelayMs } from '../../../common/backoff.ts'
import { hmacHex, signBody } from '../../../common/signature.ts'
import { newId } from '../../../common/time.ts'

export interface IntakeForPayload {
  intakeId: string
  receivedAt: string
  name: string
  email: string
  interest: string
  message: string
  optional: Record<string, string>
}

export interface SiteIdentity {
  tool_key: string
  public_base_url: string
  runtime_kind: string
}

export const PLATFORM_EVENT_TYPE = 'website.contact_intake.received'

/**
 * The body EIS's `website_contact_intake` receives (docs/conventions.md §4): contact, interest,
 * profiling, site, platform_event. Built once per intake and stored, so retries resend it as is.
 */
export function contactPayload(intake: IntakeForPayload, site: SiteIdentity) {
  const { company, phone, source_page, locale } = intake.optional
  return {
    contact: {
      name: intake.name,
      email: intake.email,
      message: intake.message,
      ...(company && { company }),
      ...(phone && { phone }),
    },
    interest: intake.interest,
    profiling: {
      channel: 'website_contact_form',
      ...(source_page && { source_page }),
      ...(locale && { locale }),
    },
    site,
    platform_event: {
      event_id: newId(),
      event_type: PLATFORM_EVENT_TYPE,
      schema_version: '1',
      intake_id: intake.intakeId,
      occurred_at: intake.receivedAt,
      source: site.tool_key,
    },
  }
}

/** Headers of a signed forward: `X-Signature` is the hex HMAC-SHA256 of the exact body. */
export function signedHeaders(secret: string, body: string, intakeId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    ...signBody(hmacHex(), secret, body),
    'idempotency-key': intakeId,
  }
}

export const RETRY_BASE_MS = 1000
export const RETRY_MAX_MS = 10 * 60 * 1000

/**
 * Delay before the next attempt: doubling from one second, capped at ten minutes, with up to
 * 20 % jitter so a recovering peer is not hit by every intake at once.
 */
export const RETRY: Backoff = { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS, jitter: 0.2 }

export const retryDelayMs = (attempts: number, random: () => number = Math.random): number =>
  backoffDelayMs(attempts, RETRY, random)

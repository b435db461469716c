import type { Static } from 'elysia'
import { unauthorized, unavailable, unprocessable } from '../../../common/errors.ts'
import type { Logger } from '../../../common/logger.ts'
import { errorFields } from '../../../common/logger.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import {
  CHALLENGE_FIELD,
  type ContactIntakeRequest,
  type ContactIntakeResponse,
  HONEYPOT_FIELD,
} from '../model.ts'
import { contactPayload, type SiteIdentity } from '../rules/delivery.ts'
import { type TurnstileSettings, verifyTurnstile } from '../rules/turnstile.ts'
import { insertIntake } from '../store.ts'

type Request = Static<typeof ContactIntakeRequest>
type Response = Static<typeof ContactIntakeResponse>

export interface IntakeDeps {
  storage: Storage
  log: Logger
  site: SiteIdentity
  /** Undefined when TURNSTILE_SECRET_KEY is not set: every submission is refused (fail closed). */
  turnstile: TurnstileSettings | undefined
  webhookConfigured: boolean
  mailto: string | undefined
  /** Called after an intake that goes to the webhook has been stored. */
  afterStore(): void
}

const OPTIONAL_FIELDS = ['company', 'phone', 'source_page', 'locale'] as const

const MESSAGES = {
  webhook: 'Thank you. Your message has been received and passed on to our team.',
  mailto: 'Thank you. Your message has been received.',
  mailto_fallback: (address: string) =>
    `Thank you. Your message has been received; you can also write to ${address}.`,
}

/**
 * A contact submission, in the order a refusal is decided: honeypot, challenge token,
 * siteverify; then the intake (and its outbox row) is stored before the answer.
 */
export async function submitContact(
  deps: IntakeDeps,
  body: Request,
  remoteIp: string | undefined,
): Promise<Response> {
  if ((body[HONEYPOT_FIELD] ?? '') !== '') {
    throw unprocessable('honeypot_triggered', 'The submission was refused.')
  }
  const token = body[CHALLENGE_FIELD]?.trim() ?? ''
  if (token === '') {
    throw unauthorized('turnstile_token_missing', `The bot-challenge token (${CHALLENGE_FIELD}) is missing.`)
  }
  if (!deps.turnstile) {
    throw unavailable(
      'turnstile_not_configured',
      'The bot challenge cannot be verified: no secret is configured.',
    )
  }
  const intakeId = newId()
  const verdict = await verifyTurnstile(deps.turnstile, token, remoteIp, intakeId)
  if (!verdict.ok) {
    if (verdict.kind === 'unavailable') {
      deps.log.warn({ reason: verdict.reason }, 'turnstile siteverify unavailable')
      throw unavailable(
        'turnstile_unavailable',
        'The bot challenge could not be verified right now; try again later.',
        {
          reason: verdict.reason,
        },
      )
    }
    throw unauthorized('turnstile_verification_failed', 'The bot challenge was not passed.', {
      error_codes: verdict.errorCodes,
    })
  }

  const optional: Record<string, string> = {}
  for (const field of OPTIONAL_FIELDS) {
    const value = body[field]?.trim()
    if (value) optional[field] = value
  }
  const delivery: Response['delivery'] = deps.webhookConfigured
    ? 'webhook'
    : deps.mailto
      ? 'mailto_fallback'
      : 'mailto'
  const intake = {
    intakeId,
    receivedAt: nowIso(),
    name: body.name.trim(),
    email: body.email.trim(),
    interest: body.interest.trim(),
    message: body.message.trim(),
    optional,
    delivery,
  }
  const payload = delivery === 'webhook' ? JSON.stringify(contactPayload(intake, deps.site)) : undefined
  try {
    await insertIntake(deps.storage, intake, payload)
  } catch (err) {
    deps.log.error({ err: errorFields(err) }, 'contact intake not stored')
    throw unavailable('storage_unavailable', 'The message could not be stored; please try again.')
  }
  if (payload) deps.afterStore()
  const message =
    delivery === 'mailto_fallback' ? MESSAGES.mailto_fallback(deps.mailto ?? '') : MESSAGES[delivery]
  return { ok: true, intake_id: intakeId, delivery, message }
}

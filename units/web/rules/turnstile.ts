import { Type as T } from '@sinclair/typebox'
import { callPeer } from '../../../common/peer.ts'

/** Cloudflare's documented siteverify endpoint, the default of TURNSTILE_VERIFY_URL. */
export const CLOUDFLARE_SITEVERIFY = 'https://challenges.cloudflare.com/turnstile/v0/siteverify'

/** Token Cloudflare's test site keys hand out; production secrets reject it. */
export const DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX'

/** Cloudflare's documented test secret that accepts every token: development's default. */
export const ALWAYS_PASS_SECRET = '1x0000000000000000000000000000000AA'

/**
 * Cloudflare's documented test secrets and what siteverify answers for them. Outside production
 * they are answered here, so a development suite works offline; production refuses them at start.
 */
export const TEST_SECRETS: Record<string, string[]> = {
  [ALWAYS_PASS_SECRET]: [],
  '2x0000000000000000000000000000000AA': ['invalid-input-response'],
  '3x0000000000000000000000000000000AA': ['timeout-or-duplicate'],
}

const SiteverifyAnswer = T.Object({
  success: T.Boolean(),
  'error-codes': T.Optional(T.Array(T.String())),
  hostname: T.Optional(T.String()),
  challenge_ts: T.Optional(T.String()),
  action: T.Optional(T.String()),
})

export type Verification =
  | { ok: true; hostname?: string }
  | { ok: false; kind: 'rejected'; errorCodes: string[] }
  | { ok: false; kind: 'unavailable'; reason: string }

export interface TurnstileSettings {
  secret: string
  verifyUrl: string
  timeoutMs: number
  allowTestSecrets: boolean
}

/** Ask siteverify about a token. Anything but a clear `success: true` is a refusal. */
export async function verifyTurnstile(
  settings: TurnstileSettings,
  token: string,
  remoteIp: string | undefined,
  idempotencyKey: string,
): Promise<Verification> {
  const canned = settings.allowTestSecrets ? TEST_SECRETS[settings.secret] : undefined
  if (canned) return canned.length === 0 ? { ok: true } : { ok: false, kind: 'rejected', errorCodes: canned }

  const form = new URLSearchParams({
    secret: settings.secret,
    response: token,
    idempotency_key: idempotencyKey,
  })
  if (remoteIp) form.set('remoteip', remoteIp)
  const answer = await callPeer({
    url: settings.verifyUrl,
    method: 'POST',
    body: form,
    timeoutMs: settings.timeoutMs,
    schema: SiteverifyAnswer,
  })
  if (!answer.ok) return { ok: false, kind: 'unavailable', reason: answer.reason }
  if (answer.body.success) return { ok: true, hostname: answer.body.hostname }
  return { ok: false, kind: 'rejected', errorCodes: answer.body['error-codes'] ?? [] }
}

import { Type } from '@sinclair/typebox'
// Type.Integer, not Elysia's t.Integer: t.Integer carries a string-to-number transform meant
// for query strings, and encoding it costs ~30 µs per response (docs/benchmarks.md).
import { t } from 'elysia'

/** Field names the spec leaves open, fixed here and published in the contract file. */
export const CHALLENGE_FIELD = 'cf-turnstile-response'
export const HONEYPOT_FIELD = 'website'

/** Limits of the contact form, enforced by the schema and published in the contract. */
export const LIMITS = {
  name: 200,
  email: 254,
  interest: 100,
  message: 5000,
  company: 200,
  phone: 50,
  source_page: 500,
  locale: 35,
  challenge: 2048,
  honeypot: 500,
} as const

const nonBlank = (maxLength: number, description: string) =>
  t.String({ minLength: 1, maxLength, pattern: '\\S', description })

export const ContactIntakeRequest = t.Object(
  {
    name: nonBlank(LIMITS.name, 'Sender name'),
    email: t.String({
      maxLength: LIMITS.email,
      pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
      description: 'Sender e-mail address',
    }),
    interest: nonBlank(LIMITS.interest, 'What the sender is interested in'),
    message: nonBlank(LIMITS.message, 'The message'),
    company: t.Optional(t.String({ maxLength: LIMITS.company, description: 'Optional company name' })),
    phone: t.Optional(t.String({ maxLength: LIMITS.phone, description: 'Optional phone number' })),
    source_page: t.Optional(
      t.String({ maxLength: LIMITS.source_page, description: 'Page the form was sent from' }),
    ),
    locale: t.Optional(t.String({ maxLength: LIMITS.locale, description: 'Sender locale, e.g. en-GB' })),
    [CHALLENGE_FIELD]: t.Optional(
      t.String({ maxLength: LIMITS.challenge, description: 'Cloudflare Turnstile token (required)' }),
    ),
    [HONEYPOT_FIELD]: t.Optional(
      t.String({ maxLength: LIMITS.honeypot, description: 'Honeypot: must be absent or empty' }),
    ),
  },
  { description: 'Contact intake: JSON, multipart/form-data or urlencoded form' },
)

export const Delivery = t.Union([t.Literal('webhook'), t.Literal('mailto_fallback'), t.Literal('mailto')])

export const ContactIntakeResponse = t.Object({
  ok: t.Boolean(),
  intake_id: t.String({ description: 'UUIDv7 of the stored intake' }),
  delivery: Delivery,
  message: t.String(),
})

const identity = {
  tool_key: t.String(),
  legacy_slugs: t.Array(t.String()),
  runtime_kind: t.String(),
}

export const HealthResponse = t.Object({
  ok: t.Boolean(),
  status: t.Literal('ok'),
  ...identity,
  public_base_url: t.String(),
  request_path: t.String(),
  checks: t.Object({
    pages_function_runtime: t.Boolean(),
    turnstile_secret_configured: t.Boolean(),
    contact_webhook_configured: t.Boolean(),
  }),
  checked_at: t.String({ format: 'date-time' }),
})

export const ReadyResponse = t.Object({
  ok: t.Boolean(),
  ready: t.Boolean(),
  ...identity,
  notes: t.Array(t.String()),
  checks: t.Object({
    public_routes_expected: t.Boolean(),
    contact_intake_surface_present: t.Boolean(),
    turnstile_secret_configured: t.Boolean(),
    contact_webhook_configured: t.Boolean(),
  }),
  checked_at: t.String({ format: 'date-time' }),
})

export const VersionDocument = t.Object({
  ...identity,
  version: t.String(),
  commit: t.String(),
  started_at: t.String({ format: 'date-time' }),
  update: t.Object({
    channel: t.String({ description: 'Branch builds come from' }),
    mechanism: t.String({ description: 'How a new version reaches this runtime' }),
    image_tag: t.String({ description: 'Immutable image tag of this build: sha-<12>' }),
  }),
})

export const StatusDocument = t.Object({
  ok: t.Boolean(),
  status: t.Union([t.Literal('operational'), t.Literal('degraded')]),
  ...identity,
  version: t.String(),
  checked_at: t.String({ format: 'date-time' }),
  contact_intake: t.Object({
    database: t.Boolean(),
    turnstile_secret_configured: t.Boolean(),
    delivery_mode: Delivery,
    intakes_stored: Type.Integer(),
    deliveries_pending: Type.Integer(),
    deliveries_delivered: Type.Integer(),
    oldest_pending_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    last_delivery_error: t.Union([t.String(), t.Null()]),
  }),
})

export const ContactContract = t.Object({
  contract: t.Literal('contact-intake'),
  version: t.String(),
  route: t.Object({ method: t.Literal('POST'), path: t.Literal('/api/contact') }),
  content_types: t.Array(t.String()),
  required_fields: t.Array(t.String()),
  challenge: t.Object({ provider: t.String(), field: t.String(), verify: t.String() }),
  honeypot: t.Object({ field: t.String(), rule: t.String() }),
  request_schema: t.Unknown(),
  response_schema: t.Unknown(),
  deliveries: t.Array(Delivery),
  errors: t.Array(t.Object({ status: Type.Integer(), code: t.String(), when: t.String() })),
})

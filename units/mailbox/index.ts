import { Type as T } from '@sinclair/typebox'
import { urlString } from '../../common/config.ts'
import { migrations } from '../../db/migrations/mailbox/index.ts'
import { createOutbox } from '../../db/outbox.ts'
import { defineUnit } from '../../runtime/unit.ts'
import { DEFAULT_MAX_PAYLOAD_BYTES, PAYLOAD_TOO_LARGE_TEXT } from './guardrail.ts'
import { meta } from './meta.ts'
import { mailboxCredentials, mailboxRoutes } from './routes.ts'
import { DOWNSTREAM } from './store.ts'

const env = {
  SVC_API_TOKEN: T.Optional(
    T.String({
      minLength: 16,
      description: 'the bearer token shared with WTA, 16+ characters (unset: open)',
    }),
  ),
  MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: T.Integer({
    minimum: 64,
    default: DEFAULT_MAX_PAYLOAD_BYTES,
    description: 'the largest accepted publish body in bytes (>= 64, at most SVC_MAX_BODY_BYTES)',
  }),
  MAILBOX_DOWNSTREAM_URL: T.Optional(urlString('the URL accepted messages are forwarded to (POST, JSON)')),
  MAILBOX_DOWNSTREAM_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'milliseconds 100-60000',
  }),
  MAILBOX_OUTBOX_POLL_MS: T.Integer({
    minimum: 50,
    maximum: 600_000,
    default: 5000,
    description: 'milliseconds 50-600000',
  }),
}

export const mailbox = defineUnit({
  kind: 'http',
  ...meta,
  description:
    'The mailbox adapter of WTA’s optional messaging stack: publish with a payload guardrail, durable storage, forwarding to a downstream, read-back by cursor.',
  env,
  migrations,
  libsql: true,
  payloadTooLarge: () =>
    new Response(PAYLOAD_TOO_LARGE_TEXT, {
      status: 413,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    }),
  validate(config) {
    return config.MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES > config.SVC_MAX_BODY_BYTES
      ? [
          `MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: expected at most SVC_MAX_BODY_BYTES (${config.SVC_MAX_BODY_BYTES}), got ${config.MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES}`,
        ]
      : []
  },
  build(ctx) {
    const c = ctx.config
    const outbox = c.MAILBOX_DOWNSTREAM_URL
      ? createOutbox({
          name: 'mailbox:downstream',
          db: ctx.storage,
          log: ctx.log,
          registry: ctx.metrics.registry,
          pollMs: c.MAILBOX_OUTBOX_POLL_MS,
          targets: {
            [DOWNSTREAM]: { url: c.MAILBOX_DOWNSTREAM_URL, timeoutMs: c.MAILBOX_DOWNSTREAM_TIMEOUT_MS },
          },
        })
      : undefined
    const creds = mailboxCredentials(c.SVC_API_TOKEN)
    const routes = mailboxRoutes({
      storage: ctx.storage,
      maxPayloadBytes: c.MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES,
      creds,
      downstreamConfigured: outbox !== undefined,
      afterStore: () => outbox?.kick(),
    })
    return { routes, background: outbox ? [outbox] : [], securitySchemes: creds.securitySchemes }
  },
})

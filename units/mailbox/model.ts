import { t } from 'elysia'

export const TOPIC_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$'
export const MAX_HEADERS = 50

const Topic = t.String({
  pattern: TOPIC_PATTERN,
  description: 'letters, digits and . _ : / -, 1-200 characters',
})

/** Any JSON value but null: a string, number, boolean, object or array. */
const Message = t.Union(
  [t.String(), t.Number(), t.Boolean(), t.Array(t.Unknown()), t.Record(t.String(), t.Unknown())],
  {
    description: 'the message: any JSON value but null',
  },
)

const Headers = t.Record(t.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), t.String({ maxLength: 1024 }), {
  maxProperties: MAX_HEADERS,
  description: 'message headers (name to value), kept and forwarded with the message',
})

/** Unknown top-level fields are dropped (Elysia's default), not refused. */
export const PublishRequest = t.Object({ topic: Topic, message: Message, headers: t.Optional(Headers) })

export const PublishResponse = t.Object({
  ok: t.Literal(true),
  message_id: t.String(),
  topic: t.String(),
  size_bytes: t.Integer(),
  received_at: t.String(),
  forwarding: t.Union([t.Literal('queued'), t.Literal('not_configured')], {
    description: 'queued: the outbox forwards it to MAILBOX_DOWNSTREAM_URL; not_configured: stored only',
  }),
})

export const MessagesQuery = t.Object({
  topic: t.Optional(Topic),
  cursor: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', description: 'next_cursor of the previous page' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 100 })),
})

export const MessageView = t.Object({
  message_id: t.String(),
  topic: t.String(),
  message: t.Unknown(),
  headers: t.Record(t.String(), t.String()),
  size_bytes: t.Integer(),
  received_at: t.String(),
})

export const MessagesPage = t.Object({
  data: t.Array(MessageView),
  next_cursor: t.Union([t.String(), t.Null()], {
    description: 'pass as cursor for the next page; null at the end',
  }),
})

export const HealthResponse = t.Object({
  ok: t.Boolean(),
  status: t.Union([t.Literal('ok'), t.Literal('degraded')]),
  max_payload_bytes: t.Integer(),
  database: t.Boolean(),
  downstream: t.Object({
    configured: t.Boolean(),
    pending: t.Integer(),
    dead: t.Integer(),
    oldest_pending_at: t.Union([t.String(), t.Null()]),
  }),
})

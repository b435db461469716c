import { Elysia, t } from 'elysia'
import { credentials } from '../../common/credentials.ts'
import { errorResponses } from '../../common/errors.ts'
import { nowIso } from '../../common/time.ts'
import { outboxSummary } from '../../db/outbox.ts'
import { boundedSnapshot, snapshotView, writeCount } from '../../db/snapshot.ts'
import type { Storage } from '../../db/storage.ts'
import { payloadGuardrail } from './guardrail.ts'
import { HealthResponse, MessagesPage, MessagesQuery, PublishRequest, PublishResponse } from './model.ts'
import { DOWNSTREAM, readMessages, type StoredMessage, storeMessage } from './store.ts'

/** The bearer token shared with WTA (`SVC_API_TOKEN`): open when unset. */
export const mailboxCredentials = (token: string | undefined) =>
  credentials({
    bearer: { kind: 'bearer', tokens: [token], openWhenUnset: true, description: 'SVC_API_TOKEN (when set)' },
  })

export interface MailboxDeps {
  storage: Storage
  maxPayloadBytes: number
  creds: ReturnType<typeof mailboxCredentials>
  downstreamConfigured: boolean
  /** Called after a message is stored (wakes the outbox). */
  afterStore(): void
}

const view = (m: StoredMessage) => ({
  message_id: m.messageId,
  topic: m.topic,
  message: JSON.parse(m.message) as unknown,
  headers: m.headers,
  size_bytes: m.sizeBytes,
  received_at: m.receivedAt,
})

/** What /healthz answers: the database and the forwarding backlog, read now. */
async function readHealth(d: MailboxDeps) {
  const database = await d.storage.ready()
  const s = await outboxSummary(d.storage, DOWNSTREAM)
  return {
    ok: database,
    status: database && s.dead === 0 ? ('ok' as const) : ('degraded' as const),
    max_payload_bytes: d.maxPayloadBytes,
    database,
    downstream: {
      configured: d.downstreamConfigured,
      pending: s.pending,
      dead: s.dead,
      oldest_pending_at: s.oldestPendingAt,
    },
  }
}

export function mailboxRoutes(d: MailboxDeps) {
  const guardrail = payloadGuardrail(d.maxPayloadBytes)
  // Polled by probes: read at most once per STATUS_MAX_AGE_MS, and at once after this process wrote.
  const health = boundedSnapshot(() => readHealth(d), { version: writeCount(d.storage) })
  return new Elysia({ name: 'mailbox:routes' })
    .use(d.creds)
    .get('/healthz', snapshotView(HealthResponse, health), {
      response: { 200: HealthResponse },
      detail: { summary: 'Liveness, the payload limit and the forwarding backlog' },
    })
    .post(
      '/publish',
      async ({ body, request, set }) => {
        const stored = await storeMessage(
          d.storage,
          {
            topic: body.topic,
            message: body.message,
            headers: body.headers ?? {},
            sizeBytes: guardrail.sizeOf(request),
            receivedAt: nowIso(),
          },
          d.downstreamConfigured,
        )
        if (d.downstreamConfigured) d.afterStore()
        set.status = 202
        return {
          ok: true as const,
          message_id: stored.messageId,
          topic: stored.topic,
          size_bytes: stored.sizeBytes,
          received_at: stored.receivedAt,
          forwarding: d.downstreamConfigured ? ('queued' as const) : ('not_configured' as const),
        }
      },
      {
        parse: guardrail.parse,
        auth: 'bearer',
        body: PublishRequest,
        response: {
          202: PublishResponse,
          413: t.String({ description: 'the text `payload too large`' }),
          ...errorResponses(400, 401, 415),
        },
        detail: {
          summary: 'Publish a message to a topic',
          description:
            'The raw body is measured before parsing (chunked bodies too); over MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES the answer is 413 with the text body `payload too large`.',
        },
      },
    )
    .get(
      '/messages',
      async ({ query }) => {
        const limit = query.limit ?? 100
        const rows = await readMessages(d.storage, {
          topic: query.topic,
          afterSeq: query.cursor === undefined ? 0 : Number(query.cursor),
          limit,
        })
        const page = rows.slice(0, limit)
        const last = page.at(-1)
        return {
          data: page.map(view),
          next_cursor: rows.length > limit && last ? String(last.seq) : null,
        }
      },
      {
        auth: 'bearer',
        query: MessagesQuery,
        response: { 200: MessagesPage, ...errorResponses(400, 401) },
        detail: { summary: 'Read stored messages in arrival order, one page at a time' },
      },
    )
}

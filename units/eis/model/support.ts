import { t } from 'elysia'
import { ErrorEnvelope } from '../../../common/errors.ts'
import { DocName, lit, Message, Nullable } from './common.ts'

export const BusinessRef = t.Object({ doctype: t.String({ minLength: 1, maxLength: 140 }), name: DocName })
export const BusinessRefs = t.Array(BusinessRef, { maxItems: 50 })

export const SupportContextRequest = t.Object({ business_refs: BusinessRefs })

const Doc = t.Record(t.String(), t.Unknown())
export const HydratedRef = t.Object({
  doctype: t.String(),
  name: t.String(),
  found: t.Boolean(),
  missing_reason: Nullable(lit('missing_object', 'unsupported_doctype', 'backend_unavailable')),
  partial: t.Boolean({ description: 'found, but a linked document could not be read' }),
  missing_links: t.Array(t.Object({ field: t.String(), doctype: t.String(), name: t.String() })),
  doc: Nullable(Doc),
  linked: t.Record(t.String(), Doc),
})
export const ContextSummary = t.Object({
  requested: t.Integer(),
  found: t.Integer(),
  missing: t.Integer(),
  partial: t.Integer(),
})
export const SupportContextResponse = Message(
  t.Object({ objects: t.Array(HydratedRef), summary: ContextSummary }),
)

export const CorrelationEnvelope = t.Object(
  {
    correlation_id: t.String({ minLength: 1, maxLength: 200 }),
    source: t.Object(
      { system: t.String(), ticket_id: t.String(), event: t.String() },
      { additionalProperties: true },
    ),
    ticket: t.Object(
      {
        id: t.String(),
        state: t.String(),
        priority: t.String(),
        title: t.Optional(t.String()),
        article: t.Optional(t.String()),
      },
      { additionalProperties: true },
    ),
    business_refs: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { additionalProperties: true },
)

/** Zammad's ticket and message event, as the ticketing webhook delivers it. */
export const TicketingInbound = t.Object(
  {
    ticket_id: t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Integer({ minimum: 0 })]),
    event: t.String({ minLength: 1, maxLength: 100 }),
    state: t.String({ minLength: 1, maxLength: 64 }),
    priority: t.String({ minLength: 1, maxLength: 64 }),
    sequence: t.Integer({ minimum: 0 }),
    title: t.Optional(t.String({ maxLength: 500 })),
    article: t.Optional(
      t.Object(
        {
          id: t.Union([t.String({ maxLength: 100 }), t.Integer()]),
          body: t.String({ maxLength: 20_000 }),
          from: t.String({ maxLength: 500 }),
        },
        { additionalProperties: true },
      ),
    ),
    business_refs: t.Optional(BusinessRefs),
  },
  { additionalProperties: true },
)

export const Ordering = t.Object({
  sequence: t.Integer(),
  previous_sequence: Nullable(t.Integer()),
  position: lit('first', 'in_order', 'out_of_order', 'duplicate'),
  gap: t.Boolean({ description: 'sequences are missing between the previous and this one' }),
})

export const PlatformHandoff = t.Object({
  status: lit('delivered', 'failed', 'skipped'),
  reason: Nullable(t.String()),
  http_status: Nullable(t.Integer()),
  result: t.Optional(t.Unknown()),
})

const InboundResult = {
  event_audit_key: t.String(),
  correlation_envelope: CorrelationEnvelope,
  ordering: Ordering,
  context: ContextSummary,
  platform_handoff: PlatformHandoff,
}
export const TicketingInboundResponse = Message(t.Object({ ok: t.Literal(true), ...InboundResult }))
export const TicketingInboundFailure = t.Object(
  {
    error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }),
    ok: t.Literal(false),
    reason: t.Literal('platform_support_handoff_failed'),
    ...InboundResult,
  },
  { description: 'The handoff to PWS failed after the event was stored; the integration event is failed.' },
)

export const TicketingOutbound = t.Object({
  operation: lit('reply', 'note', 'status'),
  ticket_id: t.Union([
    t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
    t.Integer({ minimum: 1 }),
  ]),
  message: t.Optional(
    t.Object({
      body: t.String({ minLength: 1, maxLength: 100_000 }),
      subject: t.Optional(t.String({ maxLength: 500 })),
      content_type: t.Optional(lit('text/plain', 'text/html')),
    }),
  ),
  status: t.Optional(
    t.Object({
      state: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
      priority: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    }),
  ),
  correlation_envelope: t.Optional(CorrelationEnvelope),
})

const OutboundResult = {
  audit_event: t.String(),
  delivery: t.Object({
    status: lit('delivered', 'failed'),
    method: lit('POST', 'PUT'),
    path: t.String(),
    http_status: Nullable(t.Integer()),
    ticketing_id: Nullable(
      t.String({ description: 'the article or ticket id the ticketing system answered' }),
    ),
    reason: Nullable(t.String()),
  }),
  correlation_envelope: Nullable(CorrelationEnvelope),
}
export const TicketingOutboundResponse = Message(t.Object({ ok: t.Literal(true), ...OutboundResult }))
/**
 * The route's 503: `ticketing_delivery_failed` carries `ok: false` and the audit event beside the
 * error; `ticketing_not_configured` (nothing was attempted, nothing recorded) is the plain envelope.
 */
export const TicketingOutboundFailure = t.Union([
  t.Object({
    error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }),
    ok: t.Literal(false),
    ...OutboundResult,
  }),
  ErrorEnvelope,
])

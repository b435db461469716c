/**
 * Ticketing (Zammad) in and out. Inbound: persist first (idempotent per ticket, sequence and
 * event), order, hydrate, then hand off to PWS; the handoff must succeed or the answer is
 * ok=false with reason platform_support_handoff_failed and the event is failed (fail closed).
 * Outbound: replies and notes as ticket articles, status as a ticket update.
 */
import type { Static } from '@sinclair/typebox'
import { AppError, badRequest, unavailable } from '../../../common/errors.ts'
import { callPeer, type PeerResult } from '../../../common/peer.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { CorrelationEnvelope, TicketingInbound, TicketingOutbound } from '../model/support.ts'
import { asDuplicate, type Ordering, orderingOf } from '../rules/ordering.ts'
import * as store from '../store.ts'
import type { EisDeps } from './deps.ts'
import { acceptDelivery, type Effect } from './evidence.ts'
import { supportContext } from './support.ts'

export const INBOUND_SOURCE = 'support_cases.ticketing_inbound'
export const OUTBOUND_SOURCE = 'support_cases.ticketing_outbound'
export const HANDOFF_FAILED = 'platform_support_handoff_failed'

type Inbound = Static<typeof TicketingInbound>
type Envelope = Static<typeof CorrelationEnvelope>
type Handoff = {
  status: 'delivered' | 'failed' | 'skipped'
  reason: string | null
  http_status: number | null
  result?: unknown
}

/** One correlation per ticket: PWS keeps one piece of case-linked work per ticket and updates it. */
export const correlationId = (ticketId: string) => `ticketing:${ticketId}`

function envelopeOf(body: Inbound, refs: Awaited<ReturnType<typeof supportContext>>): Envelope {
  const ticketId = String(body.ticket_id)
  return {
    correlation_id: correlationId(ticketId),
    source: { system: 'ticketing', ticket_id: ticketId, event: body.event },
    ticket: {
      id: ticketId,
      state: body.state,
      priority: body.priority,
      ...(body.title !== undefined && { title: body.title }),
      ...(body.article !== undefined && { article: body.article.body }),
    },
    ...(body.business_refs &&
      body.business_refs.length > 0 && {
        business_refs: {
          items: refs.objects.map((o) => ({
            doctype: o.doctype,
            name: o.name,
            found: o.found,
            partial: o.partial,
            missing_reason: o.missing_reason,
          })),
          summary: refs.summary,
        },
      }),
  }
}

function handoffOf(answer: PeerResult<unknown>): Handoff {
  if (answer.ok) return { status: 'delivered', reason: null, http_status: answer.status, result: answer.body }
  return {
    status: 'failed',
    reason: `${answer.reason}: ${answer.message}`,
    http_status: answer.status ?? null,
  }
}

export async function ticketingInbound(deps: EisDeps, raw: string, body: Inbound) {
  const ticketId = String(body.ticket_id)
  const accepted = await acceptDelivery(
    deps.storage,
    { source: INBOUND_SOURCE, eventKey: `${ticketId}:${body.sequence}:${body.event}`, raw },
    async (tx, event, at): Promise<Effect> => {
      const ordering = orderingOf(body.sequence, await store.highestSequence(tx, ticketId))
      await store.insertTicketEvent(tx, {
        ticketId,
        sequence: body.sequence,
        event: body.event,
        integrationEvent: event,
        receivedAt: at,
      })
      return { status: 'received', outcome: { ordering } }
    },
  )
  const stored = accepted.event.outcome as { ordering: Ordering; platform_handoff?: Handoff }
  const ordering = accepted.duplicate ? asDuplicate(stored.ordering) : stored.ordering
  const context = await supportContext(deps, body.business_refs ?? [])
  const envelope = envelopeOf(body, context)
  const result = {
    event_audit_key: accepted.event.name,
    correlation_envelope: envelope,
    ordering,
    context: context.summary,
  }

  // A redelivery of an event already handed off is answered, not handed off again.
  if (accepted.duplicate && accepted.event.status === 'processed' && stored.platform_handoff) {
    return { ok: true as const, ...result, platform_handoff: stored.platform_handoff }
  }
  // A late state change would set the case back to an older state; a late message still carries news.
  let handoff: Handoff
  if (stored.ordering.position === 'out_of_order' && body.article === undefined) {
    handoff = { status: 'skipped', reason: 'out_of_order_state_change', http_status: null }
  } else if (!deps.supportHandoff.url || !deps.supportHandoff.token) {
    handoff = {
      status: 'failed',
      reason: 'not_configured: SVC_SUPPORT_HANDOFF_URL is not set',
      http_status: null,
    }
  } else {
    handoff = handoffOf(
      await callPeer({
        url: deps.supportHandoff.url,
        method: 'POST',
        json: envelope,
        headers: { authorization: `Bearer ${deps.supportHandoff.token}` },
        timeoutMs: deps.timeoutMs,
      }),
    )
  }
  const failed = handoff.status === 'failed'
  await store.settleEventNow(
    deps.storage,
    accepted.event.name,
    failed ? 'failed' : 'processed',
    { ordering: stored.ordering, platform_handoff: handoff },
    nowIso(),
  )
  if (failed) {
    deps.log.warn(
      { event: accepted.event.name, ticket_id: ticketId, reason: handoff.reason },
      'support handoff failed',
    )
    throw new AppError(
      503,
      HANDOFF_FAILED,
      'The platform support handoff failed; the event is stored and marked failed.',
      undefined,
      {
        ok: false,
        reason: HANDOFF_FAILED,
        ...result,
        platform_handoff: handoff,
      },
    )
  }
  return { ok: true as const, ...result, platform_handoff: handoff }
}

type Outbound = Static<typeof TicketingOutbound>

/** The ticketing system's request for an outbound operation. */
export function outboundRequest(body: Outbound): {
  method: 'POST' | 'PUT'
  path: string
  json: Record<string, unknown>
} {
  const ticketId =
    typeof body.ticket_id === 'number' || /^\d+$/.test(body.ticket_id)
      ? Number(body.ticket_id)
      : body.ticket_id
  if (body.operation === 'status') {
    if (!body.status || (body.status.state === undefined && body.status.priority === undefined)) {
      throw badRequest('status_missing', 'A status operation needs status.state or status.priority.')
    }
    return {
      method: 'PUT',
      path: `/api/v1/tickets/${encodeURIComponent(String(ticketId))}`,
      json: { ...body.status },
    }
  }
  if (!body.message) throw badRequest('message_missing', `A ${body.operation} needs message.body.`)
  const note = body.operation === 'note'
  return {
    method: 'POST',
    path: '/api/v1/ticket_articles',
    json: {
      ticket_id: ticketId,
      body: body.message.body,
      content_type: body.message.content_type ?? 'text/plain',
      type: note ? 'note' : 'web',
      internal: note,
      sender: 'Agent',
      ...(body.message.subject !== undefined && { subject: body.message.subject }),
    },
  }
}

/** Send one operation to the ticketing system and keep it as integration evidence either way. */
export async function ticketingOutbound(deps: EisDeps, body: Outbound) {
  const request = outboundRequest(body)
  if (!deps.ticketing.baseUrl || !deps.ticketing.token) {
    throw unavailable('ticketing_not_configured', 'ZAMMAD_BASE_URL and ZAMMAD_TOKEN are not set.')
  }
  const answer = await callPeer({
    url: `${deps.ticketing.baseUrl.replace(/\/$/, '')}${request.path}`,
    method: request.method,
    json: request.json,
    headers: { authorization: `Token token=${deps.ticketing.token}` },
    timeoutMs: deps.timeoutMs,
  })
  const answered = answer.ok ? (answer.body as { id?: unknown } | null) : null
  const delivery = {
    status: answer.ok ? ('delivered' as const) : ('failed' as const),
    method: request.method,
    path: request.path,
    http_status: answer.status ?? null,
    ticketing_id: answered && answered.id !== undefined ? String(answered.id) : null,
    reason: answer.ok ? null : `${answer.reason}: ${answer.message}`,
  }
  const raw = JSON.stringify({ operation: body.operation, ticket_id: body.ticket_id, request: request.json })
  const accepted = await acceptDelivery(
    deps.storage,
    { source: OUTBOUND_SOURCE, eventKey: newId(), raw },
    () => ({
      status: answer.ok ? 'processed' : 'failed',
      outcome: {
        delivery,
        ...(body.correlation_envelope && { correlation_id: body.correlation_envelope.correlation_id }),
      },
    }),
  )
  const result = {
    audit_event: accepted.event.name,
    delivery,
    correlation_envelope: body.correlation_envelope ?? null,
  }
  if (!answer.ok) {
    throw new AppError(
      503,
      'ticketing_delivery_failed',
      'The ticketing system did not accept the operation.',
      undefined,
      { ok: false, ...result },
    )
  }
  return { ok: true as const, ...result }
}

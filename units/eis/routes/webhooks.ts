/**
 * Signed inbound routes: the payment, supplier and contact webhooks, the ticketing webhook, and
 * the three callbacks. The signature is checked over the raw body before it is parsed; every
 * accepted delivery is kept as an Integration Event with its effect.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { rawBodyPlugin } from '../../../common/signature.ts'
import { replayable } from '../../../db/idempotency.ts'
import type { EisSignatures } from '../access.ts'
import {
  AutomationHilDecision,
  AutomationJobResult,
  CallbackAck,
  RuntimeHostApproval,
} from '../model/callbacks.ts'
import { message } from '../model/common.ts'
import { TicketingInbound, TicketingInboundFailure, TicketingInboundResponse } from '../model/support.ts'
import {
  ContactIntakeAck,
  PaymentAck,
  PaymentProviderAEvent,
  PaymentProviderBEvent,
  SupplierIntakeAck,
  SupplierIntakePayload,
  WebsiteContactIntake,
} from '../model/webhooks.ts'
import { P } from '../paths.ts'
import { automationHilDecision, automationJobResult, runtimeHostApproval } from '../service/callbacks.ts'
import type { EisDeps } from '../service/deps.ts'
import { intakeContact, intakePayment, intakeSupplier } from '../service/intake.ts'
import { ticketingInbound } from '../service/ticketing.ts'

const errors = errorResponses(400, 401, 413, 415, 503)
const callbackErrors = errorResponses(400, 401, 403, 404, 409, 413, 415, 503)

type SignedDeps = EisDeps & { signatures: EisSignatures }

export const webhookRoutes = (deps: SignedDeps) =>
  new Elysia({ name: 'eis:webhooks' })
    .use(deps.signatures)
    .use(rawBodyPlugin)
    .post(
      P('webhooks.payment_provider_a'),
      async ({ body, rawBody }) =>
        message(await intakePayment(deps.storage, 'payment_provider_a', rawBody.text, body)),
      {
        signed: 'paymentProviderA',
        body: PaymentProviderAEvent,
        response: { 200: PaymentAck, ...errors },
        detail: {
          summary:
            'Payment provider A event (X-Signature with PAYMENT_PROVIDER_A_WEBHOOK_SECRET); stages a revenue event once per event id',
        },
      },
    )
    .post(
      P('webhooks.payment_provider_b'),
      async ({ body, rawBody }) =>
        message(await intakePayment(deps.storage, 'payment_provider_b', rawBody.text, body)),
      {
        signed: 'paymentProviderB',
        body: PaymentProviderBEvent,
        response: { 200: PaymentAck, ...errors },
        detail: {
          summary:
            'Payment provider B event (X-Signature with PAYMENT_PROVIDER_B_WEBHOOK_SECRET); stages a revenue event once per event id',
        },
      },
    )
    .post(
      P('webhooks.supplier_intake'),
      async ({ body, rawBody }) => message(await intakeSupplier(deps.storage, rawBody.text, body)),
      {
        signed: 'automation',
        body: SupplierIntakePayload,
        response: { 200: SupplierIntakeAck, ...errors },
        detail: {
          summary:
            'Normalized supplier intake (X-Signature with AUTOMATION_SHARED_SECRET); stages a Supplier Intake once per intake_id (else per body)',
        },
      },
    )
    .post(
      P('webhooks.website_contact_intake'),
      async ({ body, rawBody }) => message(await intakeContact(deps.storage, rawBody.text, body, deps.erp)),
      {
        signed: 'erpApi',
        body: WebsiteContactIntake,
        response: { 200: ContactIntakeAck, ...errors },
        detail: {
          summary:
            'Website contact intake (X-Signature with ERP_API_SHARED_SECRET); creates or updates the Lead of the e-mail address once per platform_event.event_id',
        },
      },
    )
    .post(
      P('support_cases.ticketing_inbound'),
      async ({ body, rawBody }) => message(await ticketingInbound(deps, rawBody.text, body)),
      {
        signed: 'ticketing',
        body: TicketingInbound,
        response: {
          200: TicketingInboundResponse,
          ...errorResponses(400, 401, 413, 415),
          503: TicketingInboundFailure,
        },
        detail: {
          summary:
            'Ticketing event (X-Signature with TICKETING_WEBHOOK_SECRET, else AUTOMATION_SHARED_SECRET): persisted, ordered, hydrated, handed off to PWS',
          description:
            'A failed handoff answers 503 with ok=false, reason platform_support_handoff_failed beside the error; the event is stored and marked failed, and a redelivery retries the handoff.',
        },
      },
    )
    .use(callbackRoutes(deps))

type CallbackName = 'runtime_host_approval' | 'automation_job_result' | 'automation_hil_decision'

/**
 * The three callbacks: signed with AUTOMATION_SHARED_SECRET, optional `Idempotency-Key` on the
 * idempotency store (a replay answers the stored bytes, the same key with another body is 409).
 */
function callback<S extends TSchema>(
  deps: SignedDeps,
  name: CallbackName,
  body: S,
  run: (deps: EisDeps, raw: string, key: string | undefined, body: Static<S>) => Promise<unknown>,
  detail: { summary: string; description?: string },
) {
  return new Elysia({ name: `eis:callbacks.${name}` })
    .use(deps.signatures)
    .use(rawBodyPlugin)
    .post(
      P(`callbacks.${name}`),
      ({ body: parsed, rawBody, headers }) => {
        const key = headers['idempotency-key']
        return replayable(
          deps.storage,
          { scope: `callbacks.${name}`, key, request: rawBody.text },
          async () => ({
            status: 200,
            body: message(await run(deps, rawBody.text, key, parsed as Static<S>)),
          }),
        )
      },
      { signed: 'automation', body, response: { 200: CallbackAck, ...callbackErrors }, detail },
    )
}

const callbackRoutes = (deps: SignedDeps) =>
  new Elysia({ name: 'eis:callbacks' })
    .use(
      callback(deps, 'runtime_host_approval', RuntimeHostApproval, runtimeHostApproval, {
        summary: "The runtime host's decision on a packet, with the packet's callback token",
        description:
          '403 callback_token_mismatch; 404 packet_not_found; 409 packet_decided, packet_expired, packet_failed, idempotency_conflict.',
      }),
    )
    .use(
      callback(deps, 'automation_job_result', AutomationJobResult, automationJobResult, {
        summary: 'An automation job result by correlation_id (a failed job fails an open packet)',
      }),
    )
    .use(
      callback(deps, 'automation_hil_decision', AutomationHilDecision, automationHilDecision, {
        summary: 'A human-in-the-loop decision on an existing packet',
      }),
    )

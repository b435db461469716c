import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { EisCredentials } from '../access.ts'
import { message } from '../model/common.ts'
import {
  SupportContextRequest,
  SupportContextResponse,
  TicketingOutbound,
  TicketingOutboundFailure,
  TicketingOutboundResponse,
} from '../model/support.ts'
import { P } from '../paths.ts'
import type { EisDeps } from '../service/deps.ts'
import { supportContext } from '../service/support.ts'
import { ticketingOutbound } from '../service/ticketing.ts'

const errors = errorResponses(400, 401, 413, 415)

/** The internal support routes (ticketing_inbound is signed and lives with the webhooks). */
export const supportRoutes = (deps: EisDeps, access: EisCredentials) =>
  new Elysia({ name: 'eis:support' }).use(access).guard({ auth: 'internal' }, (app) =>
    app
      .post(
        P('support_cases.support_context'),
        async ({ body }) => message(await supportContext(deps, body.business_refs)),
        {
          body: SupportContextRequest,
          response: { 200: SupportContextResponse, ...errors },
          detail: {
            summary:
              'Hydrate business refs: found, missing (missing_reason) and partial (missing_links) markers',
          },
        },
      )
      .post(
        P('support_cases.ticketing_outbound'),
        async ({ body }) => message(await ticketingOutbound(deps, body)),
        {
          body: TicketingOutbound,
          response: { 200: TicketingOutboundResponse, ...errors, 503: TicketingOutboundFailure },
          detail: {
            summary: 'Send a reply, note or status to the ticketing system',
            description:
              'reply and note: POST /api/v1/ticket_articles; status: PUT /api/v1/tickets/{ticket_id}; header Authorization: Token token=<ZAMMAD_TOKEN>. 503 ticketing_not_configured, or ticketing_delivery_failed with ok=false and the audit event beside the error.',
          },
        },
      ),
  )

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { EisCredentials } from '../access.ts'
import { message } from '../model/common.ts'
import {
  ApprovalRequest,
  ApprovalResponse,
  DispatchRequest,
  DispatchResponse,
  PacketStatusRequest,
  PacketStatusResponse,
  PostingResponse,
  PostRevenueEventRequest,
  PostSupplierIntakeRequest,
  StagedApprovalRequest,
} from '../model/workflows.ts'
import { P } from '../paths.ts'
import {
  dispatchPacket,
  getPacket,
  requestApproval,
  requestRevenueEventApproval,
  requestSupplierIntakeApproval,
} from '../service/approvals.ts'
import type { EisDeps } from '../service/deps.ts'
import { postRevenueEvent, postSupplierIntake } from '../service/posting.ts'

const errors = errorResponses(400, 401, 404, 409, 413, 415, 422)

export const workflowRoutes = (deps: EisDeps, access: EisCredentials) =>
  new Elysia({ name: 'eis:workflows' }).use(access).guard({ auth: 'internal' }, (app) =>
    app
      .post(P('workflows.request_approval'), async ({ body }) => message(await requestApproval(deps, body)), {
        body: ApprovalRequest,
        response: { 200: ApprovalResponse, ...errors },
        detail: {
          summary: 'Open an approval packet for a document (404 target_not_found, 409 approval_already_open)',
        },
      })
      .post(
        P('workflows.request_supplier_intake_approval'),
        async ({ body }) => message(await requestSupplierIntakeApproval(deps, body)),
        {
          body: StagedApprovalRequest,
          response: { 200: ApprovalResponse, ...errors },
          detail: { summary: 'Open an approval packet for a Supplier Intake (moves it to pending_approval)' },
        },
      )
      .post(
        P('workflows.request_revenue_event_approval'),
        async ({ body }) => message(await requestRevenueEventApproval(deps, body)),
        {
          body: StagedApprovalRequest,
          response: { 200: ApprovalResponse, ...errors },
          detail: { summary: 'Open an approval packet for a Revenue Event (moves it to pending_approval)' },
        },
      )
      .post(
        P('workflows.dispatch_approval_packet'),
        async ({ body }) => message(await dispatchPacket(deps, body)),
        {
          body: DispatchRequest,
          response: { 200: DispatchResponse, ...errorResponses(400, 401, 404, 413, 415, 422, 503) },
          detail: {
            summary:
              'Record the packet on the runtime host (RMS execution approvals); 503 when RMS is unset or unreachable',
          },
        },
      )
      .post(
        P('workflows.approval_packet_status'),
        async ({ body }) => message(await getPacket(deps, body.packet)),
        {
          body: PacketStatusRequest,
          response: { 200: PacketStatusResponse, ...errors },
          detail: {
            summary:
              'An approval packet with its effective state (an open packet past expires_at reads expired)',
          },
        },
      )
      .post(
        P('workflows.post_supplier_intake'),
        async ({ body }) => message(await postSupplierIntake(deps, body)),
        {
          body: PostSupplierIntakeRequest,
          response: { 200: PostingResponse, ...errors },
          detail: {
            summary: 'Post an approved Supplier Intake as a draft Purchase Invoice',
            description:
              '422 approval_required (not approved and no force), approval_rejected, posting_error (kept on the intake, details carry posting_error).',
          },
        },
      )
      .post(
        P('workflows.post_revenue_event'),
        async ({ body }) => message(await postRevenueEvent(deps, body)),
        {
          body: PostRevenueEventRequest,
          response: { 200: PostingResponse, ...errors },
          detail: {
            summary:
              'Post a Revenue Event as a draft Sales Invoice (422 approval_pending, approval_rejected, posting_error)',
          },
        },
      ),
  )

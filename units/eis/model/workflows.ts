import { t } from 'elysia'
import { APPROVABLE_DOCTYPES } from '../rules/approval.ts'
import { APPROVAL_STATES } from '../tables.ts'
import { DocName, lit, Message, Nullable, Ts } from './common.ts'

const Context = t.Record(t.String({ maxLength: 100 }), t.Unknown(), {
  maxProperties: 50,
  description: 'free approval context (reason, amount, requested_by …)',
})
const ExpiresIn = t.Integer({
  minimum: 60,
  maximum: 2_592_000,
  description: 'seconds until the packet expires, default EIS_APPROVAL_TTL_S',
})

export const ApprovalRequest = t.Object({
  target_doctype: lit(...APPROVABLE_DOCTYPES),
  target_name: DocName,
  approval_context: t.Optional(Context),
  expires_in_s: t.Optional(ExpiresIn),
})

export const StagedApprovalRequest = t.Object({
  name: DocName,
  approval_context: t.Optional(Context),
  expires_in_s: t.Optional(ExpiresIn),
})

export const Packet = t.Object({
  name: t.String(),
  state: lit(...APPROVAL_STATES),
  target_doctype: t.String(),
  target_name: t.String(),
  approval_context: t.Record(t.String(), t.Unknown()),
  correlation_id: t.String(),
  expires_at: Ts,
  dispatch: Nullable(t.Record(t.String(), t.Unknown())),
  decision: Nullable(t.Record(t.String(), t.Unknown())),
  creation: Ts,
  modified: Ts,
})

export const ApprovalResponse = Message(
  t.Object({
    packet: Packet,
    callback_token: t.String({ description: 'shown once: the runtime host presents it on its callback' }),
    dispatch_bundle: t.Object({
      target: t.Literal('runtime_host'),
      request: t.Object({
        method: t.Literal('POST'),
        path: t.String(),
        body: t.Record(t.String(), t.Unknown()),
      }),
      callback: t.Record(t.String(), t.Unknown()),
      correlation_id: t.String(),
    }),
    runtime_host_configured: t.Boolean(),
  }),
)

export const DispatchRequest = t.Object({
  packet: DocName,
  dispatch_options: t.Optional(
    t.Object({
      redispatch: t.Optional(t.Boolean({ description: 'record on RMS again even when already dispatched' })),
    }),
  ),
})

export const DispatchResponse = Message(
  t.Object({ packet: Packet, dispatched: t.Boolean(), reason: Nullable(t.String()) }),
)

export const PostSupplierIntakeRequest = t.Object({ name: DocName, force: t.Optional(t.Boolean()) })
export const PostRevenueEventRequest = t.Object({ name: DocName })

export const PostingResponse = Message(
  t.Object({
    name: t.String(),
    status: t.Literal('posted'),
    invoice_doctype: lit('Purchase Invoice', 'Sales Invoice'),
    invoice: t.String(),
    docstatus: t.Literal(0),
    already_posted: t.Boolean(),
  }),
)

export const PacketStatusRequest = t.Object({ packet: DocName })
export const PacketStatusResponse = Message(Packet)

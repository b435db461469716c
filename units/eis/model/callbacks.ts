import { t } from 'elysia'
import { DocName, lit, Message } from './common.ts'
import { Packet } from './workflows.ts'

const Actor = t.Record(t.String({ maxLength: 100 }), t.Unknown(), {
  maxProperties: 50,
  description: 'who decided: subject, display name, channel …',
})
const Decision = lit('approved', 'rejected')

export const RuntimeHostApproval = t.Object({
  packet: DocName,
  callback_token: t.String({ minLength: 1, maxLength: 200 }),
  decision: Decision,
  actor: t.Optional(Actor),
})

export const AutomationJobResult = t.Object({
  correlation_id: t.String({ minLength: 1, maxLength: 200 }),
  dispatch_id: t.String({ minLength: 1, maxLength: 200 }),
  status: lit('succeeded', 'failed'),
  detail: t.Optional(t.Record(t.String({ maxLength: 100 }), t.Unknown(), { maxProperties: 50 })),
})

export const AutomationHilDecision = t.Object({
  packet: DocName,
  decision: Decision,
  actor: t.Optional(Actor),
})

export const CallbackAck = Message(
  t.Object({
    ok: t.Literal(true),
    integration_event: t.String(),
    packet: Packet,
    replay: t.Boolean({ description: 'the packet already had this decision; nothing changed' }),
  }),
)

/** Agents and handoffs (their fields are this project's choice: the spec does not show them). */
import { t } from 'elysia'
import { lit, Nullable, PageQuery, ProjectId, Text, Ts } from './common.ts'
import { TaskKey } from './tasks.ts'

export const AgentKey = t.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$',
  description: 'agent key: letters, digits, dot, dash, underscore, @; 1-100 chars',
})

export const Agent = t.Object({
  agent_key: t.String(),
  display_name: t.String(),
  kind: t.String(),
  open_handoffs_in: t.Integer(),
  open_handoffs_out: t.Integer(),
  created_at: Ts,
})
export const AgentList = t.Object({ items: t.Array(Agent), next_cursor: Nullable(t.String()) })
export const AgentListQuery = t.Object(PageQuery)
export const CreateAgentRequest = t.Object({
  agent_key: AgentKey,
  display_name: Text(200, 'display name'),
  kind: t.Optional(lit('human', 'automation')),
})

export const HandoffState = lit('open', 'accepted', 'rejected', 'expired')
export const Handoff = t.Object({
  handoff_id: t.String(),
  project_id: t.String(),
  task_key: t.String(),
  from_agent: t.String(),
  to_agent: t.String(),
  summary: t.String(),
  state: HandoffState,
  reason: Nullable(t.String()),
  expires_at: Nullable(Ts),
  created_at: Ts,
  decided_at: Nullable(Ts),
})
export const HandoffList = t.Object({ items: t.Array(Handoff), next_cursor: Nullable(t.String()) })
export const HandoffListQuery = t.Object({ ...PageQuery, state: t.Optional(HandoffState) })
export const CreateHandoffRequest = t.Object({
  task_key: TaskKey,
  from_agent: AgentKey,
  to_agent: AgentKey,
  summary: Text(2000, 'what the receiving agent needs to know'),
  expires_in_s: t.Optional(
    t.Integer({ minimum: 60, maximum: 2_592_000, description: 'seconds until it expires' }),
  ),
})
export const HandoffParams = t.Object({ project_id: ProjectId, handoff_id: t.String({ format: 'uuid' }) })
export const HandoffDecision = t.Object({ reason: t.Optional(Text(1000, 'why')) })
export const HandoffAction = lit('accept', 'reject', 'expire')
export const HandoffActionParams = t.Object({
  project_id: ProjectId,
  handoff_id: t.String({ format: 'uuid' }),
  action: HandoffAction,
})

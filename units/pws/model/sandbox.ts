/** Adapter sandbox writes (spec: request and response fields; bounds are this project's). */
import { t } from 'elysia'
import { SANDBOX_LIMITS } from '../rules/sandbox.ts'
import { AgentKey } from './agents.ts'
import { lit, Nullable, ProjectId, Ts } from './common.ts'
import { TaskKey } from './tasks.ts'

const L = SANDBOX_LIMITS
const Str = (max: number, description: string) => t.String({ minLength: 1, maxLength: max, description })

export const Scenario = lit('project', 'support', 'qa', 'release')
export const IdempotencyKey = t.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$',
  description: 'letters, digits, dot, colon, dash, underscore; 1-200 chars',
})

export const OwnerAttribution = t.Object({
  owner_repo: Str(200, 'owner/name of the owner repository'),
  owner_actor: Str(200, 'who asked for the write'),
  owner_reason: Str(1000, 'why'),
})

export const HandoffContext = t.Object({
  handoff_id: t.String({ format: 'uuid' }),
  task_key: TaskKey,
  from_agent: AgentKey,
  to_agent: AgentKey,
})

/** One operation shape for every scenario; which fields each scenario needs is checked by the service. */
export const SandboxOperation = t.Object({
  task_key: TaskKey,
  title: Str(500, 'task title'),
  lane: t.Optional(t.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' })),
  status: t.Optional(Str(64, 'task status')),
  ticket_id: t.Optional(Str(200, 'support: the ticket id')),
  ticket_state: t.Optional(Str(64, 'support: the ticket state')),
  check_key: t.Optional(Str(200, 'qa: the check')),
  outcome: t.Optional(lit('passed', 'failed')),
  tag: t.Optional(Str(200, 'release: the release tag')),
})

export const SandboxWriteRequest = t.Object({
  scenario: Scenario,
  idempotency_key: IdempotencyKey,
  timeout_ms: t.Integer({ minimum: L.timeoutMs.min, maximum: L.timeoutMs.max, description: 'ms 100-30000' }),
  retry: t.Object({
    max_attempts: t.Integer({ minimum: L.maxAttempts.min, maximum: L.maxAttempts.max, description: '1-5' }),
    backoff_ms: t.Integer({ minimum: L.backoffMs.min, maximum: L.backoffMs.max, description: 'ms 0-5000' }),
  }),
  owner_attribution: OwnerAttribution,
  handoff_context: t.Optional(HandoffContext),
  operation: SandboxOperation,
  dry_run: t.Optional(t.Boolean({ description: 'check every rule, write nothing' })),
})

const EchoedHandoff = t.Object({
  handoff_id: t.String(),
  task_key: t.String(),
  from_agent: t.String(),
  to_agent: t.String(),
  status: t.String(),
  ownership_link_state: t.String(),
})

export const SandboxWriteResponse = t.Object({
  project_id: t.String(),
  scenario: t.String(),
  idempotency_key: t.String(),
  status: lit('applied', 'dry_run'),
  idempotent_replay: t.Boolean(),
  attempts: t.Integer(),
  timeout_ms: t.Integer(),
  owner_attribution: OwnerAttribution,
  handoff_context: Nullable(EchoedHandoff),
  readback: t.Object({
    target_type: t.String(),
    target_key: t.String(),
    target_summary: t.Object({
      task_key: t.String(),
      lane: t.String(),
      status: t.String(),
      version_token: Nullable(Ts),
      handoff_context: Nullable(EchoedHandoff),
    }),
  }),
  evidence: t.Object({
    event: t.Literal('adapter_sandbox_write_applied'),
    project_id: t.String(),
    handoff: Nullable(EchoedHandoff),
    applied_at: Ts,
  }),
})

export const SandboxReadParams = t.Object({
  project_id: ProjectId,
  scenario: Scenario,
  idempotency_key: IdempotencyKey,
})

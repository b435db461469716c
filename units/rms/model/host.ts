/**
 * The runtime host's configuration files, as TypeBox schemas. The host directory holds one JSON
 * file per resource (`agents/<agent_id>.json`, …) plus `host.json`; RMS validates every file
 * against these schemas and reports the ones that do not match instead of guessing.
 */
import { Type } from '@sinclair/typebox'
import { type Static, t } from 'elysia'
import { lit } from '../../../common/schema.ts'

const Id = (description: string) => t.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', description })
export const AgentClass = lit('root', 'coordinator', 'worker')
export const LifecycleState = lit('active', 'draining', 'zombie', 'retired')
export const SandboxApproval = lit('not_required', 'required', 'human_required')
export const EscalationMode = lit('none', 'parent_agent', 'human_operator')

export const HostDoc = t.Object(
  {
    host_id: Id('runtime host id'),
    federation_id: Id('federation id'),
    runtime_mode: lit('federated', 'standalone'),
    persistence_mode: lit('workspace_files', 'ephemeral'),
    default_voice_target: t.Union([Id('voice target id'), t.Null()]),
  },
  { additionalProperties: false },
)

export const ClassTransition = t.Object(
  {
    from_class: AgentClass,
    to_class: AgentClass,
    state: lit('requested', 'in_progress', 'completed', 'failed'),
    requested_at: t.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)

export const ToolPolicyOverride = t.Object(
  {
    sandbox_approval: t.Optional(SandboxApproval),
    max_changes_per_run: t.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    escalation_mode: t.Optional(EscalationMode),
    escalation_target: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 120 }), t.Null()])),
  },
  { additionalProperties: false },
)

export const Workspace = t.Object(
  {
    workspace_id: Id('workspace id'),
    path: t.String({
      pattern: '^workspaces/[a-z0-9][a-z0-9._-]{0,62}$',
      description: 'relative to the host',
    }),
    retention_days: Type.Integer({ minimum: 1, maximum: 3650 }),
  },
  { additionalProperties: false },
)

export const Learning = t.Object(
  {
    mode: lit('proposal_review', 'frozen'),
    settings: t.Record(t.String(), t.Unknown()),
    active_proposal_id: t.Optional(t.String()),
  },
  { additionalProperties: false },
)

export const AgentDoc = t.Object(
  {
    agent_id: Id('agent id'),
    agent_slug: Id('agent slug'),
    display_name: t.String({ minLength: 1, maxLength: 200 }),
    agent_class: AgentClass,
    parent_agent_id: t.Union([Id('parent agent id'), t.Null()]),
    team_id: t.Union([Id('team id'), t.Null()]),
    domain_id: t.Union([Id('domain id'), t.Null()]),
    lifecycle_state: LifecycleState,
    persistent: t.Boolean(),
    tool_profile: t.Union([Id('tool profile id'), t.Null()]),
    voice_target: t.Union([Id('voice target id'), t.Null()]),
    class_transition: t.Optional(ClassTransition),
    tool_policy: t.Optional(ToolPolicyOverride),
    workspace: t.Optional(Workspace),
    learning: t.Optional(Learning),
  },
  { additionalProperties: false },
)

export const TeamDoc = t.Object(
  {
    team_id: Id('team id'),
    title: t.String({ minLength: 1, maxLength: 200 }),
    assignment_mode: lit('explicit'),
    delegation_scope: lit('same_team', 'cross_team', 'federation'),
    max_depth: Type.Integer({ minimum: 1, maximum: 8 }),
    same_team_handoff: lit('direct', 'require_acceptance'),
    cross_team_handoff: lit('deny', 'require_acceptance', 'escalate_only'),
    transitions: t.Object(
      {
        accept: lit('receiver_confirms', 'auto_accept'),
        reject: lit('return_to_sender', 'escalate'),
        expire_after_s: Type.Integer({ minimum: 60, maximum: 604800 }),
        escalate_to: lit('parent_agent', 'human_operator', 'team_lead'),
      },
      { additionalProperties: false },
    ),
    circular_handoff: lit('fail_closed'),
    projection_posture: t.Object(
      { missing: lit('fail_closed'), stale: lit('fail_closed'), conflicting: lit('fail_closed') },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

export const ToolProfileDoc = t.Object(
  {
    profile_id: Id('tool profile id'),
    title: t.String({ minLength: 1, maxLength: 200 }),
    tools: t.Array(t.String({ minLength: 1, maxLength: 120 }), { maxItems: 200 }),
    sandbox_approval: SandboxApproval,
    bounded_change_scope: t.Object(
      {
        max_changes_per_run: Type.Integer({ minimum: 0, maximum: 1000 }),
        paths: t.Array(t.String({ minLength: 1, maxLength: 300 }), { maxItems: 100 }),
      },
      { additionalProperties: false },
    ),
    escalation_mode: EscalationMode,
    escalation_target: t.Union([t.String({ minLength: 1, maxLength: 120 }), t.Null()]),
    stale_projection_action: lit('fail_closed'),
  },
  { additionalProperties: false },
)

export const VoiceGovernance = t.Object(
  {
    identity_lifecycle_state: lit('draft', 'active', 'suspended', 'retired'),
    consent: t.Object(
      {
        granted_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
        expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
        reconsent_triggers: t.Array(t.String({ minLength: 1, maxLength: 120 }), { maxItems: 50 }),
      },
      { additionalProperties: false },
    ),
    rerecord_triggers: t.Array(t.String({ minLength: 1, maxLength: 120 }), { maxItems: 50 }),
    reclone_triggers: t.Array(t.String({ minLength: 1, maxLength: 120 }), { maxItems: 50 }),
    brand_voice_pack: t.Union([t.String({ minLength: 1, maxLength: 120 }), t.Null()]),
    inheritance: t.Object(
      { tenant: lit('inherit', 'override', 'locked'), team: lit('inherit', 'override', 'locked') },
      { additionalProperties: false },
    ),
    retention: t.Object(
      {
        retention_days: Type.Integer({ minimum: 1, maximum: 3650 }),
        deletion_policy: lit('delete_on_retire', 'retain_for_audit'),
      },
      { additionalProperties: false },
    ),
    audit_history_refs: t.Array(t.String({ minLength: 1, maxLength: 300 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
)

export const VoiceTargetDoc = t.Object(
  {
    target_id: Id('voice target id'),
    title: t.String({ minLength: 1, maxLength: 200 }),
    provider: t.String({ minLength: 1, maxLength: 120 }),
    voice_id: t.String({ minLength: 1, maxLength: 200 }),
    locale: t.String({ minLength: 2, maxLength: 35 }),
    governance: VoiceGovernance,
  },
  { additionalProperties: false },
)

export const AgentTemplate = t.Object(
  {
    agent_id: Id('agent id'),
    agent_slug: Id('agent slug'),
    display_name: t.String({ minLength: 1, maxLength: 200 }),
    agent_class: AgentClass,
    parent_agent_id: t.Union([Id('parent agent id'), t.Null()]),
    persistent: t.Boolean(),
    tool_profile: t.Union([Id('tool profile id'), t.Null()]),
    voice_target: t.Union([Id('voice target id'), t.Null()]),
  },
  { additionalProperties: false },
)

export const DomainDoc = t.Object(
  {
    domain_id: Id('domain id'),
    title: t.String({ minLength: 1, maxLength: 200 }),
    keywords: t.Array(t.String({ minLength: 1, maxLength: 60 }), { maxItems: 100 }),
    team_id: t.Union([Id('team id'), t.Null()]),
    profiles: t.Array(
      t.Object(
        {
          profile_id: Id('domain profile id'),
          title: t.String({ minLength: 1, maxLength: 200 }),
          description: t.String({ maxLength: 2000 }),
          agents: t.Array(AgentTemplate, { maxItems: 50 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  { additionalProperties: false },
)

export const DelegationDoc = t.Object(
  {
    delegation_id: Id('delegation id'),
    from_agent_id: Id('agent id'),
    to_agent_id: Id('agent id'),
    scope: lit('same_team', 'cross_team'),
    depth: Type.Integer({ minimum: 1, maximum: 16 }),
    state: lit('proposed', 'accepted', 'rejected', 'expired', 'escalated'),
    created_at: t.String({ format: 'date-time' }),
    expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { additionalProperties: false },
)

export type HostDoc = Static<typeof HostDoc>
export type AgentDoc = Static<typeof AgentDoc>
export type TeamDoc = Static<typeof TeamDoc>
export type ToolProfileDoc = Static<typeof ToolProfileDoc>
export type VoiceTargetDoc = Static<typeof VoiceTargetDoc>
export type DomainDoc = Static<typeof DomainDoc>
export type DelegationDoc = Static<typeof DelegationDoc>
export type AgentTemplate = Static<typeof AgentTemplate>

/** Every kind of file on the host: where it lives and which field is its id (= file name). */
export const KINDS = {
  host: { dir: null, idField: 'host_id', schema: HostDoc },
  agent: { dir: 'agents', idField: 'agent_id', schema: AgentDoc },
  team: { dir: 'teams', idField: 'team_id', schema: TeamDoc },
  tool_profile: { dir: 'tool-profiles', idField: 'profile_id', schema: ToolProfileDoc },
  voice_target: { dir: 'voice-targets', idField: 'target_id', schema: VoiceTargetDoc },
  domain: { dir: 'domains', idField: 'domain_id', schema: DomainDoc },
  delegation: { dir: 'delegations', idField: 'delegation_id', schema: DelegationDoc },
} as const

export type ResourceKind = keyof typeof KINDS
export const RESOURCE_KINDS = Object.keys(KINDS) as ResourceKind[]
export const ResourceKindSchema = lit(...(RESOURCE_KINDS as [ResourceKind, ...ResourceKind[]]))

/** The host file's resource id is fixed: there is one host.json. */
export const HOST_RESOURCE_ID = 'host'

/** TypeBox schemas of RMS's wire resources, named after the spec's Resources part. */
import { type TProperties, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { lit } from '../../common/schema.ts'
import { AuthorityMark } from './authority.ts'
import {
  AgentClass,
  AgentDoc,
  ClassTransition,
  DelegationDoc,
  DomainDoc,
  EscalationMode,
  LifecycleState,
  ResourceKindSchema,
  SandboxApproval,
  TeamDoc,
  ToolProfileDoc,
  VoiceTargetDoc,
} from './model/host.ts'

const Nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()])
const Ts = t.String({ description: 'ISO 8601 UTC timestamp' })

/** An internal answer: the payload plus the authority it was decided with. */
export const Marked = <P extends TProperties>(props: P, description?: string) =>
  t.Object({ ...props, ...AuthorityMark }, description ? { description } : {})

export const Severity = lit('low', 'medium', 'high', 'critical')
export const SeverityOrNone = lit('none', 'low', 'medium', 'high', 'critical')
export const Limit = t.Integer({ minimum: 1, maximum: 500, default: 100, description: '1-500, default 100' })

// ---------- self-description ----------

export const Health = t.Object({
  status: t.Literal('ok'),
  service: t.Literal('rms'),
  version: t.String(),
  checked_at: Ts,
})

export const Ready = t.Object({
  status: lit('ready', 'degraded', 'not_ready'),
  service: t.Literal('rms'),
  checked_at: Ts,
  warnings: t.Array(t.String()),
  capability_keys: t.Array(t.String()),
  self_description: t.Object({
    health: t.String(),
    version: t.String(),
    manifest: t.String(),
    openapi: t.String(),
  }),
  authority: t.Object({
    mode: lit('projection', 'local'),
    authority_source: lit('projection', 'local'),
    projection_layer_configured: t.Boolean(),
    projection_layer_reachable: Nullable(t.Boolean()),
    last_success_at: Nullable(t.String()),
    last_failure_at: Nullable(t.String()),
    last_error: Nullable(t.String()),
    tool_policy_projection: t.Object({
      state: lit('current', 'stale', 'missing', 'local'),
      version: Nullable(t.String()),
      fetched_at: Nullable(t.String()),
      agents: Type.Integer(),
    }),
    last_resolved_projection_version: Nullable(t.String()),
    cache: t.Object({
      entries: Type.Integer(),
      max_age_s: Type.Integer(),
      degraded_max_age_s: Type.Integer(),
    }),
    degraded: t.Boolean(),
    writes: lit('available', 'fail_closed'),
  }),
  persistence: t.Object({
    database: t.Boolean(),
    mode: lit('durable', 'ephemeral'),
    migration_head: t.String(),
  }),
  // No directory path here: /ready is open. The authenticated inventory carries host_dir.
  runtime_host: t.Object({
    readable: t.Boolean(),
    error: Nullable(t.String()),
    seeded_from_example: t.Boolean(),
  }),
  control_agent: t.Object({
    loop_running: t.Boolean(),
    holds_lease: t.Boolean(),
    watchdog: lit('ok', 'stalled', 'overdue', 'standby'),
  }),
})

export const Version = t.Object({
  service: t.Literal('rms'),
  version: t.String(),
  api_version: t.Literal('v1'),
  api_anchor: t.Literal('/api/v1'),
  commit: t.String(),
  image_tag: t.String(),
  branch_tag: t.Literal('main'),
  migration_head: t.String(),
  manifest: t.Object({ path: t.String(), manifest_version: t.String() }),
  version_sources: t.Array(t.String()),
})

export const Manifest = t.Object(
  {
    manifest_version: t.String(),
    service: t.Object({}, { additionalProperties: true }),
    compatibility: t.Object(
      {
        manifest_v2_claim_owner_projection: t.Object({}, { additionalProperties: true }),
        agent_tool_policy_projection: t.Object({}, { additionalProperties: true }),
      },
      { additionalProperties: true },
    ),
    runtime_contract: t.Object(
      {
        port_policy: t.Object({
          policy: t.Literal('static-required'),
          published_host_port: Type.Integer(),
          container_port: Type.Integer(),
          discovery: t.String(),
        }),
        published_host_port: Type.Integer(),
        container_port: Type.Integer(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
)

// ---------- classification and setup ----------

export const ClassifyRequest = t.Object(
  {
    text: t.String({ minLength: 1, maxLength: 10_000, description: 'the work to classify' }),
  },
  { additionalProperties: false },
)

export const ClassificationResult = Marked({
  status: lit('classified', 'ambiguous', 'unclassified'),
  domain_id: Nullable(t.String()),
  confidence: t.Number(),
  candidates: t.Array(
    t.Object({
      domain_id: t.String(),
      matched_keywords: t.Array(t.String()),
      score: Type.Integer(),
      confidence: t.Number(),
    }),
  ),
  eligible_agent_ids: t.Array(t.String()),
})

export const DomainSummary = t.Object({
  domain_id: t.String(),
  title: t.String(),
  keywords: t.Array(t.String()),
  team_id: Nullable(t.String()),
  profile_ids: t.Array(t.String()),
  agent_ids: t.Array(t.String()),
})

export const DomainList = Marked({ items: t.Array(DomainSummary), count: Type.Integer() })
export const DomainProfiles = Marked({
  domain_id: t.String(),
  items: DomainDoc.properties.profiles,
  count: Type.Integer(),
})

export const SetupPreviewRequest = t.Object(
  {
    domain_id: t.String({ minLength: 1, maxLength: 63 }),
    profile_id: t.String({ minLength: 1, maxLength: 63 }),
  },
  { additionalProperties: false },
)
export const SetupRequest = t.Object(
  { profile_id: t.String({ minLength: 1, maxLength: 63 }) },
  { additionalProperties: false },
)

export const PatchOperationView = t.Object({
  op: lit('create', 'update', 'delete'),
  kind: ResourceKindSchema,
  resource_id: t.String(),
  file: t.String(),
  reason: lit('missing_on_host', 'unmanaged_on_host', 'changed', 'invalid_on_host'),
  severity: Severity,
  document_hash: Nullable(t.String()),
})

const SetupAgents = t.Array(t.Object({ agent_id: t.String(), action: lit('create', 'update', 'unchanged') }))

export const SetupPreview = Marked({
  domain_id: t.String(),
  profile_id: t.String(),
  agents: SetupAgents,
  changes: Type.Integer(),
  reference_problems: t.Array(t.String()),
  operations: t.Array(PatchOperationView),
})

// ---------- runtime inventory, topology, drift ----------

export const InvalidFileView = t.Object({
  kind: ResourceKindSchema,
  id: t.String(),
  file: t.String(),
  reason: t.String(),
})

export const Inventory = Marked({
  host_id: Nullable(t.String()),
  federation_id: Nullable(t.String()),
  runtime_mode: Nullable(lit('federated', 'standalone')),
  persistence_mode: Nullable(lit('workspace_files', 'ephemeral')),
  desired_state_persistence: lit('durable', 'ephemeral'),
  host_dir: t.String(),
  readable: t.Boolean(),
  error: Nullable(t.String()),
  scanned_at: Ts,
  host_hash: t.String(),
  counts: t.Record(t.String(), Type.Integer()),
  agents: t.Array(
    t.Object({
      agent_id: t.String(),
      agent_slug: t.String(),
      agent_class: AgentClass,
      lifecycle_state: LifecycleState,
      persistent: t.Boolean(),
      team_id: Nullable(t.String()),
      domain_id: Nullable(t.String()),
      tool_profile: Nullable(t.String()),
      voice_target: Nullable(t.String()),
    }),
  ),
  tool_profile_ids: t.Array(t.String()),
  voice_target_ids: t.Array(t.String()),
  domain_ids: t.Array(t.String()),
  team_ids: t.Array(t.String()),
  delegation_ids: t.Array(t.String()),
  invalid_files: t.Array(InvalidFileView),
})

const TopologyNode = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  agent_class: AgentClass,
  team_id: Nullable(t.String()),
  lifecycle_state: LifecycleState,
})
const TopologyEdge = t.Object({
  kind: lit('parent', 'delegation'),
  from: t.String(),
  to: t.String(),
  id: t.String(),
})
export const TopologyBody = {
  nodes: t.Array(TopologyNode),
  edges: t.Array(TopologyEdge),
  teams: t.Record(t.String(), t.Array(t.String())),
}

export const Topology = Marked({ source: lit('runtime_host', 'desired_state_fallback'), ...TopologyBody })

export const TopologyDiff = Marked({
  in_sync: t.Boolean(),
  nodes_added: t.Array(t.String()),
  nodes_removed: t.Array(t.String()),
  edges_added: t.Array(TopologyEdge),
  edges_removed: t.Array(TopologyEdge),
  nodes_changed: t.Array(t.Object({ agent_id: t.String(), fields: t.Array(t.String()) })),
})

export const DriftEntryView = t.Object({
  kind: ResourceKindSchema,
  resource_id: t.String(),
  drift: lit('missing_on_host', 'unmanaged_on_host', 'changed', 'invalid_on_host'),
  severity: Severity,
  fields: t.Array(t.String()),
  desired_hash: Nullable(t.String()),
  actual_hash: Nullable(t.String()),
  reason: Nullable(t.String()),
})

export const DriftSummary = Marked({
  state: lit('in_sync', 'drifted', 'unknown'),
  severity: SeverityOrNone,
  total: Type.Integer(),
  counts: t.Object({
    low: Type.Integer(),
    medium: Type.Integer(),
    high: Type.Integer(),
    critical: Type.Integer(),
  }),
  items: t.Array(DriftEntryView),
  host_hash: t.String(),
  checked_at: Ts,
  last_reconcile: Nullable(
    t.Object({ run_id: t.String(), finished_at: Nullable(t.String()), outcome: t.String() }),
  ),
})

export const Change = t.Union([
  t.Object(
    {
      op: t.Literal('upsert'),
      kind: ResourceKindSchema,
      resource_id: t.String({
        pattern: '^[a-z0-9][a-z0-9._-]{0,62}$',
        description: 'the resource id (file name)',
      }),
      document: t.Record(t.String(), t.Unknown()),
    },
    { additionalProperties: false },
  ),
  t.Object(
    {
      op: t.Literal('remove'),
      kind: ResourceKindSchema,
      resource_id: t.String({
        pattern: '^[a-z0-9][a-z0-9._-]{0,62}$',
        description: 'the resource id (file name)',
      }),
    },
    { additionalProperties: false },
  ),
])

export const PatchPlanRequest = t.Object(
  {
    changes: t.Optional(t.Array(Change, { maxItems: 200 })),
    prune_unmanaged: t.Optional(t.Boolean({ default: false })),
  },
  { additionalProperties: false },
)

export const PlanBody = {
  plan_id: t.String(),
  plan_hash: t.String(),
  status: t.Literal('planned'),
  created_at: Ts,
  created_by: t.String(),
  base_host_hash: t.String(),
  prune_unmanaged: t.Boolean(),
  changes: Type.Integer(),
  operations: t.Array(PatchOperationView),
  skipped: t.Array(
    t.Object({ kind: ResourceKindSchema, resource_id: t.String(), drift: t.String(), severity: Severity }),
  ),
  noop: t.Boolean(),
}
export const PatchPlan = Marked(PlanBody)

export const PatchApplyRequest = t.Object(
  {
    plan_id: t.String({ minLength: 1, maxLength: 64 }),
    plan_hash: t.Optional(t.String({ pattern: '^[0-9a-f]{64}$' })),
  },
  { additionalProperties: false },
)

export const RolloutView = t.Object({
  rollout_id: t.String(),
  plan_id: t.String(),
  status: lit('applied', 'failed'),
  actor: t.String(),
  started_at: Ts,
  finished_at: Ts,
  operations: t.Array(PatchOperationView),
  host_hash_before: t.String(),
  host_hash_after: Nullable(t.String()),
  error: Nullable(t.String()),
})

const DriftState = t.Object({
  state: lit('in_sync', 'drifted', 'unknown'),
  severity: SeverityOrNone,
  total: Type.Integer(),
  counts: t.Object({
    low: Type.Integer(),
    medium: Type.Integer(),
    high: Type.Integer(),
    critical: Type.Integer(),
  }),
})

export const PatchApplied = Marked({ rollout: RolloutView, drift: DriftState })

export const SetupResult = Marked({
  domain_id: t.String(),
  profile_id: t.String(),
  agents: SetupAgents,
  plan: t.Object(PlanBody),
  rollout: Nullable(RolloutView),
  drift: DriftState,
})

// ---------- audit and rollout ----------

export const AuditEvent = t.Object({
  event_id: t.String(),
  recorded_at: Ts,
  kind: t.String(),
  subject: t.String(),
  authority_source: t.String(),
  resource_kind: Nullable(t.String()),
  resource_id: Nullable(t.String()),
  outcome: t.String(),
  details: t.Record(t.String(), t.Unknown()),
})
export const AuditQuery = t.Object({
  kind: t.Optional(
    t.String({ minLength: 1, maxLength: 100, description: 'event kind prefix, e.g. rollout.' }),
  ),
  before: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'event_id cursor (exclusive)' })),
  limit: t.Optional(Limit),
})
export const AuditList = Marked({
  events: t.Array(AuditEvent),
  count: Type.Integer(),
  next_before: Nullable(t.String()),
})
export const LimitQuery = t.Object({ limit: t.Optional(Limit) })
export const RolloutHistory = Marked({
  items: t.Array(RolloutView),
  count: Type.Integer(),
  total: Type.Integer(),
})

// ---------- control agent ----------

export const LeaseView = t.Object({
  name: t.String(),
  holder: Nullable(t.String()),
  held: t.Boolean(),
  held_by_this_instance: t.Boolean(),
  acquired_at: Nullable(t.String()),
  renewed_at: Nullable(t.String()),
  expires_at: Nullable(t.String()),
  duration_s: Type.Integer(),
  renew_count: Type.Integer(),
  generation: Type.Integer(),
})
export const LeaseTransitionView = t.Object({
  lease: t.String(),
  at: Ts,
  transition: lit('acquired', 'taken_over', 'released'),
  from_holder: Nullable(t.String()),
  to_holder: Nullable(t.String()),
  generation: Type.Integer(),
})
export const ReconcileRunView = t.Object({
  run_id: t.String(),
  holder: t.String(),
  trigger: lit('schedule', 'manual'),
  started_at: Ts,
  finished_at: Nullable(t.String()),
  outcome: lit('running', 'ok', 'failed'),
  drift_items: Nullable(Type.Integer()),
  max_severity: Nullable(t.String()),
  host_hash: Nullable(t.String()),
  error: Nullable(t.String()),
})
export const WatchdogBody = {
  state: lit('ok', 'stalled', 'overdue', 'standby'),
  detail: t.String(),
  running_for_s: Nullable(Type.Integer()),
  seconds_since_last_reconcile: Type.Integer(),
  stall_after_s: Type.Integer(),
  check_interval_s: Type.Integer(),
  last_check_at: Nullable(t.String()),
}
export const Watchdog = Marked(WatchdogBody)
export const ScheduleBody = {
  reconcile_interval_s: Type.Integer(),
  minimum_interval_s: Type.Integer(),
  lease_duration_s: Type.Integer(),
  watchdog_interval_s: Type.Integer(),
  loop_running: t.Boolean(),
  next_run_at: Nullable(t.String()),
  last_run: Nullable(ReconcileRunView),
}
export const Schedule = Marked(ScheduleBody)
export const ControlStatus = Marked({
  instance: t.String(),
  started_at: Ts,
  holds_lease: t.Boolean(),
  lease: Nullable(LeaseView),
  running: Nullable(t.Object({ run_id: t.String(), started_at: Ts })),
  recent_runs: t.Array(ReconcileRunView),
  watchdog: t.Object(WatchdogBody),
  schedule: t.Object(ScheduleBody),
})
export const Leases = Marked({
  instance: t.String(),
  items: t.Array(LeaseView),
  transitions: t.Array(LeaseTransitionView),
})
export const ReconcileResult = Marked({
  outcome: lit('reconciled', 'failed', 'already_running'),
  run: Nullable(ReconcileRunView),
  lease: LeaseView,
})
export const DispatchPreviewRequest = t.Object(
  {
    text: t.Optional(t.String({ minLength: 1, maxLength: 10_000 })),
    domain_id: t.Optional(t.String({ minLength: 1, maxLength: 63 })),
  },
  { additionalProperties: false },
)
export const DispatchPreview = Marked({
  dispatched: t.Literal(false),
  domain_id: Nullable(t.String()),
  classification: Nullable(lit('classified', 'ambiguous', 'unclassified', 'explicit')),
  federation_state: t.String(),
  selected_agent_id: Nullable(t.String()),
  refused_reason: Nullable(t.String()),
  candidates: t.Array(
    t.Object({
      agent_id: t.String(),
      agent_slug: t.String(),
      eligible: t.Boolean(),
      reasons: t.Array(t.String()),
    }),
  ),
})

// ---------- federation ----------

export const FederatedAgentView = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  agent_class: AgentClass,
  parent_agent_id: Nullable(t.String()),
  parentage_status: lit(
    'root',
    'attached',
    'orphaned',
    'ambiguous',
    'cyclic',
    'unrooted',
    'unresolved_ancestor',
  ),
  root_agent_id: Nullable(t.String()),
  depth: Nullable(Type.Integer()),
  team_id: Nullable(t.String()),
  domain_id: Nullable(t.String()),
  lifecycle_state: LifecycleState,
  persistent: t.Boolean(),
  admitted: t.Boolean(),
  lockout_reasons: t.Array(t.String()),
})

export const FederationBody = {
  contract_version: t.String(),
  federation_id: Nullable(t.String()),
  source: lit('runtime_host', 'desired_state_fallback'),
  federation_state: lit('federated', 'multi_root', 'degraded', 'fail_closed', 'empty'),
  fail_closed: t.Boolean(),
  root_agent_ids: t.Array(t.String()),
  primary_root_agent_id: Nullable(t.String()),
  class_transition_state: lit('stable', 'transitioning', 'blocked'),
  class_transitions: t.Array(t.Object({ agent_id: t.String(), ...ClassTransition.properties })),
  fail_closed_markers: t.Array(
    t.Object({ marker: t.String(), agent_ids: t.Array(t.String()), effect: t.String() }),
  ),
  agents: t.Array(FederatedAgentView),
}
export const Catalog = Marked(FederationBody)

export const ReadinessView = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  ready: t.Boolean(),
  reasons: t.Array(t.String()),
})

export const CatalogAgent = Marked({
  agent: AgentDoc,
  federation: FederatedAgentView,
  readiness: ReadinessView,
  federation_state: t.String(),
})

export const HandoffPolicyView = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  team_id: Nullable(t.String()),
  team_assignment_mode: lit('explicit', 'unassigned'),
  delegation_scope: TeamDoc.properties.delegation_scope,
  max_depth: Type.Integer(),
  same_team_handoff: TeamDoc.properties.same_team_handoff,
  cross_team_handoff: TeamDoc.properties.cross_team_handoff,
  transitions: TeamDoc.properties.transitions,
  circular_handoff: t.Literal('fail_closed'),
  projection_posture: TeamDoc.properties.projection_posture,
  state: lit('active', 'fail_closed'),
  fail_closed_reason: Nullable(t.String()),
})
export const HandoffPolicies = Marked({ items: t.Array(HandoffPolicyView), count: Type.Integer() })
export const HandoffPolicy = Marked({ policy: HandoffPolicyView })

export const Delegations = Marked({ items: t.Array(DelegationDoc), count: Type.Integer() })
export const DelegationStateView = t.Object({
  delegation_id: t.String(),
  from_agent_id: t.String(),
  to_agent_id: t.String(),
  scope: lit('same_team', 'cross_team'),
  depth: Type.Integer(),
  declared_state: DelegationDoc.properties.state,
  effective_state: lit(
    'proposed',
    'accepted',
    'rejected',
    'expired',
    'escalated',
    'blocked',
    'escalation_required',
  ),
  blocked_reasons: t.Array(t.String()),
  created_at: Ts,
  expires_at: Nullable(t.String()),
})
export const DelegationState = Marked({
  items: t.Array(DelegationStateView),
  counts: t.Record(t.String(), Type.Integer()),
  federation_state: t.String(),
})
export const AgentReadiness = Marked({
  status: lit('ready', 'degraded', 'not_ready'),
  federation_state: t.String(),
  ready_count: Type.Integer(),
  not_ready_count: Type.Integer(),
  items: t.Array(ReadinessView),
})

// ---------- persistent agents and learning proposals ----------

export const WorkspaceView = t.Object({
  agent_slug: t.String(),
  agent_id: t.String(),
  workspace_id: Nullable(t.String()),
  path: Nullable(t.String()),
  retention_days: Nullable(Type.Integer()),
  present: t.Boolean(),
  state: lit('present', 'missing', 'undeclared'),
})

export const PersistentAgentView = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  display_name: t.String(),
  lifecycle_state: LifecycleState,
  team_id: Nullable(t.String()),
  domain_id: Nullable(t.String()),
  admitted: t.Boolean(),
  lockout_reasons: t.Array(t.String()),
  learning: t.Object({
    mode: lit('proposal_review', 'frozen', 'undeclared'),
    settings: t.Record(t.String(), t.Unknown()),
    active_proposal_id: Nullable(t.String()),
    pending_proposals: Type.Integer(),
  }),
  workspace: WorkspaceView,
})
export const PersistentAgents = Marked({ items: t.Array(PersistentAgentView), count: Type.Integer() })
export const PersistentAgent = Marked({ agent: PersistentAgentView })
export const Workspaces = Marked({ items: t.Array(WorkspaceView), count: Type.Integer() })

export const LearningChange = t.Object(
  {
    summary: t.String({ minLength: 1, maxLength: 500 }),
    settings: t.Record(t.String(), t.Unknown(), {
      description: 'keys merged into the agent learning settings on activation',
    }),
    rationale: t.Optional(t.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
)
export const CreateProposalRequest = t.Object({ change: LearningChange }, { additionalProperties: false })
export const ReviewRequest = t.Object(
  { decision: lit('approved', 'rejected'), reason: t.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
)
export const ProposalView = t.Object({
  proposal_id: t.String(),
  agent_slug: t.String(),
  agent_id: t.String(),
  change: LearningChange,
  change_hash: t.String(),
  proposer: t.String(),
  state: lit('pending_review', 'approved', 'rejected'),
  terminal: t.Boolean(),
  created_at: Ts,
  review: Nullable(
    t.Object({
      reviewer: t.String(),
      decision: lit('approved', 'rejected'),
      reason: t.String(),
      reviewed_at: Ts,
    }),
  ),
  activation: Nullable(t.Object({ activated_by: t.String(), activated_at: Ts })),
})
export const Proposal = Marked({ proposal: ProposalView })
export const Proposals = Marked({
  agent_slug: t.String(),
  proposals: t.Array(ProposalView),
  count: Type.Integer(),
})
export const ProposalActivated = Marked({
  proposal: ProposalView,
  plan: t.Object(PlanBody),
  rollout: RolloutView,
})

// ---------- tool profiles and policies ----------

export const ToolProfiles = Marked({ items: t.Array(ToolProfileDoc), count: Type.Integer() })
export const AgentToolPolicyView = t.Object({
  agent_id: t.String(),
  agent_slug: t.String(),
  tool_profile_id: Nullable(t.String()),
  tools: t.Array(t.String()),
  sandbox_approval_posture: SandboxApproval,
  bounded_change_scope: t.Object({ max_changes_per_run: Type.Integer(), paths: t.Array(t.String()) }),
  escalation_mode: EscalationMode,
  escalation_target: Nullable(t.String()),
  stale_projection_action: t.Literal('fail_closed'),
  state: lit('active', 'fail_closed'),
  fail_closed_reason: Nullable(t.String()),
  projection: t.Object({
    state: lit('current', 'stale', 'missing', 'local'),
    version: Nullable(t.String()),
    agent_projected: t.Boolean(),
    agent_lane_read: t.Boolean(),
  }),
  policy_hash: t.String(),
})
export const AgentToolPolicies = Marked({ items: t.Array(AgentToolPolicyView), count: Type.Integer() })
export const AgentToolPolicy = Marked({ policy: AgentToolPolicyView })

// ---------- voice ----------

export const VoiceTargets = Marked({
  targets: t.Array(VoiceTargetDoc),
  count: Type.Integer(),
  default_target: Nullable(t.String()),
})
export const VoiceTarget = Marked({
  target: VoiceTargetDoc,
  resolution: lit('default', 'agent'),
  agent_slug: Nullable(t.String()),
  usable: t.Boolean(),
})
export const VoiceGovernanceView = t.Object({
  target_id: t.String(),
  identity_lifecycle_state: lit('draft', 'active', 'suspended', 'retired'),
  consent_state: lit('valid', 'expired', 'missing'),
  consent_granted_at: Nullable(t.String()),
  consent_expires_at: Nullable(t.String()),
  reconsent_required: t.Boolean(),
  reconsent_triggers: t.Array(t.String()),
  rerecord_triggers: t.Array(t.String()),
  reclone_triggers: t.Array(t.String()),
  brand_voice_pack: Nullable(t.String()),
  inheritance: VoiceTargetDoc.properties.governance.properties.inheritance,
  retention: VoiceTargetDoc.properties.governance.properties.retention,
  audit_history_refs: t.Array(t.String()),
  usable: t.Boolean(),
})
export const LibraryGovernance = Marked({
  items: t.Array(VoiceGovernanceView),
  count: Type.Integer(),
  reconsent_required: t.Array(t.String()),
})

// ---------- execution approvals (ALS approval lane) ----------

export const ApprovalRecordRequest = t.Object(
  {
    approval_id: t.Optional(t.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' })),
    proposal_ref: t.String({ minLength: 1, maxLength: 256 }),
    decision: lit('approved', 'rejected', 'pending'),
    policy_approved: t.Boolean(),
    human_approved: t.Boolean(),
    valid_for_s: t.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 2_592_000,
        description: 'seconds until stale, default RMS_APPROVAL_TTL_S',
      }),
    ),
  },
  { additionalProperties: false },
)
export const ApprovalBody = {
  approval_id: t.String(),
  proposal_ref: t.String(),
  decision: lit('approved', 'rejected', 'pending'),
  policy_approved: t.Boolean(),
  human_approved: t.Boolean(),
  decided_at: Nullable(t.String()),
  stale: t.Boolean(),
}
export const Approval = Marked({ ...ApprovalBody, decided_by: t.String(), recorded_at: Ts, expires_at: Ts })
export const Approvals = Marked({
  items: t.Array(t.Object({ ...ApprovalBody, decided_by: t.String(), recorded_at: Ts, expires_at: Ts })),
  count: Type.Integer(),
})

export { AgentDoc, ClassTransition }

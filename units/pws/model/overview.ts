/** Project views: active workflow summary (every field of the spec's table), doctor, dashboard. */
import { t } from 'elysia'
import { lit, Nullable, Ts } from './common.ts'
import { RepoRef } from './tasks.ts'

const Strings = t.Array(t.String())
const Open = (props: Parameters<typeof t.Object>[0]) => t.Object(props, { additionalProperties: true })

export const ActiveWorkflow = t.Object({
  workspace_model: t.String({
    description: 'single_primary_repo when a primary repository is bound, else unbound',
  }),
  primary_repo_ref: RepoRef,
  supported_work_classes: Strings,
  state_contract: Open({ priority_order: Strings }),
  mutation_contract: t.Object({
    requires_expected_version: t.Boolean(),
    silent_overwrite: t.Boolean(),
    manual_override_requirements: Strings,
  }),
  sync_contract: t.Object({
    git_inbound: t.String(),
    git_poll_fallback_minutes: t.Integer(),
    webhook_liveness_supported: t.Boolean(),
  }),
  platform_consumer_contract: t.Object({
    available: t.Boolean(),
    state: lit('healthy', 'degraded', 'blocked'),
    contract_family: t.String(),
    workflow_scope: t.String(),
    workflow_wave: t.String(),
    case_linked_work_semantics: Strings,
    lifecycle_states: Strings,
    writeback_rules: t.Array(t.Object({ name: t.String() })),
    failure_heatmap: Open({ heatmap_mode: t.String() }),
    case_timeline: Open({ timeline_mode: t.String() }),
  }),
  platform_combination_profiles: t.Object({
    available: t.Boolean(),
    state: t.String(),
    contract_family: t.String(),
    owner_repo: t.String(),
    consumer_repository: t.String(),
    relevant_profile_keys: Strings,
    required_profile_keys: Strings,
    optional_profile_keys: Strings,
    published_invariant_keys: Strings,
  }),
  planning_platform_drift: Open({ state: t.String(), partial_visibility: t.Boolean() }),
  external_truth_summary: Open({ state: t.String(), external_truth: t.Boolean() }),
  case_linked_lifecycle: Open({ states: Strings }),
  writeback_guardrails: t.Object({
    requires_expected_version: t.Boolean(),
    allowed_remediation_actions: Strings,
  }),
  workspace_risks: t.Object({ duplicate_attachment_risk: t.Boolean() }),
  lifecycle_visibility: t.Object({ source_missing_count: t.Integer() }),
  branch_pr_pressure: t.Object({ actionable_review_pressure: t.Integer() }),
})

export const Doctor = t.Object({
  project_id: t.String(),
  status: lit('ok', 'warning', 'error'),
  error_count: t.Integer(),
  warning_count: t.Integer(),
  checks: t.Array(t.Object({ name: t.String(), status: lit('ok', 'warning', 'error'), message: t.String() })),
  checked_at: Ts,
})

const IntegrationState = t.Object({
  configured: t.Boolean(),
  webhook_verified: t.Boolean(),
  repository: Nullable(t.String()),
  last_webhook_at: Nullable(t.String()),
  last_poll_at: Nullable(t.String()),
  last_result: Nullable(t.String()),
  last_error: Nullable(t.String()),
})

export const OperatorDashboard = t.Object({
  project_id: t.String(),
  mode: lit('live', 'sandbox'),
  doctor: Doctor,
  integrations: t.Record(t.String(), IntegrationState),
  open_handoffs: t.Integer(),
})

/** Delivery views (the spec's review queue, branch queue, release readiness and health summary). */
import { t } from 'elysia'
import { lit, Nullable, ProjectId, Ts } from './common.ts'
import { Task } from './tasks.ts'

const Int = t.Integer()
const Strings = t.Array(t.String())
const LinkedTask = t.Object({ task_key: t.String(), lane: t.String() })

export const ProviderName = lit('github', 'gitlab', 'gitea')
export const ItemParams = t.Object({
  project_id: ProjectId,
  provider: ProviderName,
  external_id: t.String({ pattern: '^[0-9]{1,12}$', description: 'the pull (merge) request number' }),
})
export const BranchParams = t.Object({
  project_id: ProjectId,
  provider: ProviderName,
  branch_name: t.String({ minLength: 1, maxLength: 250, description: 'the branch name (URL-encoded)' }),
})
export const ProviderParams = t.Object({ project_id: ProjectId, provider: ProviderName })

export const DeliveryList = t.Object({
  project_id: t.String(),
  items: t.Array(
    t.Object(
      {
        provider: t.String(),
        external_id: t.String(),
        repository_label: t.String(),
        state: t.String(),
        observed_at: Ts,
        version_token: Ts,
      },
      { additionalProperties: true },
    ),
  ),
})

export const ReviewQueue = t.Object({
  project_id: t.String(),
  items: t.Array(
    t.Object({
      provider: t.String(),
      external_id: t.String(),
      repository_label: t.String(),
      title: t.String(),
      url: Nullable(t.String()),
      author: Nullable(t.String()),
      draft: t.Boolean(),
      review_decision: t.String(),
      approval_count: Int,
      requested_reviewer_count: Int,
      changes_requested_count: Int,
      comment_count: Int,
      actionable: t.Boolean(),
      risky: t.Boolean(),
      cycle_keys: Strings,
      module_keys: Strings,
      linked_tasks: t.Array(LinkedTask),
      version_token: Ts,
    }),
  ),
  repository_groups: t.Array(t.Object({ repository_label: t.String(), count: Int })),
  cycle_groups: t.Array(t.Object({ cycle_key: t.String(), count: Int })),
  module_groups: t.Array(t.Object({ module_key: t.String(), count: Int })),
})

export const BranchQueue = t.Object({
  project_id: t.String(),
  items: t.Array(
    t.Object({
      provider: t.String(),
      repository_label: t.String(),
      name: t.String(),
      freshness_state: lit('stale', 'aging', 'fresh', 'default'),
      age_days: Int,
      last_commit_at: Nullable(t.String()),
      risk_reasons: Strings,
      linked_tasks: t.Array(LinkedTask),
    }),
  ),
  repository_groups: t.Array(t.Object({ repository_label: t.String(), count: Int })),
  freshness_groups: t.Array(t.Object({ freshness_state: t.String(), count: Int })),
})

export const ReleaseReadiness = t.Object({
  project_id: t.String(),
  items: t.Array(
    t.Object({
      provider: t.String(),
      external_id: t.String(),
      name: t.String(),
      tag: t.String(),
      gate_state: lit('blocked', 'review', 'ready', 'published'),
      cycle_key: Nullable(t.String()),
      module_key: Nullable(t.String()),
      latest_pipeline_status: Nullable(t.String()),
      latest_deployment_status: Nullable(t.String()),
      linked_review_count: Int,
      risky_review_count: Int,
      gate_reasons: Strings,
    }),
  ),
  blocked_count: Int,
  review_count: Int,
  ready_count: Int,
  published_count: Int,
})

export const HealthSummary = t.Object({
  project_id: t.String(),
  failing_pipelines: Int,
  failed_deployments: Int,
  active_environments: Int,
  releases_needing_attention: Int,
  latest_pipeline_green: t.Boolean(),
  deployment_healthy: t.Boolean(),
  risky_reviews_unresolved: t.Boolean(),
  open_handoffs: Int,
  doctor_errors: Int,
})

export const ReviewActionRequest = t.Object({
  state_action: t.String({ minLength: 1, maxLength: 64, description: 'close or reopen' }),
  actor: t.String({ minLength: 1, maxLength: 200 }),
  expected_version: t.Optional(t.String({ maxLength: 40, description: 'the item version_token last read' })),
})

export const ReviewActionResponse = t.Object({
  provider: t.String(),
  external_id: t.String(),
  requested_actions: Strings,
  applied: t.Boolean(),
  details: t.Object({ state: t.String() }),
  expected_version: Nullable(t.String()),
  current_version: Ts,
  readback_required: t.Boolean(),
  writeback_guard_state: t.String(),
  workflow_state: t.String(),
  external_truth_state: t.String(),
  consumer_remediation_actions: Strings,
})

export const LinkedTaskResponse = t.Object({ created: t.Boolean(), task: Task })

export const SyncResult = t.Object({
  project_id: t.String(),
  sync_mode: t.String(),
  result: t.Object({}, { additionalProperties: true }),
})

export const WebhookResult = t.Object({
  accepted: t.Boolean(),
  provider: t.String(),
  repository: t.String(),
  projects: t.Array(t.Object({ project_id: t.String(), result: t.String() }, { additionalProperties: true })),
})

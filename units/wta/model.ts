/**
 * WTA's route schemas. Every success body is an `Answer` (service/answer.ts); the `data` schemas
 * name the fields clients rely on and leave room for more (`additionalProperties`), since the
 * spec leaves field-level shapes open.
 */
import type { TProperties } from '@sinclair/typebox'
import { t as T } from 'elysia'
import { Severity } from './catalog/index.ts'
import { WorkflowContext } from './rules/context.ts'
import { VERSION_PATTERN } from './rules/versions.ts'
import { Answer } from './service/answer.ts'

const Open = (props: TProperties, description?: string) =>
  T.Object(props, { additionalProperties: true, description })
const Nullable = <S extends Parameters<typeof T.Union>[0][number]>(s: S) => T.Union([s, T.Null()])

const Automation = Open({
  configured: T.Boolean(),
  url: Nullable(T.String()),
  reachable: T.Boolean(),
  status: Nullable(T.String()),
  reason: Nullable(T.String()),
})

export const HealthAnswer = Answer(Open({ api: T.Literal('ok'), automation: Automation }), {
  automation_reachable: T.Boolean(),
})

export const StatusAnswer = Answer(
  Open({
    operator: Open({
      auth: T.Union([T.Literal('open'), T.Literal('bearer')]),
      observers_enabled: T.Boolean(),
    }),
    runtime: Open({ suite_version: T.String(), automation: Automation }),
    catalog: Open({ node_types_n8n_version: T.String(), breaking_changes_version: T.String() }),
    upgrade: Open({ latest_known_upstream: Nullable(T.String()) }),
    platform: Open({ api_surface_version: T.String(), stability: T.Literal('pilot') }),
  }),
  { automation_reachable: T.Boolean() },
)

export const BaselineAnswer = Answer(
  Open({
    baseline_id: T.Integer(),
    taken_at: T.String(),
    catalog_n8n_version: T.String(),
    workflows: T.Integer(),
    nodes: T.Integer(),
    node_types: T.Array(
      Open({
        node_type: T.String(),
        nodes: T.Integer(),
        workflows: T.Integer(),
        known: T.Boolean(),
        deprecated: T.Boolean(),
      }),
    ),
  }),
)

export const UpstreamAnswer = Answer(
  Open({ version: T.String(), published_at: Nullable(T.String()), checked_at: T.String() }),
)

export const HotspotsQuery = T.Object({
  hours: T.Optional(
    T.Integer({
      minimum: 1,
      maximum: 720,
      description: 'window in hours (default WTA_HOTSPOT_WINDOW_HOURS)',
    }),
  ),
  limit: T.Optional(T.Integer({ minimum: 1, maximum: 100, default: 10 })),
})

const Hotspot = Open({
  workflow_id: T.String(),
  failures: T.Integer(),
  avg_ms: Nullable(T.Number()),
  max_ms: Nullable(T.Number()),
})
export const HotspotsAnswer = Answer(
  Open({
    window_hours: T.Integer(),
    since: T.String(),
    until: T.String(),
    executions: T.Integer(),
    failures: T.Integer(),
    failing_workflows: T.Array(Hotspot),
    slow_workflows: T.Array(Hotspot),
    failing_nodes: T.Array(Hotspot),
    slow_nodes: T.Array(Hotspot),
  }),
)

export const WorkflowsAnswer = Answer(
  Open({
    count: T.Integer(),
    workflows: T.Array(
      Open({
        id: T.String(),
        name: T.String(),
        active: T.Boolean(),
        nodes: T.Integer(),
        tags: T.Array(T.String()),
        content_hash: T.String(),
      }),
    ),
  }),
)

export const WorkflowId = T.Object({
  id: T.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
})

export const WorkflowAnswer = Answer(
  Open({
    workflow: Open({
      id: T.String(),
      name: T.String(),
      nodes: T.Array(T.Unknown()),
      connections: T.Unknown(),
    }),
    history: T.Array(T.Object({ content_hash: T.String(), taken_at: T.String() })),
  }),
)

export const ContextAnswer = Answer(WorkflowContext)

export const ValidationAnswer = Answer(
  Open({
    workflow_id: T.String(),
    name: T.String(),
    valid: T.Boolean(),
    errors: T.Integer(),
    warnings: T.Integer(),
    catalog_n8n_version: T.String(),
    issues: T.Array(
      T.Object({
        code: T.String(),
        severity: T.Union([T.Literal('error'), T.Literal('warning')]),
        node: Nullable(T.String()),
        message: T.String(),
      }),
    ),
  }),
)

const Version = T.String({ pattern: VERSION_PATTERN, description: 'an n8n version x.y.z' })

export const ImpactRequest = T.Object({
  target_version: T.Optional(Version),
  from_version: T.Optional(T.String({ ...Version, description: 'defaults to the running version' })),
})

export const TargetQuery = T.Object({ target_version: T.Optional(Version) })

const Range = { catalog_version: T.String(), from_version: T.String(), target_version: T.String() }

export const ImpactAnswer = Answer(
  Open({
    ...Range,
    workflows: T.Array(
      Open({
        workflow_id: T.String(),
        name: T.String(),
        active: T.Boolean(),
        max_severity: Nullable(Severity),
        auto_migratable: T.Boolean(),
        affected_nodes: T.Array(
          Open({
            node: T.String(),
            node_type: T.String(),
            change_id: T.String(),
            severity: Severity,
            auto_migratable: T.Boolean(),
          }),
        ),
      }),
    ),
    totals: Open({ workflows: T.Integer(), affected_workflows: T.Integer(), affected_nodes: T.Integer() }),
  }),
)

export const SummaryAnswer = Answer(
  Open({
    catalog_version: T.String(),
    current_version: T.String(),
    target_version: T.String(),
    up_to_date: T.Boolean(),
    recommendation: T.Union(
      ['up_to_date', 'upgrade_ready', 'plan_manual_work', 'blocked'].map((r) => T.Literal(r)),
    ),
  }),
)

export const BacklogAnswer = Answer(
  Open({
    ...Range,
    count: T.Integer(),
    items: T.Array(Open({ workflow_id: T.String(), node: T.String(), severity: Severity })),
  }),
)

export const BatchesAnswer = Answer(
  Open({
    ...Range,
    batches: T.Array(Open({ batch: T.Integer(), key: T.String(), workflows: T.Array(T.Unknown()) })),
  }),
)

export const AlertsAnswer = Answer(
  Open({
    count: T.Integer(),
    critical: T.Integer(),
    alerts: T.Array(
      Open({
        code: T.String(),
        severity: T.Union([T.Literal('info'), T.Literal('warning'), T.Literal('critical')]),
        message: T.String(),
      }),
    ),
  }),
)

export const ReportAnswer = Answer(
  Open({
    report_id: T.Integer(),
    created_at: T.String(),
    trigger: T.String(),
    catalog_version: T.String(),
    summary: T.Unknown(),
  }),
)

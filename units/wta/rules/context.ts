/**
 * The WorkflowContext document: what an operator (or an assistant) needs to reason about one
 * workflow without opening n8n: its nodes with their catalog facts, its connections, triggers,
 * credentials and webhooks, and its validation summary. The JSON Schema is served at
 * /api/v1/workflow-context.schema.json; every built document is checked against it in tests.
 */
import { type Static, Type as T } from '@sinclair/typebox'
import type { NodeTypesCatalog } from '../catalog/index.ts'
import type { N8nWorkflow } from '../service/automation.ts'
import { edgesOf, isTrigger, type ValidationResult } from './validate.ts'

export const WORKFLOW_CONTEXT_SCHEMA_ID = 'wta.workflow-context/1'

const Nullable = <S extends Parameters<typeof T.Union>[0][number]>(s: S) => T.Union([s, T.Null()])

export const WorkflowContext = T.Object(
  {
    schema: T.Literal(WORKFLOW_CONTEXT_SCHEMA_ID),
    generated_at: T.String({ format: 'date-time' }),
    workflow: T.Object({
      id: T.String(),
      name: T.String(),
      active: T.Boolean(),
      tags: T.Array(T.String()),
      created_at: Nullable(T.String()),
      updated_at: Nullable(T.String()),
    }),
    source: T.Object({
      kind: T.Union([T.Literal('live'), T.Literal('snapshot')], {
        description: 'live: read from the tool now; snapshot: WTA’s stored copy',
      }),
      content_hash: T.String({ pattern: '^[0-9a-f]{64}$' }),
      snapshot_taken_at: Nullable(T.String()),
    }),
    nodes: T.Array(
      T.Object({
        name: T.String(),
        type: T.String(),
        type_version: Nullable(T.Number()),
        disabled: T.Boolean(),
        trigger: T.Boolean(),
        known: T.Boolean(),
        deprecated: T.Boolean(),
        credentials: T.Array(T.String()),
      }),
    ),
    connections: T.Array(
      T.Object({
        from: T.String(),
        to: T.String(),
        kind: T.String(),
        output: T.Integer(),
        input: T.Integer(),
      }),
    ),
    triggers: T.Array(T.String()),
    credentials: T.Array(
      T.Object({ type: T.String(), name: Nullable(T.String()), nodes: T.Array(T.String()) }),
    ),
    webhooks: T.Array(
      T.Object({
        node: T.String(),
        path: Nullable(T.String()),
        method: Nullable(T.String()),
        enabled: T.Boolean(),
      }),
      { description: 'inbound webhook contracts of the workflow (monitored, not called)' },
    ),
    validation: T.Object({
      valid: T.Boolean(),
      errors: T.Integer(),
      warnings: T.Integer(),
      codes: T.Array(T.String()),
    }),
  },
  {
    $id: 'https://svc.local/wta/workflow-context.schema.json',
    title: 'WorkflowContext',
    additionalProperties: false,
  },
)
export type WorkflowContext = Static<typeof WorkflowContext>

/** The schema as plain JSON Schema (draft 2020-12 compatible), as served. */
export function workflowContextJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...JSON.parse(JSON.stringify(WorkflowContext)),
  }
}

const WEBHOOK_TYPES = /\.(webhook|formTrigger|chatTrigger)$/

export function workflowContext(
  w: N8nWorkflow,
  catalog: NodeTypesCatalog,
  validation: ValidationResult,
  source: WorkflowContext['source'],
  at: string,
): WorkflowContext {
  const credentials = new Map<string, { type: string; name: string | null; nodes: string[] }>()
  for (const n of w.nodes) {
    for (const [type, ref] of Object.entries(n.credentials ?? {})) {
      const name = (ref as { name?: unknown } | null)?.name
      const key = `${type}\u0000${typeof name === 'string' ? name : ''}`
      const entry = credentials.get(key) ?? { type, name: typeof name === 'string' ? name : null, nodes: [] }
      credentials.set(key, entry)
      entry.nodes.push(n.name)
    }
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return {
    schema: WORKFLOW_CONTEXT_SCHEMA_ID,
    generated_at: at,
    workflow: {
      id: w.id,
      name: w.name,
      active: w.active ?? false,
      tags: (w.tags ?? []).map((t) => t.name),
      created_at: w.createdAt ?? null,
      updated_at: w.updatedAt ?? null,
    },
    source,
    nodes: w.nodes.map((n) => ({
      name: n.name,
      type: n.type,
      type_version: n.typeVersion ?? null,
      disabled: n.disabled ?? false,
      trigger: isTrigger(n, catalog),
      known: catalog.types[n.type] !== undefined,
      deprecated: catalog.types[n.type]?.deprecated ?? false,
      credentials: Object.keys(n.credentials ?? {}),
    })),
    connections: edgesOf(w),
    triggers: w.nodes.filter((n) => isTrigger(n, catalog)).map((n) => n.name),
    credentials: [...credentials.values()],
    webhooks: w.nodes
      .filter((n) => WEBHOOK_TYPES.test(n.type))
      .map((n) => ({
        node: n.name,
        path: str(n.parameters?.path) ?? str(n.webhookId),
        method: str(n.parameters?.httpMethod) ?? (n.type.endsWith('.webhook') ? 'GET' : null),
        enabled: !n.disabled,
      })),
    validation: {
      valid: validation.valid,
      errors: validation.errors,
      warnings: validation.warnings,
      codes: [...new Set(validation.issues.map((i) => i.code))],
    },
  }
}

/**
 * Structural checks of a workflow, as n8n stores it: connections that point at nodes that do
 * not exist, node types or type versions the catalog does not know, deprecated node types,
 * nodes without the credentials their type requires, and disabled triggers. Pure.
 */
import type { NodeTypesCatalog } from '../catalog/index.ts'
import type { N8nNode, N8nWorkflow } from '../service/automation.ts'

export type IssueCode =
  | 'dangling_connection'
  | 'unknown_node_type'
  | 'unknown_type_version'
  | 'deprecated_node_type'
  | 'missing_credentials'
  | 'disabled_trigger'
  | 'no_enabled_trigger'
  | 'duplicate_node_name'

export interface Issue {
  code: IssueCode
  severity: 'error' | 'warning'
  node: string | null
  message: string
}

export interface ValidationResult {
  workflow_id: string
  valid: boolean
  errors: number
  warnings: number
  issues: Issue[]
}

/** Node types n8n treats as triggers even when the catalog does not know them. */
const TRIGGER_NAME = /(Trigger|webhook|cron|interval|start)$/i

export const isTrigger = (node: N8nNode, catalog: NodeTypesCatalog) =>
  catalog.types[node.type]?.trigger ?? TRIGGER_NAME.test(node.type.split('.').at(-1) ?? '')

/** Every (source, target) pair of the connection map. */
export function edgesOf(w: Pick<N8nWorkflow, 'connections'>) {
  const edges: { from: string; to: string; kind: string; output: number; input: number }[] = []
  for (const [from, kinds] of Object.entries(w.connections)) {
    for (const [kind, outputs] of Object.entries(kinds)) {
      outputs.forEach((targets, output) => {
        for (const t of targets ?? []) edges.push({ from, to: t.node, kind, output, input: t.index })
      })
    }
  }
  return edges
}

export function validateWorkflow(w: N8nWorkflow, catalog: NodeTypesCatalog): ValidationResult {
  const issues: Issue[] = []
  const names = new Map<string, number>()
  for (const n of w.nodes) names.set(n.name, (names.get(n.name) ?? 0) + 1)
  for (const [name, count] of names) {
    if (count > 1)
      issues.push({
        code: 'duplicate_node_name',
        severity: 'error',
        node: name,
        message: `${count} nodes are named "${name}"; connections cannot tell them apart.`,
      })
  }
  for (const e of edgesOf(w)) {
    if (!names.has(e.from))
      issues.push({
        code: 'dangling_connection',
        severity: 'error',
        node: e.from,
        message: `A connection starts at "${e.from}", which is not a node of this workflow.`,
      })
    if (!names.has(e.to))
      issues.push({
        code: 'dangling_connection',
        severity: 'error',
        node: e.from,
        message: `"${e.from}" connects to "${e.to}", which is not a node of this workflow.`,
      })
  }
  let enabledTriggers = 0
  for (const n of w.nodes) {
    const info = catalog.types[n.type]
    if (!info) {
      issues.push({
        code: 'unknown_node_type',
        severity: 'error',
        node: n.name,
        message: `Node type ${n.type} is not in the catalog of n8n ${catalog.n8n_version}.`,
      })
    } else {
      if (n.typeVersion !== undefined && !info.versions.includes(n.typeVersion))
        issues.push({
          code: 'unknown_type_version',
          severity: 'error',
          node: n.name,
          message: `${n.type} has no type version ${n.typeVersion} (known: ${info.versions.join(', ')}).`,
        })
      if (info.deprecated)
        issues.push({
          code: 'deprecated_node_type',
          severity: 'warning',
          node: n.name,
          message: `${n.type} is deprecated (hidden in n8n ${catalog.n8n_version}); replace it before it is removed.`,
        })
      const have = Object.keys(n.credentials ?? {})
      const missing = info.credentials.filter((c) => !have.includes(c))
      if (missing.length > 0 && !n.disabled)
        issues.push({
          code: 'missing_credentials',
          severity: 'error',
          node: n.name,
          message: `${n.type} needs credentials ${missing.join(', ')}.`,
        })
    }
    for (const [type, ref] of Object.entries(n.credentials ?? {})) {
      const id = (ref as { id?: unknown } | null)?.id
      if (id === undefined || id === null || id === '')
        issues.push({
          code: 'missing_credentials',
          severity: 'error',
          node: n.name,
          message: `The ${type} credential of "${n.name}" names no stored credential.`,
        })
    }
    if (isTrigger(n, catalog)) {
      if (n.disabled)
        issues.push({
          code: 'disabled_trigger',
          severity: w.active ? 'error' : 'warning',
          node: n.name,
          message: `Trigger "${n.name}" is disabled${w.active ? ' in an active workflow' : ''}.`,
        })
      else enabledTriggers++
    }
  }
  if (w.active && enabledTriggers === 0)
    issues.push({
      code: 'no_enabled_trigger',
      severity: 'error',
      node: null,
      message: 'The workflow is active but has no enabled trigger.',
    })
  const errors = issues.filter((i) => i.severity === 'error').length
  return { workflow_id: w.id, valid: errors === 0, errors, warnings: issues.length - errors, issues }
}

/**
 * Upgrade impact: for a range of n8n releases (from, to], the catalog's breaking changes that
 * touch each workflow's nodes, with severity and whether n8n migrates them itself. Pure.
 */
import { type BreakingChange, SEVERITY_RANK, type Severity } from '../catalog/index.ts'
import type { N8nNode, N8nWorkflow } from '../service/automation.ts'
import { compareVersions, inUpgradeRange } from './versions.ts'

export interface AffectedNode {
  node: string
  node_type: string
  type_version: number | null
  change_id: string
  change_version: string
  title: string
  severity: Severity
  auto_migratable: boolean
  migration: string
}

export interface WorkflowImpact {
  workflow_id: string
  name: string
  active: boolean
  affected_nodes: AffectedNode[]
  /** The highest severity among the affected nodes; null when none. */
  max_severity: Severity | null
  /** Whether every affected node is auto-migratable (true when none is affected). */
  auto_migratable: boolean
}

export interface Impact {
  from_version: string
  target_version: string
  changes: Pick<BreakingChange, 'id' | 'version' | 'title' | 'severity' | 'auto_migratable' | 'node_types'>[]
  instance_changes: Pick<
    BreakingChange,
    'id' | 'version' | 'title' | 'severity' | 'auto_migratable' | 'migration'
  >[]
  workflows: WorkflowImpact[]
  totals: {
    workflows: number
    affected_workflows: number
    affected_nodes: number
    manual_nodes: number
    by_severity: Record<Severity, number>
  }
}

function touches(change: BreakingChange, node: N8nNode): boolean {
  if (!change.node_types.includes(node.type)) return false
  const v = node.typeVersion
  if (change.type_versions && v !== undefined) {
    if (change.type_versions.min !== undefined && v < change.type_versions.min) return false
    if (change.type_versions.max !== undefined && v > change.type_versions.max) return false
  }
  for (const [param, values] of Object.entries(change.parameter_match ?? {})) {
    const value = node.parameters?.[param]
    if (typeof value !== 'string' || !values.includes(value)) return false
  }
  return true
}

export const maxSeverity = (xs: Severity[]): Severity | null =>
  xs.reduce<Severity | null>((m, s) => (m === null || SEVERITY_RANK[s] > SEVERITY_RANK[m] ? s : m), null)

export function upgradeImpact(
  catalog: readonly BreakingChange[],
  workflows: readonly N8nWorkflow[],
  from: string,
  to: string,
): Impact {
  const changes = catalog
    .filter((c) => inUpgradeRange(c.version, from, to))
    .sort((a, b) => compareVersions(a.version, b.version) || a.id.localeCompare(b.id))
  const byWorkflow = workflows.map((w): WorkflowImpact => {
    const affected: AffectedNode[] = []
    for (const n of w.nodes) {
      if (n.disabled) continue
      for (const c of changes.filter((x) => touches(x, n))) {
        affected.push({
          node: n.name,
          node_type: n.type,
          type_version: n.typeVersion ?? null,
          change_id: c.id,
          change_version: c.version,
          title: c.title,
          severity: c.severity,
          auto_migratable: c.auto_migratable,
          migration: c.migration,
        })
      }
    }
    return {
      workflow_id: w.id,
      name: w.name,
      active: w.active ?? false,
      affected_nodes: affected,
      max_severity: maxSeverity(affected.map((a) => a.severity)),
      auto_migratable: affected.every((a) => a.auto_migratable),
    }
  })
  const all = byWorkflow.flatMap((w) => w.affected_nodes)
  const by_severity: Record<Severity, number> = { low: 0, medium: 0, high: 0, critical: 0 }
  for (const a of all) by_severity[a.severity]++
  return {
    from_version: from,
    target_version: to,
    changes: changes
      .filter((c) => c.node_types.length > 0)
      .map(({ id, version, title, severity, auto_migratable, node_types }) => ({
        id,
        version,
        title,
        severity,
        auto_migratable,
        node_types,
      })),
    instance_changes: changes
      .filter((c) => c.node_types.length === 0)
      .map(({ id, version, title, severity, auto_migratable, migration }) => ({
        id,
        version,
        title,
        severity,
        auto_migratable,
        migration,
      })),
    workflows: byWorkflow,
    totals: {
      workflows: workflows.length,
      affected_workflows: byWorkflow.filter((w) => w.affected_nodes.length > 0).length,
      affected_nodes: all.length,
      manual_nodes: all.filter((a) => !a.auto_migratable).length,
      by_severity,
    },
  }
}

/**
 * The upgrade views, all derived from one impact (rules/impact.ts) and a few facts: summary,
 * backlog (the manual work), batches (the order to upgrade in) and alerts. Pure.
 */
import { SEVERITY_RANK, type Severity } from '../catalog/index.ts'
import type { Impact, WorkflowImpact } from './impact.ts'
import { compareVersions, versionsBehind } from './versions.ts'

export type Recommendation = 'up_to_date' | 'upgrade_ready' | 'plan_manual_work' | 'blocked'

export interface UpgradeSummary {
  current_version: string
  target_version: string
  up_to_date: boolean
  behind: { majors: number; minors: number }
  changes_in_range: number
  instance_changes: number
  workflows: number
  affected_workflows: number
  affected_nodes: number
  manual_nodes: number
  by_severity: Record<Severity, number>
  max_severity: Severity | null
  recommendation: Recommendation
}

/** Manual work of high or critical severity in an active workflow blocks an upgrade. */
const BLOCKING = SEVERITY_RANK.high

export function upgradeSummary(impact: Impact): UpgradeSummary {
  const upToDate = compareVersions(impact.from_version, impact.target_version) >= 0
  const manual = impact.workflows.flatMap((w) =>
    w.affected_nodes.filter((a) => !a.auto_migratable).map((a) => ({ w, a })),
  )
  const instanceBlocking = impact.instance_changes.some(
    (c) => !c.auto_migratable && SEVERITY_RANK[c.severity] >= BLOCKING,
  )
  const blocked =
    instanceBlocking || manual.some(({ w, a }) => w.active && SEVERITY_RANK[a.severity] >= BLOCKING)
  const severities = [
    ...impact.workflows.flatMap((w) => w.affected_nodes.map((a) => a.severity)),
    ...impact.instance_changes.map((c) => c.severity),
  ]
  return {
    current_version: impact.from_version,
    target_version: impact.target_version,
    up_to_date: upToDate,
    behind: versionsBehind(impact.from_version, impact.target_version),
    changes_in_range: impact.changes.length + impact.instance_changes.length,
    instance_changes: impact.instance_changes.length,
    workflows: impact.totals.workflows,
    affected_workflows: impact.totals.affected_workflows,
    affected_nodes: impact.totals.affected_nodes,
    manual_nodes: impact.totals.manual_nodes,
    by_severity: impact.totals.by_severity,
    max_severity: severities.reduce<Severity | null>(
      (m, s) => (m === null || SEVERITY_RANK[s] > SEVERITY_RANK[m] ? s : m),
      null,
    ),
    recommendation: upToDate
      ? 'up_to_date'
      : blocked
        ? 'blocked'
        : manual.length > 0
          ? 'plan_manual_work'
          : 'upgrade_ready',
  }
}

export interface BacklogItem {
  workflow_id: string
  workflow_name: string
  active: boolean
  node: string
  node_type: string
  change_id: string
  change_version: string
  severity: Severity
  title: string
  migration: string
}

/** The manual work an upgrade needs: most severe first, active workflows before inactive. */
export function upgradeBacklog(impact: Impact): BacklogItem[] {
  return impact.workflows
    .flatMap((w) =>
      w.affected_nodes
        .filter((a) => !a.auto_migratable)
        .map((a) => ({
          workflow_id: w.workflow_id,
          workflow_name: w.name,
          active: w.active,
          node: a.node,
          node_type: a.node_type,
          change_id: a.change_id,
          change_version: a.change_version,
          severity: a.severity,
          title: a.title,
          migration: a.migration,
        })),
    )
    .sort(
      (x, y) =>
        SEVERITY_RANK[y.severity] - SEVERITY_RANK[x.severity] ||
        Number(y.active) - Number(x.active) ||
        x.workflow_name.localeCompare(y.workflow_name) ||
        x.node.localeCompare(y.node),
    )
}

export const BATCHES = [
  { batch: 1, key: 'unaffected', description: 'No breaking change touches these workflows.' },
  {
    batch: 2,
    key: 'auto_migratable',
    description: 'Only changes n8n migrates itself; verify after the upgrade.',
  },
  { batch: 3, key: 'manual_low_medium', description: 'Manual changes of low or medium severity.' },
  {
    batch: 4,
    key: 'manual_high_critical',
    description: 'Manual changes of high or critical severity: fix before upgrading.',
  },
] as const

export type BatchKey = (typeof BATCHES)[number]['key']

const batchOf = (w: WorkflowImpact): BatchKey => {
  const manual = w.affected_nodes.filter((a) => !a.auto_migratable)
  if (w.affected_nodes.length === 0) return 'unaffected'
  if (manual.length === 0) return 'auto_migratable'
  return manual.some((a) => SEVERITY_RANK[a.severity] >= BLOCKING)
    ? 'manual_high_critical'
    : 'manual_low_medium'
}

export function upgradeBatches(impact: Impact) {
  return BATCHES.map((b) => {
    const members = impact.workflows.filter((w) => batchOf(w) === b.key)
    return {
      ...b,
      workflows: members.map((w) => ({
        workflow_id: w.workflow_id,
        name: w.name,
        active: w.active,
        max_severity: w.max_severity,
      })),
    }
  })
}

export interface Alert {
  code: string
  severity: 'info' | 'warning' | 'critical'
  message: string
  workflow_id?: string
}

export interface AlertFacts {
  automationReachable: boolean
  impact: Impact | null
  deprecatedInUse: { node_type: string; workflows: number }[]
  invalidActive: { workflow_id: string; name: string; errors: number }[]
  lastSyncAt: string | null
  staleAfterMs: number
  now: number
  observerFailures: number
}

export function upgradeAlerts(f: AlertFacts): Alert[] {
  const alerts: Alert[] = []
  if (!f.automationReachable)
    alerts.push({
      code: 'automation_unreachable',
      severity: 'critical',
      message: 'The workflow-automation tool does not answer; views come from snapshots.',
    })
  if (f.lastSyncAt === null)
    alerts.push({
      code: 'no_snapshot',
      severity: 'warning',
      message: 'No workflow snapshot has been taken yet.',
    })
  else if (f.now - Date.parse(f.lastSyncAt) > f.staleAfterMs)
    alerts.push({
      code: 'snapshot_stale',
      severity: 'warning',
      message: `The last successful snapshot is from ${f.lastSyncAt}.`,
    })
  if (f.observerFailures > 0)
    alerts.push({
      code: 'observer_failing',
      severity: 'warning',
      message: `The observer failed ${f.observerFailures} time(s) in a row; it backs off up to 300 s.`,
    })
  for (const d of f.deprecatedInUse)
    alerts.push({
      code: 'deprecated_node_in_use',
      severity: 'warning',
      message: `${d.node_type} is deprecated and used in ${d.workflows} workflow(s).`,
    })
  for (const w of f.invalidActive)
    alerts.push({
      code: 'active_workflow_invalid',
      severity: 'critical',
      message: `Active workflow "${w.name}" fails ${w.errors} structural check(s).`,
      workflow_id: w.workflow_id,
    })
  if (f.impact) {
    const s = upgradeSummary(f.impact)
    if (s.behind.majors > 0)
      alerts.push({
        code: 'major_version_behind',
        severity: 'warning',
        message: `n8n ${s.current_version} is ${s.behind.majors} major release(s) behind ${s.target_version}.`,
      })
    if (s.recommendation === 'blocked')
      alerts.push({
        code: 'upgrade_blocked',
        severity: 'critical',
        message: `Upgrading to ${s.target_version} needs manual work of high or critical severity first.`,
      })
  }
  return alerts
}

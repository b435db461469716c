/**
 * The active workflow summary (spec: PWS resources), computed from a project's stored state.
 * Pure: the service gathers the inputs, this decides every field.
 */
import type { UnitContract } from '../../../common/contract.ts'
import {
  CASE_LINKED_SEMANTICS,
  isClosedSourceState,
  LIFECYCLE_STATES,
  type LifecycleState,
  PRIORITY_ORDER,
  WORK_CLASSES,
} from './tasks.ts'
import { GUARDRAIL_ACTIONS } from './versioning.ts'

/** Repository inbound sync: webhooks first, a poll every 5 minutes as the fallback (spec, Limits). */
export const GIT_POLL_FALLBACK_MINUTES = 5

export interface SummaryTask {
  taskKey: string
  lane: string
  workClass: string
  workflowState: string
  externalTruth: boolean
  externalTruthState: string | null
  partialVisibility: boolean
  missingContext: boolean
  sourceReferenceType: string
  sourceReference: string | null
  lifecycle: LifecycleState
  updatedAt: string
}

export interface SummaryInput {
  project: { repoProvider: string | null; repoFullName: string | null }
  tasks: SummaryTask[]
  /** Source references (type:reference) that no longer exist at their source. */
  missingSources: number
  pages: { syncState: string }[]
  planningRepoConfigured: boolean
  /** Open pull requests not yet approved and not drafts. */
  actionableReviews: number
  activeCycleKey: string | null
  contract: UnitContract
}

const WRITEBACK_RULES = [
  { name: 'expected_version_required' },
  { name: 'no_silent_overwrite' },
  { name: 'readback_after_external_write' },
  { name: 'conflict_returns_remediation' },
]

export function consumerState(tasks: SummaryTask[]): 'healthy' | 'degraded' | 'blocked' {
  if (tasks.some((t) => t.workflowState === 'conflicted')) return 'blocked'
  const caseLinked = tasks.filter((t) => t.workClass === 'case_linked_work')
  if (
    caseLinked.some(
      (t) => t.missingContext || t.partialVisibility || t.workflowState === 'verification_required',
    )
  )
    return 'degraded'
  return 'healthy'
}

/** Two tasks attached to the same outside item: work would be done twice. */
export function duplicateAttachmentRisk(tasks: SummaryTask[]): boolean {
  const seen = new Set<string>()
  for (const t of tasks) {
    if (t.sourceReference === null || t.sourceReferenceType === 'native') continue
    const key = `${t.sourceReferenceType}:${t.sourceReference}`
    if (seen.has(key)) return true
    seen.add(key)
  }
  return false
}

export function planningDrift(pages: { syncState: string }[], configured: boolean) {
  if (!configured) return { state: 'unbound', partial_visibility: true }
  const drifted = pages.filter((p) => p.syncState !== 'in_sync').length
  return { state: drifted === 0 ? 'in_sync' : 'drifted', partial_visibility: false, drifted_pages: drifted }
}

export function externalTruthSummary(tasks: SummaryTask[]) {
  const external = tasks.filter((t) => t.externalTruth)
  if (external.length === 0) return { state: 'local_only', external_truth: false, external_task_count: 0 }
  const open = external.filter((t) => !isClosedSourceState(t.externalTruthState)).length
  return {
    state: external.some((t) => t.partialVisibility) ? 'partial' : 'tracked',
    external_truth: true,
    external_task_count: external.length,
    open_at_source: open,
  }
}

/** Where work piles up: tasks per lane that are not simply active. */
function failureHeatmap(tasks: SummaryTask[]) {
  const cells: Record<string, Record<string, number>> = {}
  for (const t of tasks) {
    if (t.lifecycle === 'active') continue
    const lane = cells[t.lane] ?? {}
    lane[t.lifecycle] = (lane[t.lifecycle] ?? 0) + 1
    cells[t.lane] = lane
  }
  return { heatmap_mode: 'lane_by_lifecycle', cells }
}

function caseTimeline(tasks: SummaryTask[]) {
  const entries = tasks
    .filter((t) => t.workClass === 'case_linked_work')
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))
    .slice(0, 20)
    .map((t) => ({ task_key: t.taskKey, lifecycle_state: t.lifecycle, updated_at: t.updatedAt }))
  return { timeline_mode: 'latest_first', entries }
}

function combinationProfiles(contract: UnitContract) {
  const profiles = contract.combination_profiles
  return {
    available: profiles.length > 0,
    state: profiles.length > 0 ? 'published' : 'absent',
    contract_family: 'registry.combination_profiles',
    owner_repo: 'prs',
    consumer_repository: contract.unit,
    relevant_profile_keys: profiles.map((p) => p.profile_key),
    required_profile_keys: profiles.filter((p) => p.role === 'required').map((p) => p.profile_key),
    optional_profile_keys: profiles.filter((p) => p.role === 'optional').map((p) => p.profile_key),
    published_invariant_keys: [...new Set(profiles.flatMap((p) => p.invariants))],
  }
}

export function activeWorkflowSummary(input: SummaryInput) {
  const { tasks } = input
  const bound = input.project.repoProvider !== null && input.project.repoFullName !== null
  const state = consumerState(tasks)
  return {
    workspace_model: bound ? 'single_primary_repo' : 'unbound',
    primary_repo_ref: {
      provider: input.project.repoProvider ?? 'unbound',
      full_name: input.project.repoFullName ?? '',
    },
    supported_work_classes: [...WORK_CLASSES],
    state_contract: {
      priority_order: [...PRIORITY_ORDER],
      counts: Object.fromEntries(
        PRIORITY_ORDER.map((p) => [p, tasks.filter((t) => t.workflowState === p).length]),
      ),
    },
    mutation_contract: {
      requires_expected_version: true,
      silent_overwrite: false,
      manual_override_requirements: ['why', 'expected_version'],
    },
    sync_contract: {
      git_inbound: 'webhook_first',
      git_poll_fallback_minutes: GIT_POLL_FALLBACK_MINUTES,
      webhook_liveness_supported: true,
    },
    platform_consumer_contract: {
      available: true,
      state,
      contract_family: 'project.active_workflow',
      workflow_scope: 'project',
      workflow_wave: input.activeCycleKey ?? 'unplanned',
      case_linked_work_semantics: [...CASE_LINKED_SEMANTICS],
      lifecycle_states: [...LIFECYCLE_STATES],
      writeback_rules: WRITEBACK_RULES,
      failure_heatmap: failureHeatmap(tasks),
      case_timeline: caseTimeline(tasks),
    },
    platform_combination_profiles: combinationProfiles(input.contract),
    planning_platform_drift: planningDrift(input.pages, input.planningRepoConfigured),
    external_truth_summary: externalTruthSummary(tasks),
    case_linked_lifecycle: {
      states: [...LIFECYCLE_STATES],
      counts: Object.fromEntries(
        LIFECYCLE_STATES.map((s) => [
          s,
          tasks.filter((t) => t.workClass === 'case_linked_work' && t.lifecycle === s).length,
        ]),
      ),
    },
    writeback_guardrails: {
      requires_expected_version: true,
      allowed_remediation_actions: [...GUARDRAIL_ACTIONS],
    },
    workspace_risks: { duplicate_attachment_risk: duplicateAttachmentRisk(tasks) },
    lifecycle_visibility: { source_missing_count: input.missingSources },
    branch_pr_pressure: { actionable_review_pressure: input.actionableReviews },
  }
}

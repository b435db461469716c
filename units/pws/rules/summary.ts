/**
 * The active workflow summary (spec: PWS resources), computed from a project's stored state.
 * Pure: the service gathers the inputs, this decides every field.
 */
import type { UnitContract } from '../../../common/contract.ts'
import {
  CASE_LINKED_SEMANTICS,
  isClosedSourceState,
  LIFECYCLE_STATES,
  type LifecycleInput,
  type LifecycleState,
  lifecycleCutoffs,
  lifecycleOf,
  PRIORITY_ORDER,
  WORK_CLASSES,
} from './tasks.ts'
import { GUARDRAIL_ACTIONS } from './versioning.ts'

/** Repository inbound sync: webhooks first, a poll every 5 minutes as the fallback (spec, Limits). */
export const GIT_POLL_FALLBACK_MINUTES = 5

/**
 * Tasks alike in every field the summary reads but their age, as the store counts them: how many,
 * and how many of those were last updated before each of the two `lifecycleCutoffs`.
 */
export interface TaskCount extends Omit<LifecycleInput, 'updatedAt'> {
  workClass: string
  partialVisibility: boolean
  missingContext: boolean
  n: number
  beforeStale: number
  beforeArchive: number
}

/** Tasks alike in everything the summary reads, their lifecycle included, and how many. */
export interface TaskGroup extends Omit<TaskCount, 'beforeStale' | 'beforeArchive'> {
  lifecycle: LifecycleState
}

/**
 * Split the counts by lifecycle: `lifecycleOf` decides for each age band (updated since the stale
 * cutoff, between the cutoffs, before the archive cutoff), on a moment inside that band, which is
 * what it decides for every task in it.
 */
export function taskGroups(counts: TaskCount[], nowMs: number): TaskGroup[] {
  const cutoffs = lifecycleCutoffs(nowMs)
  const beforeArchive = new Date(Date.parse(cutoffs.archive) - 1).toISOString()
  return counts.flatMap(({ beforeStale, beforeArchive: old, ...c }) =>
    (
      [
        [cutoffs.stale, c.n - beforeStale],
        [cutoffs.archive, beforeStale - old],
        [beforeArchive, old],
      ] as const
    )
      .filter(([, n]) => n > 0)
      .map(([updatedAt, n]) => ({ ...c, n, lifecycle: lifecycleOf({ ...c, updatedAt }, nowMs) })),
  )
}

export interface SummaryInput {
  project: { repoProvider: string | null; repoFullName: string | null }
  groups: TaskGroup[]
  /** The 20 most recently updated case-linked tasks, latest first. */
  latestCaseLinked: (LifecycleInput & { taskKey: string })[]
  nowMs: number
  /** Two tasks attached to the same outside item: work would be done twice. */
  duplicateAttachment: boolean
  /** Source references (type:reference) that no longer exist at their source. */
  missingSources: number
  pages: { syncState: string }[]
  planningRepoConfigured: boolean
  /** Open pull requests not yet approved and not drafts. */
  actionableReviews: number
  activeCycleKey: string | null
  contract: UnitContract
}

const total = (groups: TaskGroup[], where: (g: TaskGroup) => boolean) =>
  groups.reduce((sum, g) => (where(g) ? sum + g.n : sum), 0)

const WRITEBACK_RULES = [
  { name: 'expected_version_required' },
  { name: 'no_silent_overwrite' },
  { name: 'readback_after_external_write' },
  { name: 'conflict_returns_remediation' },
]

export function consumerState(groups: TaskGroup[]): 'healthy' | 'degraded' | 'blocked' {
  if (groups.some((g) => g.workflowState === 'conflicted')) return 'blocked'
  if (
    groups.some(
      (g) =>
        g.workClass === 'case_linked_work' &&
        (g.missingContext || g.partialVisibility || g.workflowState === 'verification_required'),
    )
  )
    return 'degraded'
  return 'healthy'
}

export function planningDrift(pages: { syncState: string }[], configured: boolean) {
  if (!configured) return { state: 'unbound', partial_visibility: true }
  const drifted = pages.filter((p) => p.syncState !== 'in_sync').length
  return { state: drifted === 0 ? 'in_sync' : 'drifted', partial_visibility: false, drifted_pages: drifted }
}

export function externalTruthSummary(groups: TaskGroup[]) {
  const external = groups.filter((g) => g.externalTruth)
  const count = total(external, () => true)
  if (count === 0) return { state: 'local_only', external_truth: false, external_task_count: 0 }
  return {
    state: external.some((g) => g.partialVisibility) ? 'partial' : 'tracked',
    external_truth: true,
    external_task_count: count,
    open_at_source: total(external, (g) => !isClosedSourceState(g.externalTruthState)),
  }
}

/** Where work piles up: tasks per lane that are not simply active. */
function failureHeatmap(groups: TaskGroup[]) {
  const cells: Record<string, Record<string, number>> = {}
  for (const g of groups) {
    if (g.lifecycle === 'active') continue
    const lane = cells[g.lane] ?? {}
    lane[g.lifecycle] = (lane[g.lifecycle] ?? 0) + g.n
    cells[g.lane] = lane
  }
  return { heatmap_mode: 'lane_by_lifecycle', cells }
}

function caseTimeline(latest: SummaryInput['latestCaseLinked'], nowMs: number) {
  const entries = latest.map((t) => ({
    task_key: t.taskKey,
    lifecycle_state: lifecycleOf(t, nowMs),
    updated_at: t.updatedAt,
  }))
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
  const { groups } = input
  const bound = input.project.repoProvider !== null && input.project.repoFullName !== null
  const state = consumerState(groups)
  return {
    workspace_model: bound ? 'single_primary_repo' : 'unbound',
    primary_repo_ref: {
      provider: input.project.repoProvider ?? 'unbound',
      full_name: input.project.repoFullName ?? '',
    },
    supported_work_classes: [...WORK_CLASSES],
    state_contract: {
      priority_order: [...PRIORITY_ORDER],
      counts: Object.fromEntries(PRIORITY_ORDER.map((p) => [p, total(groups, (g) => g.workflowState === p)])),
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
      failure_heatmap: failureHeatmap(groups),
      case_timeline: caseTimeline(input.latestCaseLinked, input.nowMs),
    },
    platform_combination_profiles: combinationProfiles(input.contract),
    planning_platform_drift: planningDrift(input.pages, input.planningRepoConfigured),
    external_truth_summary: externalTruthSummary(groups),
    case_linked_lifecycle: {
      states: [...LIFECYCLE_STATES],
      counts: Object.fromEntries(
        LIFECYCLE_STATES.map((s) => [
          s,
          total(groups, (g) => g.workClass === 'case_linked_work' && g.lifecycle === s),
        ]),
      ),
    },
    writeback_guardrails: {
      requires_expected_version: true,
      allowed_remediation_actions: [...GUARDRAIL_ACTIONS],
    },
    workspace_risks: { duplicate_attachment_risk: input.duplicateAttachment },
    lifecycle_visibility: { source_missing_count: input.missingSources },
    branch_pr_pressure: { actionable_review_pressure: input.actionableReviews },
  }
}

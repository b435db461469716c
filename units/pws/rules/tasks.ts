/** Lanes, work classes and the derived lifecycle of a task: pure rules, no I/O. */

export const DEFAULT_LANES = [
  { lane_key: 'backlog', title: 'Backlog' },
  { lane_key: 'ready', title: 'Ready' },
  { lane_key: 'in_progress', title: 'In progress' },
  { lane_key: 'review', title: 'Review' },
  { lane_key: 'done', title: 'Done' },
] as const

export const WORK_CLASSES = ['project_work', 'case_linked_work', 'system_runtime_work'] as const
export type WorkClass = (typeof WORK_CLASSES)[number]

export const LIFECYCLE_STATES = [
  'active',
  'stale',
  'forced-review-required',
  'reopen-eligible',
  'archive-eligible',
  'remain-open',
] as const
export type LifecycleState = (typeof LIFECYCLE_STATES)[number]

export const PRIORITY_ORDER = ['conflicted', 'quarantined', 'approval_required'] as const
export const CASE_LINKED_SEMANTICS = ['conflicted', 'degraded', 'verification_required'] as const

/** A task untouched this long while open is stale. */
export const STALE_AFTER_DAYS = 14
/** A finished task this old may be archived. */
export const ARCHIVE_AFTER_DAYS = 30
const DAY_MS = 86_400_000

/** A task's status follows its lane unless the client names one. */
export function statusForLane(lane: string): string {
  switch (lane) {
    case 'done':
      return 'done'
    case 'in_progress':
      return 'in_progress'
    case 'review':
      return 'in_review'
    default:
      return 'open'
  }
}

export function workflowStateFor(lane: string, current: string): string {
  if (current === 'verification_required') return current
  return lane === 'done' ? 'completed' : 'active'
}

/** Source states that mean the outside case or item is finished. */
export const CLOSED_SOURCE_STATE_LIST = [
  'closed',
  'resolved',
  'merged',
  'cancelled',
  'canceled',
  'done',
] as const
const CLOSED_SOURCE_STATES = new Set<string>(CLOSED_SOURCE_STATE_LIST)
export const isClosedSourceState = (state: string | null) => state !== null && CLOSED_SOURCE_STATES.has(state)

export interface LifecycleInput {
  lane: string
  workflowState: string
  externalTruth: boolean
  externalTruthState: string | null
  updatedAt: string
}

/**
 * The two moments `lifecycleOf` compares a task's `updatedAt` with (ISO strings, as stored, so the
 * store can count in SQL): an open task updated before `stale` is stale, a done one updated
 * before `archive` is archive-eligible. Tasks on the same side of both behave alike.
 */
export const lifecycleCutoffs = (nowMs: number) => ({
  stale: new Date(nowMs - STALE_AFTER_DAYS * DAY_MS).toISOString(),
  archive: new Date(nowMs - ARCHIVE_AFTER_DAYS * DAY_MS).toISOString(),
})

/** Where a task stands in its lifecycle (documented in docs/units/pws.md). */
export function lifecycleOf(t: LifecycleInput, nowMs: number): LifecycleState {
  const age = nowMs - Date.parse(t.updatedAt)
  if (t.workflowState === 'verification_required') return 'forced-review-required'
  if (t.lane === 'done') {
    if (t.externalTruth && !isClosedSourceState(t.externalTruthState)) return 'remain-open'
    return age > ARCHIVE_AFTER_DAYS * DAY_MS ? 'archive-eligible' : 'reopen-eligible'
  }
  return age > STALE_AFTER_DAYS * DAY_MS ? 'stale' : 'active'
}

/** Guards that say when a case-linked task may finish: the source owns the case's state. */
export function caseGuards(workClass: string, externalTruthState: string | null) {
  if (workClass !== 'case_linked_work')
    return { case_lifecycle_guard: null, lifecycle_completion_guard: null }
  return {
    case_lifecycle_guard: 'source_owns_case_state',
    lifecycle_completion_guard: isClosedSourceState(externalTruthState) ? null : 'source_case_still_open',
  }
}

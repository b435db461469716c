/**
 * Optimistic concurrency: every writeback names the version it read (`expected_version`); a
 * missing or stale one is a 409 that changes nothing and tells the client how to recover.
 */
import { type AppError, conflict } from '../../../common/errors.ts'

export type WritebackTarget = 'task' | 'review_item' | 'planning_page'
export type VersionVerdict = 'current' | 'missing' | 'stale'

export const REMEDIATION_ACTIONS = [
  'refresh_metadata',
  'retry_writeback',
  'open_diff_and_resolve',
  'mark_verification_complete',
  'escalate_to_manual',
] as const
export type RemediationAction = (typeof REMEDIATION_ACTIONS)[number]

/** The guardrail actions the active-workflow summary advertises for any writeback. */
export const GUARDRAIL_ACTIONS: RemediationAction[] = [
  'retry_writeback',
  'refresh_metadata',
  'escalate_to_manual',
]

/**
 * The remediation matrix: what a client should do, per target and reason. A missing version
 * only needs a read first; a stale one means someone else wrote, so the diff matters.
 */
export const REMEDIATION: Record<
  WritebackTarget,
  Record<Exclude<VersionVerdict, 'current'>, RemediationAction[]>
> = {
  task: {
    missing: ['refresh_metadata', 'retry_writeback'],
    stale: ['refresh_metadata', 'retry_writeback', 'escalate_to_manual'],
  },
  review_item: {
    missing: ['refresh_metadata', 'retry_writeback'],
    stale: ['refresh_metadata', 'open_diff_and_resolve', 'retry_writeback', 'escalate_to_manual'],
  },
  planning_page: {
    missing: ['refresh_metadata', 'retry_writeback'],
    stale: ['refresh_metadata', 'open_diff_and_resolve', 'retry_writeback'],
  },
}

export function judgeVersion(expected: string | undefined | null, current: string): VersionVerdict {
  if (expected === undefined || expected === null || expected === '') return 'missing'
  return expected === current ? 'current' : 'stale'
}

/** The 409 for a refused writeback, with the remediation metadata beside the envelope. */
export function versionConflict(
  target: WritebackTarget,
  key: string,
  verdict: Exclude<VersionVerdict, 'current'>,
  expected: string | undefined | null,
  current: string,
  detail: Record<string, unknown> = {},
): AppError {
  const actions = REMEDIATION[target][verdict]
  const code = verdict === 'missing' ? 'expected_version_required' : 'version_conflict'
  const message =
    verdict === 'missing'
      ? 'This write needs expected_version: read the current version first.'
      : 'expected_version is stale: the resource changed since it was read.'
  const conflictDetail = {
    target_type: target,
    target_key: key,
    reason: verdict === 'missing' ? 'expected_version_missing' : 'expected_version_stale',
    expected_version: expected ?? null,
    current_version: current,
    ...detail,
  }
  return conflict(code, message, conflictDetail, {
    consumer_remediation_actions: actions,
    current_version: current,
    expected_version: expected ?? null,
    writeback_guard_state: 'conflicted',
    conflict: conflictDetail,
  })
}

/**
 * The next version token of a resource: now, but always at least a millisecond after the
 * previous one, so two writes in one millisecond still get different tokens.
 */
export function nextVersion(previous: string | null, nowMs: number): string {
  const prev = previous === null ? Number.NEGATIVE_INFINITY : Date.parse(previous)
  return new Date(Math.max(nowMs, Number.isNaN(prev) ? nowMs : prev + 1)).toISOString()
}

/**
 * The watchdog verdict. A reconcile that has run longer than the stall limit is stalled; a holder
 * whose last finished reconcile is older than two intervals plus the stall limit is overdue.
 */
export interface WatchdogFacts {
  intervalS: number
  stallAfterS: number
  holdsLease: boolean
  running: { startedAt: string } | null
  lastFinishedAt: string | null
  startedAt: string
}

export type WatchdogState = 'ok' | 'stalled' | 'overdue' | 'standby'

export function watchdogVerdict(f: WatchdogFacts, now: Date) {
  const t = now.getTime()
  const runningFor = f.running ? (t - Date.parse(f.running.startedAt)) / 1000 : null
  const since = f.lastFinishedAt ?? f.startedAt
  const sinceS = (t - Date.parse(since)) / 1000
  let state: WatchdogState = 'ok'
  let detail = 'reconcile is on schedule'
  if (runningFor !== null && runningFor > f.stallAfterS) {
    state = 'stalled'
    detail = `a reconcile has been running for ${Math.round(runningFor)} s (limit ${f.stallAfterS} s)`
  } else if (!f.holdsLease) {
    state = 'standby'
    detail = 'this instance does not hold the reconcile lease'
  } else if (sinceS > 2 * f.intervalS + f.stallAfterS) {
    state = 'overdue'
    detail = `no reconcile finished for ${Math.round(sinceS)} s (interval ${f.intervalS} s)`
  }
  return {
    state,
    detail,
    running_for_s: runningFor === null ? null : Math.round(runningFor),
    seconds_since_last_reconcile: Math.round(sinceS),
  }
}

/** A bound per metric: the candidate must satisfy `min <= value <= max` for each bound given. */
export interface Bound {
  min?: number
  max?: number
}
export type ThresholdContract = Record<string, Bound>
export type Metrics = Record<string, number>

/**
 * The direction a metric improves in, read from its bounds: only `min` means higher is
 * better, only `max` means lower is better, both means it must stay inside a band.
 */
export type Direction = 'higher_is_better' | 'lower_is_better' | 'within_band'

export const REPLAY_VERDICTS = ['accept', 'reject', 'inconclusive'] as const
export type ReplayVerdict = (typeof REPLAY_VERDICTS)[number]

export interface MetricResult {
  metric: string
  direction: Direction
  candidate: number | null
  baseline: number | null
  within_bounds: boolean
  /** False when the candidate is worse than the baseline in the metric's direction. */
  no_regression: boolean
}

export interface ReplayEvaluation {
  verdict: ReplayVerdict
  threshold_pass: boolean
  regression_free: boolean
  metrics: MetricResult[]
  reasons: string[]
}

export function direction(bound: Bound): Direction {
  if (bound.min !== undefined && bound.max === undefined) return 'higher_is_better'
  if (bound.max !== undefined && bound.min === undefined) return 'lower_is_better'
  return 'within_band'
}

/** Bounds that cannot be satisfied or say nothing; each entry is one problem. */
export function contractProblems(contract: ThresholdContract): string[] {
  const problems: string[] = []
  for (const [metric, bound] of Object.entries(contract)) {
    if (bound.min === undefined && bound.max === undefined) problems.push(`${metric}: give min, max or both`)
    else if (bound.min !== undefined && bound.max !== undefined && bound.min > bound.max) {
      problems.push(`${metric}: min is greater than max`)
    }
  }
  if (Object.keys(contract).length === 0) problems.push('the threshold contract names no metric')
  return problems
}

function regressionFree(dir: Direction, candidate: number, baseline: number, bound: Bound): boolean {
  if (dir === 'higher_is_better') return candidate >= baseline
  if (dir === 'lower_is_better') return candidate <= baseline
  // A band has no better side: the candidate must not move further from the band's middle.
  const middle = ((bound.min ?? 0) + (bound.max ?? 0)) / 2
  return Math.abs(candidate - middle) <= Math.abs(baseline - middle)
}

/**
 * Evaluate a candidate against a threshold contract and its baseline.
 * - threshold_pass: every contracted metric is present in the candidate and within its bounds.
 * - regression_free: no contracted metric the baseline also has got worse in its direction.
 * - verdict: `reject` when either fails; otherwise `accept` when the workloads are similar,
 *   `inconclusive` when they are not (the baseline comparison then proves nothing).
 */
export function evaluateReplay(
  contract: ThresholdContract,
  baseline: Metrics,
  candidate: Metrics,
  workloadSimilar: boolean,
): ReplayEvaluation {
  const metrics: MetricResult[] = []
  const reasons: string[] = []
  for (const metric of Object.keys(contract).sort()) {
    const bound = contract[metric]!
    const dir = direction(bound)
    const value = Object.hasOwn(candidate, metric) ? candidate[metric]! : null
    const base = Object.hasOwn(baseline, metric) ? baseline[metric]! : null
    const withinBounds =
      value !== null &&
      (bound.min === undefined || value >= bound.min) &&
      (bound.max === undefined || value <= bound.max)
    const noRegression = value === null || base === null || regressionFree(dir, value, base, bound)
    if (value === null) reasons.push(`${metric}: missing from candidate_metrics`)
    else if (!withinBounds) reasons.push(`${metric}: ${value} is outside the contracted bounds`)
    if (!noRegression) reasons.push(`${metric}: candidate ${value} regresses from baseline ${base}`)
    metrics.push({
      metric,
      direction: dir,
      candidate: value,
      baseline: base,
      within_bounds: withinBounds,
      no_regression: noRegression,
    })
  }
  const thresholdPass = metrics.every((m) => m.within_bounds)
  const regression = metrics.every((m) => m.no_regression)
  let verdict: ReplayVerdict
  if (!thresholdPass || !regression) verdict = 'reject'
  else if (!workloadSimilar) {
    verdict = 'inconclusive'
    reasons.push('workloads are not similar: the baseline comparison is not conclusive')
  } else verdict = 'accept'
  return { verdict, threshold_pass: thresholdPass, regression_free: regression, metrics, reasons }
}

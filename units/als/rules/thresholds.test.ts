import { describe, expect, test } from 'bun:test'
import { contractProblems, direction, evaluateReplay } from './thresholds.ts'

describe('direction', () => {
  test('only min: higher is better; only max: lower is better; both: a band', () => {
    expect(direction({ min: 1 })).toBe('higher_is_better')
    expect(direction({ max: 1 })).toBe('lower_is_better')
    expect(direction({ min: 0, max: 1 })).toBe('within_band')
  })
})

describe('contractProblems', () => {
  test('an empty contract, an empty bound and min > max are problems', () => {
    expect(contractProblems({})).toEqual(['the threshold contract names no metric'])
    expect(contractProblems({ a: {} })).toEqual(['a: give min, max or both'])
    expect(contractProblems({ a: { min: 2, max: 1 } })).toEqual(['a: min is greater than max'])
    expect(contractProblems({ a: { min: 1, max: 1 } })).toEqual([])
  })
})

describe('evaluateReplay', () => {
  const contract = { accuracy: { min: 0.8 }, latency_ms: { max: 200 } }

  test('within bounds, no regression, similar workloads: accept', () => {
    const r = evaluateReplay(
      contract,
      { accuracy: 0.82, latency_ms: 150 },
      { accuracy: 0.9, latency_ms: 120 },
      true,
    )
    expect(r.verdict).toBe('accept')
    expect(r.threshold_pass).toBe(true)
    expect(r.regression_free).toBe(true)
    expect(r.reasons).toEqual([])
    expect(r.metrics.map((m) => m.metric)).toEqual(['accuracy', 'latency_ms'])
  })

  test('bounds are inclusive', () => {
    expect(evaluateReplay({ a: { min: 1, max: 2 } }, {}, { a: 1 }, true).threshold_pass).toBe(true)
    expect(evaluateReplay({ a: { min: 1, max: 2 } }, {}, { a: 2 }, true).threshold_pass).toBe(true)
    expect(evaluateReplay({ a: { min: 1, max: 2 } }, {}, { a: 2.0001 }, true).threshold_pass).toBe(false)
  })

  test('a candidate outside a bound is rejected', () => {
    const r = evaluateReplay(contract, {}, { accuracy: 0.7, latency_ms: 100 }, true)
    expect(r.verdict).toBe('reject')
    expect(r.threshold_pass).toBe(false)
    expect(r.reasons[0]).toContain('accuracy')
  })

  test('a contracted metric missing from the candidate fails the threshold', () => {
    const r = evaluateReplay(contract, {}, { accuracy: 0.9 }, true)
    expect(r.threshold_pass).toBe(false)
    expect(r.metrics.find((m) => m.metric === 'latency_ms')?.candidate).toBeNull()
  })

  test('a regression against the baseline in the metric direction rejects, even within bounds', () => {
    const higher = evaluateReplay({ a: { min: 0.5 } }, { a: 0.9 }, { a: 0.8 }, true)
    expect(higher.threshold_pass).toBe(true)
    expect(higher.regression_free).toBe(false)
    expect(higher.verdict).toBe('reject')
    const lower = evaluateReplay({ l: { max: 300 } }, { l: 100 }, { l: 120 }, true)
    expect(lower.verdict).toBe('reject')
  })

  test('a band regresses when the candidate moves away from its middle', () => {
    expect(evaluateReplay({ t: { min: 0, max: 10 } }, { t: 5 }, { t: 7 }, true).verdict).toBe('reject')
    expect(evaluateReplay({ t: { min: 0, max: 10 } }, { t: 8 }, { t: 6 }, true).verdict).toBe('accept')
  })

  test('metrics the baseline lacks are only judged by their bounds', () => {
    expect(evaluateReplay({ a: { min: 0.5 } }, {}, { a: 0.6 }, true).verdict).toBe('accept')
  })

  test('dissimilar workloads make a passing candidate inconclusive, a failing one still rejected', () => {
    expect(evaluateReplay(contract, {}, { accuracy: 0.9, latency_ms: 100 }, false).verdict).toBe(
      'inconclusive',
    )
    expect(evaluateReplay(contract, {}, { accuracy: 0.1, latency_ms: 100 }, false).verdict).toBe('reject')
  })
})

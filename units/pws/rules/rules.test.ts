import { describe, expect, test } from 'bun:test'
import { branchAgeDays, freshnessOf, releaseGate } from './delivery.ts'
import { sandboxGate } from './sandbox.ts'
import { lifecycleOf } from './tasks.ts'
import { judgeVersion, nextVersion } from './versioning.ts'

const NOW = Date.parse('2026-11-23T12:00:00.000Z')
const daysAgo = (d: number) => new Date(NOW - d * 86_400_000).toISOString()

describe('version tokens', () => {
  test('always move forward, by at least a millisecond, even within one millisecond or with a clock behind', () => {
    const first = nextVersion(null, NOW)
    expect(first).toBe('2026-11-23T12:00:00.000Z')
    expect(nextVersion(first, NOW)).toBe('2026-11-23T12:00:00.001Z')
    expect(nextVersion(first, NOW - 5000)).toBe('2026-11-23T12:00:00.001Z')
    expect(judgeVersion(undefined, first)).toBe('missing')
    expect(judgeVersion('', first)).toBe('missing')
    expect(judgeVersion(first, first)).toBe('current')
    expect(judgeVersion('2026-11-23T12:00:00Z', first)).toBe('stale')
  })
})

describe('lifecycle', () => {
  const task = {
    lane: 'backlog',
    workflowState: 'active',
    externalTruth: false,
    externalTruthState: null,
    updatedAt: daysAgo(1),
  }
  test('each state from the documented rules', () => {
    expect(lifecycleOf(task, NOW)).toBe('active')
    expect(lifecycleOf({ ...task, updatedAt: daysAgo(15) }, NOW)).toBe('stale')
    expect(lifecycleOf({ ...task, workflowState: 'verification_required' }, NOW)).toBe(
      'forced-review-required',
    )
    expect(lifecycleOf({ ...task, lane: 'done' }, NOW)).toBe('reopen-eligible')
    expect(lifecycleOf({ ...task, lane: 'done', updatedAt: daysAgo(31) }, NOW)).toBe('archive-eligible')
    expect(lifecycleOf({ ...task, lane: 'done', externalTruth: true, externalTruthState: 'open' }, NOW)).toBe(
      'remain-open',
    )
    expect(
      lifecycleOf({ ...task, lane: 'done', externalTruth: true, externalTruthState: 'closed' }, NOW),
    ).toBe('reopen-eligible')
  })
})

describe('branch freshness and release gates', () => {
  test('freshness boundaries: 7 days aging, 30 days stale, the default branch apart', () => {
    const b = (d: number, is_default = false) => ({
      name: 'x',
      last_commit_at: daysAgo(d),
      is_default,
      protected: false,
    })
    expect(freshnessOf(b(6.9), NOW)).toBe('fresh')
    expect(freshnessOf(b(7), NOW)).toBe('aging')
    expect(freshnessOf(b(29.9), NOW)).toBe('aging')
    expect(freshnessOf(b(30), NOW)).toBe('stale')
    expect(freshnessOf(b(400, true), NOW)).toBe('default')
    expect(branchAgeDays(b(10.5), NOW)).toBe(10)
  })

  test('gates: published, blocked by failures or risky reviews, review, ready', () => {
    const release = { name: 'v1', tag: 'v1', draft: true, prerelease: false, published_at: null }
    const base = {
      release,
      latestPipelineStatus: 'success',
      latestDeploymentStatus: 'success',
      linkedReviewCount: 0,
      riskyReviewCount: 0,
    }
    expect(
      releaseGate({ ...base, release: { ...release, draft: false, published_at: daysAgo(1) } }).gate_state,
    ).toBe('published')
    expect(releaseGate({ ...base, latestPipelineStatus: 'failure' })).toEqual({
      gate_state: 'blocked',
      gate_reasons: ['latest_pipeline_failed'],
    })
    expect(releaseGate({ ...base, riskyReviewCount: 1, linkedReviewCount: 1 }).gate_reasons).toEqual([
      'risky_reviews_unresolved',
    ])
    expect(releaseGate({ ...base, linkedReviewCount: 2 }).gate_state).toBe('review')
    expect(releaseGate({ ...base, latestPipelineStatus: null }).gate_reasons).toEqual(['no_pipeline_seen'])
    expect(releaseGate(base)).toEqual({ gate_state: 'ready', gate_reasons: [] })
  })
})

describe('sandbox gate', () => {
  const on = { enabled: true, projectPrefix: 'sandbox-', ownerRepo: 'acme/platform' }
  test('flag, then prefix, then owner repo; an unset owner repo admits nothing', () => {
    expect(sandboxGate({ ...on, enabled: false }, 'sandbox-a', 'acme/platform')?.code).toBe(
      'sandbox_writes_disabled',
    )
    expect(sandboxGate(on, 'team-a', 'acme/platform')?.code).toBe('sandbox_project_prefix_mismatch')
    expect(sandboxGate(on, 'sandbox-a', 'acme/other')?.code).toBe('sandbox_owner_repo_mismatch')
    expect(sandboxGate({ ...on, ownerRepo: undefined }, 'sandbox-a', 'acme/platform')?.code).toBe(
      'sandbox_owner_repo_mismatch',
    )
    expect(sandboxGate(on, 'sandbox-a', 'acme/platform')).toBeUndefined()
  })
})

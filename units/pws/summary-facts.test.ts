/**
 * The active workflow summary counts in SQL (store.ts `summaryFacts`, then `taskGroups`): its
 * groups must equal what the per-task rules (`lifecycleOf`, `isActionableReview`) give for every
 * task, on a project with every combination of the fields the summary reads, and ages on both
 * sides of the lifecycle cutoffs.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { migrations } from '../../db/migrations/pws/index.ts'
import { openEmbeddedStorage, openLibsqlStorage, type Storage } from '../../db/storage.ts'
import { tempDir, testDriver } from '../../test/harness.ts'
import { type Sqld, startSqld } from '../../test/sqld.ts'
import { isActionableReview, type PullRequestData } from './rules/delivery.ts'
import { taskGroups } from './rules/summary.ts'
import { lifecycleOf } from './rules/tasks.ts'
import { summaryFacts } from './store.ts'
import { deliveryItems, projects, tasks } from './tables.ts'

const DAY = 86_400_000
const NOW = Date.parse('2026-11-23T12:00:00.000Z')

/** PWS's migrated database on the test driver (`SVC_TEST_DRIVER=libsql`: a fresh sqld). */
async function openPwsStorage(): Promise<{ storage: Storage; close(): Promise<void> }> {
  let sqld: Sqld | undefined
  if (testDriver() === 'libsql') sqld = await startSqld()
  const storage = sqld
    ? await openLibsqlStorage(sqld.url, migrations)
    : openEmbeddedStorage(join(tempDir('svc-pws-facts-'), 'pws.sqlite'), migrations)
  return {
    storage,
    async close() {
      await storage.close()
      await sqld?.stop()
    },
  }
}

test('summaryFacts equals the per-task rules on every combination', async () => {
  const { storage, close } = await openPwsStorage()
  const at = new Date(NOW).toISOString()
  await storage.transaction(async (db) => {
    await db.insert(projects).values({ projectId: 'p', name: 'p', createdAt: at, updatedAt: at })
    await db.insert(projects).values({ projectId: 'other', name: 'o', createdAt: at, updatedAt: at })
  })
  // Ages on both sides of the 14- and 30-day cutoffs, and exactly on them.
  const ages = [DAY, 14 * DAY, 14 * DAY + 1, 20 * DAY, 30 * DAY, 30 * DAY + 1, 45 * DAY]
  const rows: (typeof tasks.$inferInsert)[] = []
  let i = 0
  for (const lane of ['backlog', 'done'])
    for (const workflowState of ['active', 'completed', 'verification_required', 'conflicted'])
      for (const workClass of ['project_work', 'case_linked_work'])
        for (const externalTruthState of [null, 'open', 'closed', 'merged'])
          for (const externalTruth of [false, true]) {
            i++
            rows.push({
              projectId: 'p',
              taskKey: `t-${i}`,
              title: 't',
              lane,
              status: 'open',
              workClass,
              workItemTruthOwner: 'pws',
              sourceTruthOwner: 'pws',
              sourceReferenceType: i % 3 === 0 ? 'pull_request' : i % 3 === 1 ? 'ticket' : 'native',
              sourceReference: i % 3 === 2 ? null : i % 5 === 0 ? 'github:1' : `github:${i}`,
              workflowState,
              externalTruthState,
              externalTruth,
              missingContext: i % 7 === 0,
              partialVisibility: i % 11 === 0,
              writebackGuardState: 'clear',
              remediation: [],
              createdAt: at,
              updatedAt: new Date(NOW - (ages[i % ages.length] as number) - i).toISOString(),
            })
          }
  const prs: [string, string, Record<string, unknown>][] = [
    ['1', 'open', { draft: false, review_decision: null }],
    ['3', 'open', { draft: true, review_decision: null }],
    ['6', 'open', { draft: false, review_decision: 'approved' }],
    ['9', 'closed', { draft: false, review_decision: null }],
    ['12', 'open', { review_decision: 'changes_requested' }],
  ]
  await storage.transaction(async (db) => {
    await db.insert(tasks).values(rows)
    // Tasks of another project never count.
    await db
      .insert(tasks)
      .values({ ...(rows[0] as typeof tasks.$inferInsert), projectId: 'other', workflowState: 'conflicted' })
    await db.insert(deliveryItems).values(
      prs.map(([id, state, data]) => ({
        projectId: 'p',
        kind: 'pull_request' as const,
        provider: 'github',
        externalId: id,
        repository: 'acme/app',
        state,
        data,
        observedAt: at,
        updatedAt: at,
      })),
    )
  })

  const facts = await summaryFacts(storage, 'p', NOW)

  const expected = new Map<string, number>()
  for (const r of rows) {
    const t = { ...r, externalTruthState: r.externalTruthState ?? null, updatedAt: r.updatedAt as string }
    const key = JSON.stringify([
      t.lane,
      t.workClass,
      t.workflowState,
      lifecycleOf(t as Parameters<typeof lifecycleOf>[0], NOW),
      t.externalTruth,
      t.externalTruthState,
      t.partialVisibility,
      t.missingContext,
    ])
    expected.set(key, (expected.get(key) ?? 0) + 1)
  }
  const got = new Map(
    taskGroups(facts.counts, NOW).map((g) => [
      JSON.stringify([
        g.lane,
        g.workClass,
        g.workflowState,
        g.lifecycle,
        g.externalTruth,
        g.externalTruthState,
        g.partialVisibility,
        g.missingContext,
      ]),
      g.n,
    ]),
  )
  expect(got).toEqual(expected)

  const caseLinked = rows
    .filter((r) => r.workClass === 'case_linked_work')
    .sort((a, b) => ((a.updatedAt as string) < (b.updatedAt as string) ? 1 : -1))
    .slice(0, 20)
  expect(facts.latestCaseLinked.map((t) => t.taskKey)).toEqual(caseLinked.map((r) => r.taskKey))

  const known = new Set(prs.map(([id]) => `github:${id}`))
  const linked = rows.filter((r) => r.sourceReferenceType === 'pull_request' && r.sourceReference)
  expect(facts.missingSources).toBe(linked.filter((r) => !known.has(r.sourceReference as string)).length)
  expect(facts.missingSources).toBeGreaterThan(0)
  expect(facts.actionableReviews).toBe(
    prs.filter(([, state, data]) => isActionableReview(state, data as unknown as PullRequestData)).length,
  )
  expect(facts.actionableReviews).toBe(2)
  // `github:1` is the reference of every fifth task: attached twice.
  expect(facts.duplicateAttachment).toBe(true)
  await close()
})

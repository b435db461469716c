/** The crash test against the real WEB process, and proof that it notices a lost write. */
import { describe, expect, test } from 'bun:test'
import { crashTargets } from './crash-targets.ts'
import { crashTest, removeDataDir } from './lib/crash.ts'

const web = crashTargets.web!
const opts = { rounds: 2, seed: 5, concurrency: 4, minKillMs: 150, maxKillMs: 400 }

describe('crashtest', () => {
  test('WEB keeps every acknowledged contact intake across SIGKILL', async () => {
    const report = await crashTest('web', '/health', web, opts)
    removeDataDir(report)
    expect(report.errors).toEqual([])
    expect(report.rounds).toBe(2)
    expect(report.acknowledged).toBeGreaterThan(0)
    expect(report.lost).toEqual([])
    expect(report.integrity).toEqual([])
  }, 30_000)

  test('an acknowledged write that is not in the database is counted as lost', async () => {
    let n = 0
    // Every third acknowledgement names an intake that was never stored.
    const lying = {
      ...web,
      ackId: (answer: unknown) => (++n % 3 === 0 ? `never-stored-${n}` : web.ackId(answer)),
    }
    const report = await crashTest('web', '/health', lying, { ...opts, rounds: 1 })
    removeDataDir(report)
    expect(report.lost.length).toBeGreaterThan(0)
    expect(report.lost.every((id) => id.startsWith('never-stored-'))).toBe(true)
  }, 30_000)

  test('a 2xx answer without the id stops the run instead of passing unchecked', async () => {
    const blind = { ...web, ackId: () => undefined }
    const report = await crashTest('web', '/health', blind, { ...opts, rounds: 1 })
    removeDataDir(report)
    expect(report.errors[0]).toContain('2xx answers name no id')
  }, 30_000)
})

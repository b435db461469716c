/** A job interrupted by a crash resumes after a restart, or is failed after too many attempts; never stuck running. */
import { afterAll, describe, expect, test } from 'bun:test'
import { bootNds, createKey, fixtureServer, type NdsTest, sqlOf, waitForJob } from './testing.ts'

const fixtures = fixtureServer()
afterAll(() => fixtures.stop())

/** Simulates the crash: the row says running, as a kill -9 mid-job leaves it. */
const markRunning = (unit: NdsTest, jobId: string, attempts: number) =>
  sqlOf(unit).run("UPDATE ingest_jobs SET state = 'running', attempts = ? WHERE job_id = ?", [
    attempts,
    jobId,
  ])

describe('ingest job recovery', () => {
  test('an interrupted job is resumed at start and finishes; a job out of attempts is failed', async () => {
    let unit = await bootNds({ NDS_JOB_MAX_ATTEMPTS: '3' })
    const { auth } = await createKey(unit)
    const body = { urls: [`${fixtures.url}/rss/world.xml`], from: '2026-10-01T00:00:00Z' }
    // the worker is not started: the jobs stay queued, then are made to look interrupted
    const a = await (await unit.send('POST', '/v1/ingest/rss/backfill', body, auth)).json()
    const b = await (await unit.send('POST', '/v1/ingest/rss/backfill', body, auth)).json()
    await markRunning(unit, a.job_id, 1)
    await markRunning(unit, b.job_id, 3)
    unit = await unit.restart()
    unit.startWorker()
    const resumed = await waitForJob(unit, a.job_id, auth)
    expect(resumed.state).toBe('partially_failed')
    expect(resumed.attempts).toBe(2)
    expect(resumed.counts.created).toBe(4)
    const failed = await waitForJob(unit, b.job_id, auth)
    expect(failed.state).toBe('failed')
    expect(failed.errors.at(-1).error).toContain('interrupted')
    const running = await sqlOf(unit).get<{ n: number }>(
      "SELECT count(*) AS n FROM ingest_jobs WHERE state = 'running'",
    )
    expect(running?.n).toBe(0)
    await unit.dispose()
  })
})

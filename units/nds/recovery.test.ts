/** A job interrupted by a crash resumes after a restart, or is failed after too many attempts; never stuck running. */
import { afterAll, describe, expect, test } from 'bun:test'
import { BUILTIN_MODEL, EMBED_DIMS } from './rules/embed.ts'
import { signature } from './rules/minhash.ts'
import { contentHash, createStore } from './store.ts'
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

  test('a job interrupted after its batches were stored resumes without duplicating: counts carry over, nothing is written twice', async () => {
    let unit = await bootNds()
    unit.startWorker()
    const { auth } = await createKey(unit)
    const body = { urls: [`${fixtures.url}/rss/world.xml`], from: '2026-10-01T00:00:00Z' }
    const job = await (await unit.send('POST', '/v1/ingest/rss/backfill', body, auth)).json()
    const done = await waitForJob(unit, job.job_id, auth)
    expect(done.counts.created).toBe(4)
    const count = async (u: NdsTest, table: string) =>
      (await sqlOf(u).get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n
    const articles = await count(unit, 'articles')
    const versions = await count(unit, 'article_versions')
    // as a kill -9 after the last batch committed and before the job was finished leaves it
    await markRunning(unit, job.job_id, 1)
    unit = await unit.restart()
    unit.startWorker()
    const resumed = await waitForJob(unit, job.job_id, auth)
    expect(resumed.attempts).toBe(2)
    expect(resumed.counts.created).toBe(4)
    expect(resumed.counts.unchanged).toBe(4)
    expect(await count(unit, 'articles')).toBe(articles)
    expect(await count(unit, 'article_versions')).toBe(versions)
    await unit.dispose()
  })

  test('a batch stores the counts of its job in its own transaction, while the job is still running', async () => {
    const unit = await bootNds()
    const { auth } = await createKey(unit)
    const body = { urls: [`${fixtures.url}/rss/world.xml`], from: '2026-10-01T00:00:00Z' }
    const job = await (await unit.send('POST', '/v1/ingest/rss/backfill', body, auth)).json()
    const store = createStore(unit.ctx.storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS })
    const claimed = await store.claimJob()
    expect(claimed?.jobId).toBe(job.job_id)
    const article = {
      canonicalUrl: 'https://news.example/a',
      title: 'Harbour cranes idle',
      body: 'The port strike entered its second week.',
      language: 'en',
      publishedAt: '2026-10-02T00:00:00.000Z',
      sourceName: 'Example',
      entities: [],
    }
    const prepared = {
      ...article,
      source: 'rss',
      contentHash: contentHash(article),
      minhash: signature(article.body),
    }
    expect(await store.applyArticles([prepared], job.job_id, { fetched: 3, unchanged: 2 })).toEqual([
      'created',
    ])
    const running = await (await unit.request(`/v1/jobs/${job.job_id}`, { headers: auth })).json()
    expect(running.state).toBe('running')
    expect(running.counts).toMatchObject({ fetched: 3, unchanged: 2, created: 1 })
    await unit.dispose()
  })
})

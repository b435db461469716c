/**
 * Two NDS processes on one libSQL server (two replicas, booted in process on one DATABASE_URL):
 * every ingest job is claimed by one worker once, an article is stored once whichever replica's
 * job brought it, and each replica's semantic index catches up with vectors the other wrote.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { sqldBinary, startSqld } from '../../test/sqld.ts'
import { bootNds, createKey, fixtureServer, sqlOf, waitForJob } from './testing.ts'

const fixtures = fixtureServer()
afterAll(() => fixtures.stop())

describe.skipIf(!sqldBinary())('two nds replicas on one sqld', () => {
  test('jobs are claimed once across both workers; articles stored once; both indexes see every vector', async () => {
    const sqld = await startSqld()
    const a = await bootNds({ DATABASE_URL: sqld.url })
    const b = await bootNds({ DATABASE_URL: sqld.url })
    try {
      const { auth } = await createKey(a)
      const body = { urls: [`${fixtures.url}/rss/world.xml`], from: '2026-10-01T00:00:00Z' }
      const jobs: string[] = []
      for (let i = 0; i < 6; i++) {
        const res = await (i % 2 === 0 ? a : b).send('POST', '/v1/ingest/rss/backfill', body, auth)
        expect(res.status).toBe(202)
        jobs.push((await res.json()).job_id)
      }
      a.startWorker()
      b.startWorker()
      for (const id of jobs) {
        const job = await waitForJob(a, id, auth)
        expect(job.state).toBe('partially_failed')
        expect(job.attempts).toBe(1)
      }
      const count = async (table: string) =>
        (await sqlOf(a).get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n
      expect(await count('articles')).toBe(4)
      expect(await count('article_versions')).toBe(4)
      const created = await sqlOf(a).all<{ counts: string }>('SELECT counts FROM ingest_jobs')
      expect(created.reduce((n, r) => n + (JSON.parse(r.counts).created ?? 0), 0)).toBe(4)
      for (const unit of [a, b]) {
        const res = await unit.send(
          'POST',
          '/v1/search/semantic',
          { query: 'hydrogen trains', limit: 1 },
          auth,
        )
        expect(res.status).toBe(200)
        expect((await res.json()).results[0].canonical_url).toMatch(/hydrogen-trains/)
      }
    } finally {
      await a.dispose()
      await b.dispose()
      await sqld.stop()
    }
  })
})

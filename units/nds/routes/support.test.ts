import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { bootNds, createKey, fixtureServer, waitForJob } from '../testing.ts'

const fixtures = fixtureServer()
const unit = await bootNds()
let me: { accountId: string; auth: Record<string, string> }
let other: { accountId: string; auth: Record<string, string> }
let jobId: string
let articleId: string

beforeAll(async () => {
  unit.startWorker()
  me = await createKey(unit, 'me')
  other = await createKey(unit, 'other')
  const job = await (
    await unit.send(
      'POST',
      '/v1/ingest/rss/backfill',
      {
        urls: [`${fixtures.url}/rss/world.xml`, `${fixtures.url}/rss/wire.atom`],
        from: '2026-10-01T00:00:00Z',
      },
      me.auth,
    )
  ).json()
  jobId = (await waitForJob(unit, job.job_id, me.auth)).job_id
  const hit = await (await unit.send('POST', '/v1/search/filter', { query: '"stand idle"' }, me.auth)).json()
  articleId = hit.results[0].article_id
})
afterAll(async () => {
  fixtures.stop()
  await unit.dispose()
})

describe('support cases', () => {
  test('a case with evidence; enrich attaches duplicates, search results and job articles, once', async () => {
    const res = await unit.send(
      'POST',
      `/v1/accounts/${me.accountId}/support-cases`,
      {
        subject: 'Duplicate strike stories',
        description: 'Two sources report the same strike.',
        evidence: [
          { kind: 'article', ref: articleId },
          { kind: 'search', ref: 'hydrogen trains' },
          { kind: 'job', ref: jobId },
        ],
      },
      me.auth,
    )
    expect(res.status).toBe(201)
    const c = await res.json()
    expect(c.evidence.map((e: { kind: string }) => e.kind).sort()).toEqual(['article', 'job', 'search'])
    expect(c.evidence.find((e: { kind: string }) => e.kind === 'job').detail.state).toBe('partially_failed')
    const enrich = await unit.send('POST', `/v1/support-cases/${c.case_id}/evidence/enrich`, {}, me.auth)
    const enriched = await enrich.json()
    expect(enriched.added).toBeGreaterThan(0)
    const reasons = new Set(enriched.evidence.map((e: { detail: { reason?: string } }) => e.detail.reason))
    expect(reasons).toContain('same_duplicate_cluster')
    expect(reasons).toContain('search_result')
    expect(reasons).toContain('written_by_job')
    const again = await (
      await unit.send('POST', `/v1/support-cases/${c.case_id}/evidence/enrich`, {}, me.auth)
    ).json()
    expect(again.added).toBe(0)
    const listed = await (
      await unit.request(`/v1/support-cases/${c.case_id}/evidence`, { headers: me.auth })
    ).json()
    expect(listed.evidence.length).toBe(enriched.evidence.length)
  })

  test("evidence that does not exist for the account is 422; another account's case or account is 404", async () => {
    const bad = await unit.send(
      'POST',
      `/v1/accounts/${other.accountId}/support-cases`,
      { subject: 's', description: 'd', evidence: [{ kind: 'job', ref: jobId }] },
      other.auth,
    )
    expect(bad.status).toBe(422)
    expect((await bad.json()).error.details.missing).toEqual([{ kind: 'job', ref: jobId }])
    expect(
      (
        await unit.send(
          'POST',
          `/v1/accounts/${me.accountId}/support-cases`,
          { subject: 's', description: 'd' },
          other.auth,
        )
      ).status,
    ).toBe(404)
    const mine = await (
      await unit.send(
        'POST',
        `/v1/accounts/${me.accountId}/support-cases`,
        { subject: 's', description: 'd' },
        me.auth,
      )
    ).json()
    expect(
      (await unit.request(`/v1/support-cases/${mine.case_id}/evidence`, { headers: other.auth })).status,
    ).toBe(404)
    expect(
      (await unit.send('POST', `/v1/support-cases/${mine.case_id}/evidence/enrich`, {}, other.auth)).status,
    ).toBe(404)
    expect((await unit.request('/v1/support-cases/nope/evidence', { headers: me.auth })).status).toBe(404)
  })
})

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../../common/hash.ts'
import { bootNds, createKey, fixtureServer, waitForJob } from '../testing.ts'

const fixtures = fixtureServer()
const unit = await bootNds()
let auth: Record<string, string>
let other: Record<string, string>

beforeAll(async () => {
  unit.startWorker()
  ;({ auth } = await createKey(unit))
  ;({ auth: other } = await createKey(unit, 'other'))
  const ingest = async (path: string, body: unknown) => {
    const job = await (await unit.send('POST', path, body, auth)).json()
    await waitForJob(unit, job.job_id, auth)
  }
  const range = { from: '2026-10-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }
  await ingest('/v1/ingest/rss/backfill', {
    urls: [`${fixtures.url}/rss/world.xml`, `${fixtures.url}/rss/wire.atom`],
    ...range,
  })
  await ingest('/v1/ingest/event_db', { urls: [`${fixtures.url}/gdelt/20261102101500.export.CSV`] })
})
afterAll(async () => {
  fixtures.stop()
  await unit.dispose()
})

describe('dataset snapshots', () => {
  test('a query frozen into JSONL with a manifest; downloads are the same bytes, hashed as stated', async () => {
    const res = await unit.send(
      'POST',
      '/v1/datasets/snapshots',
      { query: 'strike', filters: { sources: ['rss'] } },
      auth,
    )
    expect(res.status).toBe(201)
    const snap = await res.json()
    const file = snap.manifest.files[0]
    expect(snap.manifest.counts.articles).toBe(file.records)
    expect(file.records).toBeGreaterThan(0)
    const first = await unit.request(file.download_url, { headers: auth })
    expect(first.headers.get('content-type')).toContain('application/x-ndjson')
    const bytes = new Uint8Array(await first.arrayBuffer())
    expect(sha256Hex(bytes)).toBe(file.sha256)
    const lines = new TextDecoder()
      .decode(bytes)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.every((l) => l.source === 'rss')).toBe(true)

    // new data arrives; the snapshot does not move
    await unit.send(
      'POST',
      '/v1/ingest/rss/backfill',
      { urls: [`${fixtures.url}/rss/world-updated.xml`], from: '2026-10-01T00:00:00Z' },
      auth,
    )
    await unit.settle()
    const again = new Uint8Array(
      await (await unit.request(file.download_url, { headers: auth })).arrayBuffer(),
    )
    expect(again).toEqual(bytes)
    expect(
      await (await unit.request(`/v1/datasets/snapshots/${snap.snapshot_id}`, { headers: auth })).json(),
    ).toEqual(snap)
  })

  test("another account's snapshot and unknown files are 404", async () => {
    const snap = await (await unit.send('POST', '/v1/datasets/snapshots', {}, auth)).json()
    expect(
      (await unit.request(`/v1/datasets/snapshots/${snap.snapshot_id}`, { headers: other })).status,
    ).toBe(404)
    expect(
      (
        await unit.request(`/v1/datasets/snapshots/${snap.snapshot_id}/files/articles.jsonl`, {
          headers: other,
        })
      ).status,
    ).toBe(404)
    expect(
      (await unit.request(`/v1/datasets/snapshots/${snap.snapshot_id}/files/other.csv`, { headers: auth }))
        .status,
    ).toBe(404)
    expect((await unit.request('/v1/datasets/snapshots/nope', { headers: auth })).status).toBe(404)
  })
})

describe('simulation exports', () => {
  test('time-bucketed article and event series as JSON and CSV', async () => {
    const body = { from: '2026-10-30T00:00:00Z', to: '2026-11-03T00:00:00Z', bucket: 'day' }
    const json = await (await unit.send('POST', '/v1/exports/simulation', body, auth)).json()
    const nov2 = json.series.find((r: { bucket: string }) => r.bucket === '2026-11-02')
    expect(nov2).toMatchObject({ events: 4, mentions: 29 })
    expect(nov2.articles).toBeGreaterThan(0)
    const csv = await (
      await unit.send('POST', '/v1/exports/simulation', { ...body, format: 'csv' }, auth)
    ).json()
    expect(csv.csv.split('\n')[0]).toBe('bucket,articles,sources,events,mentions,avg_goldstein,avg_tone')
    expect(csv.csv).toContain('2026-11-02,')
    const fetched = await (await unit.request(`/v1/exports/${csv.export_id}`, { headers: auth })).json()
    expect(fetched.csv).toBe(csv.csv)
    expect(fetched.sha256).toBe(sha256Hex(csv.csv))
    expect((await unit.request(`/v1/exports/${csv.export_id}`, { headers: other })).status).toBe(404)
    const backwards = await unit.send(
      'POST',
      '/v1/exports/simulation',
      { from: body.to, to: body.from },
      auth,
    )
    expect(backwards.status).toBe(422)
  })
})

describe('research runs', () => {
  test('queued, then succeeded with volume, sources, entities and clusters', async () => {
    const res = await unit.send('POST', '/v1/research/runs', { query: 'strike' }, auth)
    expect(res.status).toBe(202)
    const run = await res.json()
    expect(run.state).toBe('queued')
    await unit.settle()
    const done = await (await unit.request(`/v1/research/runs/${run.run_id}`, { headers: auth })).json()
    expect(done.state).toBe('succeeded')
    expect(done.results.top_entities[0]).toEqual({ entity: 'Labour', articles: 2 })
    expect(done.results.cluster_summaries[0].members).toBe(2)
    expect(done.results.volume_over_time.length).toBeGreaterThan(0)
    expect(done.results.top_sources.length).toBeGreaterThan(0)
    expect((await unit.request(`/v1/research/runs/${run.run_id}`, { headers: other })).status).toBe(404)
  })
})

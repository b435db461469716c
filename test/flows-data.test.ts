/**
 * The end-to-end flows of NDS, WTA and the mailbox adapter (issue 17), beside `flows.test.ts`:
 * each HTTP unit a real `bun bin/svc.ts unit <name>` process wired by `suiteEnv` exactly as
 * `svc suite` wires it, with the operator's environment a suite of these units runs with (the
 * API token WTA and the mailbox share, the automation tool, the mailbox's downstream). Nothing
 * stands between two units. What stands outside the suite is a local server here, as it is
 * outside the suite in production: the news feed NDS ingests, the n8n WTA reads (WTA's stand-in
 * of n8n's public API), and the mailbox's downstream.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { unitContracts } from '../units/contracts.ts'
import { exampleWorkflows, type FakeN8n, fakeN8n } from '../units/wta/testing.ts'
import type { Json } from './harness.ts'
import { eventually, prsDrift, type SuiteProcesses, startSuite } from './suite-processes.ts'

const ROOT = join(import.meta.dir, '..')
const API_TOKEN = 'flows-data-api-token-0123456789'
const UNITS = ['nds', 'wta', 'mailbox', 'prs'] as const
const OBSERVED = ['nds', 'wta', 'mailbox'] as const
/** The mailbox's limit as the suite runs it (CONTRACTS: `MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES` default). */
const MAILBOX_LIMIT = 131_072

type Unit = (typeof UNITS)[number]

/** An RSS 2.0 feed as a news site serves it: a story, its syndicated copy, and another story. */
const STORY =
  'The keepers of the Skerryvore lighthouse returned to the rock on Tuesday after the automated lamp failed during the autumn gales. The northern lighthouse board said two keepers would stay on the tower until a replacement lens arrives from the mainland, and fishing boats were told to keep clear of the reef at night.'
const feedXml = (base: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>Flows Coast News</title>
    <link>${base}/</link>
    <description>Coastal news</description>
    <language>en</language>
    <item>
      <title>Keepers return to Skerryvore lighthouse after lamp failure</title>
      <link>https://coast.example/2026/11/skerryvore?utm_source=rss&amp;utm_medium=feed</link>
      <guid isPermaLink="false">coast-1</guid>
      <pubDate>Tue, 10 Nov 2026 07:30:00 GMT</pubDate>
      <category>Maritime</category>
      <content:encoded><![CDATA[<p>${STORY}</p>]]></content:encoded>
    </item>
    <item>
      <title>Keepers return to Skerryvore lighthouse after lamp failure</title>
      <link>https://syndicate.example/coast/skerryvore-keepers</link>
      <guid isPermaLink="false">coast-1-syndicated</guid>
      <pubDate>Tue, 10 Nov 2026 09:00:00 GMT</pubDate>
      <content:encoded><![CDATA[<p>${STORY} Reporting by the coast desk.</p>]]></content:encoded>
    </item>
    <item>
      <title>Beekeepers report a record heather honey harvest</title>
      <link>https://coast.example/2026/11/heather-honey</link>
      <guid isPermaLink="false">coast-2</guid>
      <pubDate>Wed, 11 Nov 2026 12:00:00 GMT</pubDate>
      <description><![CDATA[<p>Beekeepers on the moors reported the largest heather honey harvest in a decade after a warm and dry late summer.</p>]]></description>
    </item>
  </channel>
</rss>`

interface Forwarded {
  body: Json
  topic: string | null
  messageId: string
}

let suite: SuiteProcesses
let n8n: FakeN8n
let feed: ReturnType<typeof Bun.serve>
let downstream: ReturnType<typeof Bun.serve>
const forwarded: Forwarded[] = []
/** Attempts the downstream saw per message id: each message's first is refused (503), later ones accepted. */
const attempts = new Map<string, number>()

beforeAll(async () => {
  feed = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === '/coast.xml'
        ? new Response(feedXml(`http://127.0.0.1:${feed.port}`), {
            headers: { 'content-type': 'application/rss+xml' },
          })
        : new Response('not found', { status: 404 }),
  })
  downstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const messageId = req.headers.get('x-mailbox-message-id') ?? ''
      attempts.set(messageId, (attempts.get(messageId) ?? 0) + 1)
      if (attempts.get(messageId) === 1) return new Response('busy', { status: 503 })
      forwarded.push({
        body: await req.json(),
        topic: req.headers.get('x-mailbox-topic'),
        messageId,
      })
      return Response.json({ ok: true })
    },
  })
  n8n = fakeN8n()
  suite = await startSuite([...UNITS], {
    // The operator's environment for a suite with WTA's messaging stack.
    SVC_API_TOKEN: API_TOKEN,
    WTA_AUTOMATION_URL: n8n.url,
    WTA_AUTOMATION_API_KEY: n8n.apiKey,
    MAILBOX_DOWNSTREAM_URL: `http://127.0.0.1:${downstream.port}/inbox`,
    MAILBOX_OUTBOX_POLL_MS: '100',
    PRS_OBSERVE_INTERVAL_MS: '1000',
  })
}, 40_000)

afterAll(async () => {
  await suite?.close()
  n8n?.stop()
  feed?.stop(true)
  downstream?.stop(true)
})

async function call(unit: Unit, path: string, init: RequestInit = {}) {
  const res = await fetch(suite.url(unit) + path, init)
  const text = await res.text()
  let body: Json = text
  try {
    body = JSON.parse(text)
  } catch {
    // a text body (the mailbox's 413) stays text
  }
  return { status: res.status, body, type: res.headers.get('content-type') ?? '' }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
})

describe('PRS observes NDS, WTA and the mailbox adapter', () => {
  test('each is up in PRS, its liveness observed, none unobserved and no drift for any of them', async () => {
    const services = await eventually(
      () => call('prs', '/api/v1/platform/services'),
      (r) => OBSERVED.every((u) => r.body.services.find((s: Json) => s.unit === u)?.state === 'up'),
    )
    const state = Object.fromEntries(services.body.services.map((s: Json) => [s.unit, s.state]))
    for (const unit of OBSERVED) expect(state[unit]).toBe('up')
    const observations = (await call('prs', '/api/v1/tools/runtime-observations')).body.observations as Json[]
    for (const unit of OBSERVED) {
      const contract = unitContracts.find((c) => c.unit === unit)
      const live = observations.find((o) => o.unit === unit && o.surface === 'liveness')
      expect(live).toMatchObject({ ok: true, status: 200, url: `${suite.url(unit)}${contract?.liveness}` })
      // None of the three declares a live manifest (their contracts say so): liveness is all PRS reads.
      expect(contract?.manifest_path).toBeNull()
      expect(observations.filter((o) => o.unit === unit).map((o) => o.surface)).toEqual(['liveness'])
    }
    const drift = (await call('prs', '/api/v1/contracts/drift')).body
    expect(drift.items.filter((i: Json) => (OBSERVED as readonly string[]).includes(i.unit))).toEqual([])
    expect(drift.blocking_count).toBe(0)
    const unobserved = drift.unobserved.map((u: Json) => u.unit)
    for (const unit of OBSERVED) expect(unobserved).not.toContain(unit)
  }, 15_000)

  test('with the mailbox stopped PRS reports it unobserved (not drift); started again, it is up', async () => {
    expect(await suite.stop('mailbox')).toBe(0)
    try {
      const drift = await eventually(
        () => call('prs', '/api/v1/contracts/drift'),
        (r) => r.body.unobserved.some((u: Json) => u.unit === 'mailbox'),
      )
      const reason = drift.body.unobserved.find((u: Json) => u.unit === 'mailbox')?.reason
      expect(reason).toStartWith('liveness unreachable')
      expect(drift.body.items.filter((i: Json) => i.unit === 'mailbox')).toEqual([])
      const services = (await call('prs', '/api/v1/platform/services')).body.services as Json[]
      expect(services.find((s) => s.unit === 'mailbox')?.state).not.toBe('up')
      expect(services.find((s) => s.unit === 'wta')?.state).toBe('up')
    } finally {
      await suite.start('mailbox')
    }
    const back = await eventually(
      () => call('prs', '/api/v1/platform/services'),
      (r) => r.body.services.find((s: Json) => s.unit === 'mailbox')?.state === 'up',
    )
    expect(back.body.services.find((s: Json) => s.unit === 'mailbox')?.state).toBe('up')
  }, 20_000)

  test('an address that answers as another unit contradicts the contract: blocking drift for that unit only', async () => {
    // An operator's wiring mistake, with real units only: WTA's address points at the mailbox,
    // whose server has no /api/v1/health. NDS beside it is wired right and stays clean.
    const { prs, drift } = await prsDrift(`wta=${suite.url('mailbox')},nds=${suite.url('nds')}`)
    try {
      expect(drift.status).toBe('blocking')
      const blocking = drift.items.filter((i: Json) => i.severity === 'blocking')
      expect(blocking).toEqual([
        expect.objectContaining({
          unit: 'wta',
          kind: 'liveness_route_missing',
          contract_value: '/api/v1/health',
          observed_value: 404,
        }),
      ])
      expect(drift.items.filter((i: Json) => i.unit === 'nds')).toEqual([])
    } finally {
      expect(await prs.stop()).toBe(0)
    }
  }, 20_000)
})

/** `svc nds keys create <name>` on NDS's data directory, as an operator runs it. */
async function ndsKey(name: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'nds', 'keys', 'create', name], {
    cwd: ROOT,
    env: { ...process.env, ...suite.envOf('nds') },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  expect({ code, err }).toEqual({ code: 0, err: '' })
  return out.trim().split('\n').at(-1) ?? ''
}

describe("NDS: a key from the command line searches what NDS ingested from a site's feed", () => {
  test('keys create, ingest the feed, then full-text and semantic search, and the syndicated copy clustered', async () => {
    const key = await ndsKey('flows-analyst')
    expect(key).toMatch(/^nds_/)
    const auth = bearer(key)
    expect((await call('nds', '/v1/search/filter', postJson({ query: 'Skerryvore' }))).status).toBe(401)
    expect(
      (await call('nds', '/v1/search/filter', postJson({ query: 'Skerryvore' }, bearer('nds_wrong')))).status,
    ).toBe(401)
    const feedUrl = `http://127.0.0.1:${feed.port}/coast.xml`
    const job = await call(
      'nds',
      '/v1/ingest/rss/backfill',
      postJson({ urls: [feedUrl], from: '2026-11-01T00:00:00Z' }, auth),
    )
    expect(job.status).toBe(202)
    const done = await eventually(
      () => call('nds', `/v1/jobs/${job.body.job_id}`, { headers: auth }),
      (r) => r.body.state !== 'queued' && r.body.state !== 'running',
    )
    expect(done.body).toMatchObject({ state: 'succeeded', errors: [] })
    expect(done.body.counts).toMatchObject({ created: 3 })

    const text = await call('nds', '/v1/search/filter', postJson({ query: 'lighthouse keepers' }, auth))
    expect(text.status).toBe(200)
    const urls = text.body.results.map((r: Json) => r.canonical_url).sort()
    // Tracking parameters are gone from the canonical URL; the honey story does not match.
    expect(urls).toEqual([
      'https://coast.example/2026/11/skerryvore',
      'https://syndicate.example/coast/skerryvore-keepers',
    ])
    const semantic = await call(
      'nds',
      '/v1/search/semantic',
      postJson({ query: 'heather honey from the moors', limit: 1 }, auth),
    )
    expect(semantic.status).toBe(200)
    expect(semantic.body.results[0].canonical_url).toBe('https://coast.example/2026/11/heather-honey')

    const original = text.body.results.find((r: Json) => r.canonical_url.includes('coast.example'))
    const cluster = await call('nds', `/v1/articles/${original.article_id}/dedupe-cluster`, { headers: auth })
    expect(cluster.status).toBe(200)
    expect(cluster.body.members.map((m: Json) => m.canonical_url).sort()).toEqual(urls)
    // The representative-only filter shows the story once.
    const once = await call(
      'nds',
      '/v1/search/filter',
      postJson({ query: 'Skerryvore', filters: { representative_only: true } }, auth),
    )
    expect(once.body.results).toHaveLength(1)
  }, 20_000)
})

describe("WTA's API with the suite's token", () => {
  test("the token guards every route but health; with it WTA answers the tool's inventory and catalog", async () => {
    const health = await call('wta', '/api/v1/health')
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ automation_reachable: true })
    expect((await call('wta', '/api/v1/workflows')).status).toBe(401)
    expect(
      (await call('wta', '/api/v1/workflows', { headers: bearer('not-the-suite-token-0000') })).status,
    ).toBe(401)
    const auth = { headers: bearer(API_TOKEN) }
    const list = await call('wta', '/api/v1/workflows', auth)
    expect(list.status).toBe(200)
    expect(list.body.meta.source).toBe('live')
    expect(list.body.data.count).toBe(n8n.workflows.length)
    const examples = exampleWorkflows()
    const baseline = await call('wta', '/api/v1/catalog/baseline/latest', auth)
    expect(baseline.status).toBe(200)
    const inUse = new Set(examples.flatMap((w) => w.nodes.map((n) => n.type)))
    expect(baseline.body.data.node_types.map((t: Json) => t.node_type).sort()).toEqual([...inUse].sort())
    expect(baseline.body.data.workflows).toBe(examples.length)
    const status = await call('wta', '/api/v1/status', auth)
    expect(status.body.data.operator.auth).toBe('bearer')
    expect(status.body.data.catalog.workflows).toBe(examples.length)
  })
})

/** A publish body of exactly `bytes` bytes (UTF-8), padded in the message. */
function publishBodyOf(bytes: number, topic: string): string {
  const empty = JSON.stringify({ topic, message: { note: '' } })
  const body = JSON.stringify({ topic, message: { note: 'x'.repeat(bytes - empty.length) } })
  expect(Buffer.byteLength(body)).toBe(bytes)
  return body
}

describe('the mailbox adapter with the same token as WTA', () => {
  test('publish needs the token; the limit is exact: 131072 bytes accepted, one more is 413 payload too large', async () => {
    expect((await call('mailbox', '/healthz')).body.max_payload_bytes).toBe(MAILBOX_LIMIT)
    const small = { topic: 'flows.limit', message: { n: 1 } }
    expect((await call('mailbox', '/publish', postJson(small))).status).toBe(401)
    expect(
      (await call('mailbox', '/publish', postJson(small, bearer('not-the-suite-token-0000')))).status,
    ).toBe(401)
    const auth = bearer(API_TOKEN)
    const atLimit = await call(
      'mailbox',
      '/publish',
      postJson(publishBodyOf(MAILBOX_LIMIT, 'flows.limit'), auth),
    )
    expect(atLimit.status).toBe(202)
    expect(atLimit.body).toMatchObject({ ok: true, size_bytes: MAILBOX_LIMIT, forwarding: 'queued' })
    const over = await call(
      'mailbox',
      '/publish',
      postJson(publishBodyOf(MAILBOX_LIMIT + 1, 'flows.limit'), auth),
    )
    expect(over).toMatchObject({ status: 413, body: 'payload too large' })
    expect(over.type).toStartWith('text/plain')
    // Only the accepted one is stored.
    const stored = await call('mailbox', '/messages?topic=flows.limit', { headers: auth })
    expect(stored.body.data.map((m: Json) => m.message_id)).toEqual([atLimit.body.message_id])
  })

  test('an accepted message reaches the downstream, retried after the downstream refused it once', async () => {
    const auth = bearer(API_TOKEN)
    const sent = await call(
      'mailbox',
      '/publish',
      postJson({ topic: 'flows.orders', message: { order: 42 }, headers: { 'x-source': 'flows' } }, auth),
    )
    expect(sent.status).toBe(202)
    const id = sent.body.message_id
    const arrived = await eventually(
      async () => forwarded.find((f) => f.messageId === id),
      (f) => f !== undefined,
    )
    expect(arrived).toMatchObject({
      topic: 'flows.orders',
      messageId: id,
      body: {
        message_id: id,
        topic: 'flows.orders',
        message: { order: 42 },
        headers: { 'x-source': 'flows' },
      },
    })
    // Refused once, delivered on the retry, and not again.
    expect(attempts.get(id)).toBe(2)
    expect(forwarded.filter((f) => f.messageId === id)).toHaveLength(1)
    const health = await eventually(
      () => call('mailbox', '/healthz'),
      (r) => r.body.downstream.pending === 0,
    )
    expect(health.body).toMatchObject({ status: 'ok', downstream: { configured: true, pending: 0, dead: 0 } })
  }, 15_000)
})

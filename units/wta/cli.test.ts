import { afterEach, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CliIo } from '../../common/cli.ts'
import {
  bootForTestAsync,
  type FakePeer,
  fakePeer,
  json,
  type TestUnit,
  tempDir,
  testDriver,
} from '../../test/harness.ts'
import { type Sqld, startSqld } from '../../test/sqld.ts'
import { wtaCli } from './cli.ts'
import { wta } from './index.ts'
import { EXAMPLES_DIR, type FakeN8n, fakeN8n } from './testing.ts'

const open: { peers: (FakePeer | FakeN8n)[]; units: TestUnit<unknown>[]; servers: Sqld[] } = {
  peers: [],
  units: [],
  servers: [],
}
afterEach(async () => {
  for (const p of open.peers.splice(0)) p.stop()
  for (const u of open.units.splice(0)) await u.dispose()
  for (const s of open.servers.splice(0)) await s.stop()
})

/** On the libSQL test driver, the commands (and the unit beside them) use one fresh sqld. */
async function database(): Promise<Record<string, string>> {
  if (testDriver() !== 'libsql') return {}
  const server = await startSqld()
  open.servers.push(server)
  return { DATABASE_URL: server.url }
}

async function env(extra: Record<string, string> = {}) {
  const n8n = fakeN8n()
  const upstream = fakePeer(() =>
    json({ 'dist-tags': { latest: '2.8.4' }, time: { '2.8.4': '2026-11-10T12:00:00.000Z' } }),
  )
  open.peers.push(n8n, upstream)
  return {
    n8n,
    env: {
      SVC_DATA_DIR: tempDir('wta-cli-'),
      WTA_AUTOMATION_URL: n8n.url,
      WTA_AUTOMATION_API_KEY: n8n.apiKey,
      WTA_AUTOMATION_TIMEOUT_MS: '1000',
      WTA_UPSTREAM_URL: upstream.url,
      ...(await database()),
      ...extra,
    } as Record<string, string>,
  }
}

async function run(args: string[], e: Record<string, string>) {
  let out = ''
  let err = ''
  const io: CliIo = {
    stdout(t) {
      out += t
    },
    stderr(t) {
      err += t
    },
  }
  const code = await wtaCli.run(args, e, io)
  return { code, out, err, json: () => JSON.parse(out) }
}

/** A body without the moments it was made or read at, which differ between two calls. */
const TIMES = new Set(['generated_at', 'checked_at', 'taken_at', 'snapshot_taken_at'])
const withoutTimes = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutTimes)
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([k]) => !TIMES.has(k))
            .map(([k, x]) => [k, withoutTimes(x)]),
        )
      : v

describe('svc wta', () => {
  test('every command answers like its API route (same body with --json), on the same data directory', async () => {
    const { env: e } = await env()
    const u = await bootForTestAsync(wta, e, e.SVC_DATA_DIR)
    open.units.push(u as TestUnit<unknown>)
    const pairs: [string[], string, RequestInit?][] = [
      [['workflows'], '/api/v1/workflows'],
      [['workflow', 'wf3'], '/api/v1/workflows/wf3'],
      [['context', 'wf3'], '/api/v1/workflows/wf3/context'],
      [
        ['validate', 'wf3'],
        '/api/v1/workflows/wf3/validate',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      ],
      [['baseline'], '/api/v1/catalog/baseline/latest'],
      [['upstream'], '/api/v1/upstream/releases/latest'],
      [['upgrade', 'summary'], '/api/v1/upgrade/summary'],
      [['upgrade', 'backlog', '--target', '2.0.0'], '/api/v1/upgrade/backlog?target_version=2.0.0'],
      [['upgrade', 'batches'], '/api/v1/upgrade/batches'],
      [
        ['upgrade', 'impact', '--target', '2.8.4'],
        '/api/v1/upgrade/impact',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"target_version":"2.8.4"}',
        },
      ],
    ]
    for (const [args, path, init] of pairs) {
      const cli = await run([...args, '--json'], e)
      expect({ args, code: cli.code }).toEqual({ args, code: 0 })
      const api = await (await u.request(path, init)).json()
      const c = withoutTimes(cli.json())
      const a = withoutTimes(api)
      expect({ args, body: c }).toEqual({ args, body: a })
    }
  })

  test('human output and exit codes: health, status, invalid workflow, alerts', async () => {
    const { env: e, n8n } = await env()
    const h = await run(['health'], e)
    expect(h.code).toBe(0)
    expect(h.out).toContain('reachable (ok)')
    const s = await run(['status'], e)
    expect(s.code).toBe(0)
    expect(s.out).toContain('API surface 1.0.0 (pilot), auth open')
    const bad = await run(['validate', 'wf1'], e)
    expect(bad.code).toBe(1)
    expect(bad.out).toContain('INVALID')
    expect(bad.out).toContain('dangling_connection [Read Token]')
    const a = await run(['upgrade', 'alerts'], e)
    expect(a.code).toBe(1)
    expect(a.out).toContain('CRITICAL upgrade_blocked')
    const impact = await run(['upgrade', 'impact', '--target', '2.8.4'], e)
    expect(impact.out).toContain('critical Archive Locally (n8n-nodes-base.executeCommand) manual')
    n8n.stop()
    const down = await run(['health', '--json'], e)
    expect(down.code).toBe(1)
    expect(down.json().automation_reachable).toBe(false)
    // The snapshot answers offline, and says so.
    const offline = await run(['workflows'], e)
    expect(offline.code).toBe(0)
    expect(offline.out).toContain('from the stored snapshot')
  })

  test('validate --file checks a workflow document without the tool', async () => {
    const e = { SVC_DATA_DIR: tempDir('wta-cli-') }
    const ok = await run(['validate', '--file', join(EXAMPLES_DIR, 'webhook-to-http.json')], e)
    expect(ok.code).toBe(0)
    expect(ok.out).toContain('valid (0 errors, 0 warnings)')
    const legacy = await run(
      ['validate', '--file', join(EXAMPLES_DIR, 'legacy-nightly-report.json'), '--json'],
      e,
    )
    expect(legacy.json().data.issues.map((i: { code: string }) => i.code)).toContain('deprecated_node_type')
    const junk = join(e.SVC_DATA_DIR, 'junk.json')
    writeFileSync(junk, '{"name": 1}')
    expect((await run(['validate', '--file', junk], e)).code).toBe(2)
  })

  test('bad usage and configuration exit 2; a missing tool exits 1 with the error code', async () => {
    expect((await run([], {})).code).toBe(2)
    expect((await run(['nope'], {})).code).toBe(2)
    expect((await run(['workflow'], { SVC_DATA_DIR: tempDir('wta-cli-') })).code).toBe(2)
    expect((await run(['hotspots', '--hours', 'x'], { SVC_DATA_DIR: tempDir('wta-cli-') })).code).toBe(2)
    const below = await run(['status'], {
      SVC_DATA_DIR: tempDir('wta-cli-'),
      WTA_FLOW_CONTROL_POLL_SECONDS: '10',
    })
    expect(below.code).toBe(2)
    expect(below.err).toContain('WTA_FLOW_CONTROL_POLL_SECONDS')
    const noServer = await run(['status'], {
      SVC_DATA_DIR: tempDir('wta-cli-'),
      DATABASE_URL: 'http://user:secret@127.0.0.1:1',
    })
    expect(noServer.code).toBe(2)
    expect(noServer.err).toContain('DATABASE_URL: cannot open the database at http://127.0.0.1:1')
    expect(noServer.err).not.toContain('secret')
    const none = await run(['workflows', '--json'], { SVC_DATA_DIR: tempDir('wta-cli-') })
    expect(none.code).toBe(1)
    expect(none.json().error.code).toBe('automation_not_configured')
  })

  test('commands and observer rounds are appended to logs/events.jsonl; upgrade report feeds scheduled', async () => {
    const { env: e, n8n } = await env()
    expect((await run(['observe'], e)).code).toBe(0)
    const w = n8n.workflows[2]
    if (w)
      w.nodes[0] = {
        ...w.nodes[0],
        name: 'Order Webhook',
        type: 'n8n-nodes-base.webhook',
        parameters: { path: 'orders-v2', httpMethod: 'POST' },
      }
    expect((await run(['observe'], e)).code).toBe(0)
    expect((await run(['upgrade', 'report'], e)).code).toBe(0)
    const scheduled = await run(['upgrade', 'scheduled'], e)
    expect(scheduled.code).toBe(0)
    expect(scheduled.out).toContain('n8n 1.60.0 -> 2.8.4: blocked')
    const events = (await run(['events', '--json'], e)).json().data.events as {
      kind: string
      detail: Record<string, unknown>
    }[]
    const kinds = events.map((x) => x.kind)
    expect(kinds).toContain('workflows.changed')
    expect(kinds).toContain('webhook_contract.changed')
    expect(kinds).toContain('command.observe')
    expect(kinds).toContain('upgrade.report')
    const changed = events.filter((x) => x.kind === 'webhook_contract.changed').at(-1)
    expect(JSON.stringify(changed?.detail)).toContain('orders-v2')
    // Append-only: earlier lines are still there after more commands.
    const before = events.length
    await run(['health'], e)
    expect((await run(['events', '--json', '--lines', '300'], e)).json().data.events.length).toBe(before + 2)
    expect(JSON.stringify(events)).not.toContain(n8n.apiKey)
  })
})

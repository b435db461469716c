import { afterEach, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  bootForTestAsync,
  type FakePeer,
  fakePeer,
  json,
  type TestUnit,
  tempDir,
} from '../../test/harness.ts'
import { wta } from './index.ts'
import { execution, type FakeN8n, fakeN8n, jsonSchemaValidator } from './testing.ts'

const open: { units: TestUnit<unknown>[]; peers: (FakePeer | FakeN8n)[] } = { units: [], peers: [] }
afterEach(async () => {
  for (const u of open.units.splice(0)) await u.dispose()
  for (const p of open.peers.splice(0)) p.stop()
})

const registry = (latest = '2.8.4') =>
  fakePeer(() =>
    json({ name: 'n8n', 'dist-tags': { latest }, time: { [latest]: '2026-11-10T12:00:00.000Z' } }),
  )

async function setup(env: Record<string, string> = {}, n8n = fakeN8n()) {
  const upstream = registry()
  open.peers.push(n8n, upstream)
  const u = await bootForTestAsync(wta, {
    WTA_AUTOMATION_URL: n8n.url,
    WTA_AUTOMATION_API_KEY: n8n.apiKey,
    WTA_AUTOMATION_TIMEOUT_MS: '1000',
    WTA_UPSTREAM_URL: upstream.url,
    ...env,
  })
  open.units.push(u as TestUnit<unknown>)
  return { u, n8n, upstream }
}

const get = async (u: TestUnit<unknown>, path: string, headers: Record<string, string> = {}) => {
  const res = await u.request(path, { headers })
  return { status: res.status, body: await res.json() }
}

describe('health and status', () => {
  test('health reports the API and the tool; the tool going away is reported, not a failure', async () => {
    const { u, n8n } = await setup()
    const up = await get(u, '/api/v1/health')
    expect(up.status).toBe(200)
    expect(up.body).toMatchObject({
      ok: true,
      automation_reachable: true,
      data: { api: 'ok', automation: { configured: true, reachable: true } },
    })
    expect(up.body.meta.api_version).toBe('1.0.0')
    n8n.stop()
    const down = await get(u, '/api/v1/health')
    expect(down.status).toBe(200)
    expect(down.body.automation_reachable).toBe(false)
    expect(down.body.data.automation.reason).toStartWith('unreachable')
  })

  test('health checks that arrive together share one probe of the tool; the next one asks again', async () => {
    const { u, n8n } = await setup()
    const probes = () => n8n.requests.filter((p) => p === '/healthz').length
    const burst = await Promise.all(Array.from({ length: 8 }, () => get(u, '/api/v1/health')))
    expect(burst.map((r) => r.body.automation_reachable)).toEqual(Array(8).fill(true))
    expect(probes()).toBe(1)
    await get(u, '/api/v1/health')
    expect(probes()).toBe(2)
  })

  test('status says the API is open without SVC_API_TOKEN, and carries the API surface version', async () => {
    const { u } = await setup()
    const s = await get(u, '/api/v1/status')
    expect(s.status).toBe(200)
    expect(s.body.data.operator.auth).toBe('open')
    expect(s.body.data.platform.api_surface_version).toBe('1.0.0')
    expect(s.body.data.runtime.automation_version).toBe('1.60.0')
    expect(s.body.data.catalog.node_types_n8n_version).toBe('2.8.4')
  })

  test('status reports webhook and callback contracts as monitored states', async () => {
    const n8n = fakeN8n()
    const crm = n8n.workflows[0]
    crm?.nodes.push({
      name: 'Await Approval',
      type: 'n8n-nodes-base.wait',
      typeVersion: 1.1,
      parameters: { resume: 'webhook', httpMethod: 'POST' },
    })
    const { u } = await setup({}, n8n)
    await get(u, '/api/v1/workflows')
    const s = (await get(u, '/api/v1/status')).body.data.platform.webhooks
    expect(s.contracts).toEqual([
      {
        workflow_id: 'wf1',
        node: 'Await Approval',
        kind: 'callback',
        path: null,
        method: 'POST',
        state: 'listening',
      },
      {
        workflow_id: 'wf3',
        node: 'Order Webhook',
        kind: 'webhook',
        path: 'orders',
        method: 'POST',
        state: 'inactive',
      },
    ])
    expect(s).toMatchObject({ monitored: 2, listening: 1 })
  })

  test('with SVC_API_TOKEN set every route but health needs the token, the OpenAPI document included', async () => {
    const token = 'wta-api-token-0123456789'
    const { u } = await setup({ SVC_API_TOKEN: token })
    const auth = { authorization: `Bearer ${token}` }
    expect((await get(u, '/api/v1/health')).status).toBe(200)
    for (const path of [
      '/api/v1/status',
      '/api/v1/workflows',
      '/api/v1/openapi.json',
      '/api/v1/workflow-context.schema.json',
      '/api/v1/upgrade/alerts',
    ]) {
      expect({ path, status: (await u.request(path)).status }).toEqual({ path, status: 401 })
      expect({
        path,
        status: (await u.request(path, { headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status,
      }).toEqual({ path, status: 401 })
      expect({ path, status: (await u.request(path, { headers: auth })).status }).toEqual({
        path,
        status: 200,
      })
    }
    const status = await get(u, '/api/v1/status', auth)
    expect(status.body.data.operator.auth).toBe('bearer')
    const doc = await get(u, '/api/v1/openapi.json', auth)
    expect(doc.body.paths['/api/v1/status'].get.security).toEqual([{ bearer: [] }])
    expect(doc.body.paths['/api/v1/health'].get.security).toBeUndefined()
  })

  test('a URL without a key (or a poll below the 30 s floor) is refused at start', async () => {
    await expect(bootForTestAsync(wta, { WTA_AUTOMATION_URL: 'http://127.0.0.1:1' })).rejects.toThrow(
      /WTA_AUTOMATION_API_KEY/,
    )
    await expect(bootForTestAsync(wta, { WTA_FLOW_CONTROL_POLL_SECONDS: '29' })).rejects.toThrow(
      /WTA_FLOW_CONTROL_POLL_SECONDS/,
    )
    await expect(bootForTestAsync(wta, { WTA_IDLE_POLL_SECONDS: '10' })).rejects.toThrow(
      /WTA_IDLE_POLL_SECONDS/,
    )
  })
})

describe('workflows', () => {
  test('the list follows the tool’s cursor pagination and is snapshotted; a dead tool is answered from the snapshot', async () => {
    const many = Array.from({ length: 520 }, (_, i) => ({
      id: `w${i}`,
      name: `W ${String(i).padStart(3, '0')}`,
      active: false,
      nodes: [],
      connections: {},
    }))
    const { u, n8n } = await setup({}, fakeN8n({ workflows: many }))
    const live = await get(u, '/api/v1/workflows')
    expect(live.status).toBe(200)
    expect(live.body.data.count).toBe(520)
    expect(live.body.meta).toMatchObject({ source: 'live' })
    expect(n8n.requests.filter((p) => p.startsWith('/api/v1/workflows?')).length).toBe(3)
    n8n.stop()
    const offline = await get(u, '/api/v1/workflows')
    expect(offline.status).toBe(200)
    expect(offline.body.data.count).toBe(520)
    expect(offline.body.meta).toMatchObject({ source: 'snapshot', stale: true })
  })

  test('without a snapshot and without the tool the answer is 503 with an explicit code', async () => {
    const { u, n8n } = await setup()
    n8n.stop()
    const res = await get(u, '/api/v1/workflows')
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('automation_unavailable')
    const unset = await bootForTestAsync(wta, {})
    open.units.push(unset as TestUnit<unknown>)
    const r2 = await get(unset, '/api/v1/workflows')
    expect(r2.status).toBe(503)
    expect(r2.body.error.code).toBe('automation_not_configured')
  })

  test('a wrong API key is reported as automation_unauthorized', async () => {
    const n8n = fakeN8n()
    const { u } = await setup({ WTA_AUTOMATION_API_KEY: 'wrong-key' }, n8n)
    const res = await get(u, '/api/v1/workflows')
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('automation_unauthorized')
  })

  test('one workflow, with history that grows when its content changes and survives a restart', async () => {
    const { u, n8n } = await setup()
    const first = await get(u, '/api/v1/workflows/wf1')
    expect(first.status).toBe(200)
    expect(first.body.data.workflow.name).toBe('CRM sync with environment secrets')
    expect(first.body.data.history).toHaveLength(1)
    const w = n8n.workflows[0]
    if (w) w.name = 'CRM sync (renamed)'
    await get(u, '/api/v1/workflows/wf1')
    const again = await get(u, '/api/v1/workflows/wf1')
    expect(again.body.data.history).toHaveLength(2)
    const restarted = await u.restart()
    open.units.push(restarted as TestUnit<unknown>)
    n8n.stop()
    const offline = await get(restarted, '/api/v1/workflows/wf1')
    expect(offline.body.data.workflow.name).toBe('CRM sync (renamed)')
    expect(offline.body.meta.stale).toBe(true)
    expect(offline.body.data.history).toHaveLength(2)
    expect((await get(restarted, '/api/v1/workflows/nope')).status).toBe(404)
  })

  test('an unknown workflow is 404 workflow_not_found', async () => {
    const { u } = await setup()
    const res = await get(u, '/api/v1/workflows/missing1')
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('workflow_not_found')
  })

  test('the workflow context is valid against the served JSON Schema', async () => {
    const { u } = await setup()
    const schema = (await get(u, '/api/v1/workflow-context.schema.json')).body
    const validate = jsonSchemaValidator(schema)
    for (const id of ['wf1', 'wf2', 'wf3']) {
      const ctx = await get(u, `/api/v1/workflows/${id}/context`)
      expect(ctx.status).toBe(200)
      expect({ id, valid: validate(ctx.body.data), errors: validate.errors ?? null }).toEqual({
        id,
        valid: true,
        errors: null,
      })
    }
    const webhook = (await get(u, '/api/v1/workflows/wf3/context')).body.data
    expect(webhook.webhooks).toEqual([
      { node: 'Order Webhook', path: 'orders', method: 'POST', enabled: true },
    ])
    expect(webhook.triggers).toEqual(['Order Webhook'])
    expect(webhook.connections).toHaveLength(2)
    // A document that breaks the schema is refused by it (the check can fail).
    expect(validate({ ...webhook, nodes: 'x' })).toBe(false)
    expect(validate({ ...webhook, generated_at: 'yesterday' })).toBe(false)
  })

  test('validate finds dangling connections, deprecated types and disabled triggers', async () => {
    const { u } = await setup()
    const crm = await u.send('POST', '/api/v1/workflows/wf1/validate', {})
    const body = (await crm.json()).data
    expect(body.valid).toBe(false)
    const codes = body.issues.map((i: { code: string }) => i.code)
    expect(codes).toContain('dangling_connection')
    expect(codes).toContain('disabled_trigger')
    expect(codes).toContain('no_enabled_trigger')
    const legacy = (await (await u.send('POST', '/api/v1/workflows/wf2/validate', {})).json()).data
    expect(
      legacy.issues
        .filter((i: { code: string }) => i.code === 'deprecated_node_type')
        .map((i: { node: string }) => i.node),
    ).toEqual(['Every Night', 'Build Rows', 'Write Sheet'])
    const clean = (await (await u.send('POST', '/api/v1/workflows/wf3/validate', {})).json()).data
    expect(clean).toMatchObject({ valid: true, errors: 0, warnings: 0 })
  })
})

describe('catalog, upstream and hotspots', () => {
  test('the baseline counts node types and versions in use and is stored when it changes', async () => {
    const { u, n8n } = await setup()
    const b = (await get(u, '/api/v1/catalog/baseline/latest')).body.data
    expect(b.workflows).toBe(3)
    expect(b.nodes).toBe(10)
    const code = b.node_types.find((t: { node_type: string }) => t.node_type === 'n8n-nodes-base.code')
    expect(code).toMatchObject({
      nodes: 1,
      workflows: 1,
      known: true,
      deprecated: false,
      type_versions: [{ type_version: 2, nodes: 1, workflows: 1 }],
    })
    expect(
      b.node_types.find((t: { node_type: string }) => t.node_type === 'n8n-nodes-base.cron').deprecated,
    ).toBe(true)
    const same = (await get(u, '/api/v1/catalog/baseline/latest')).body.data
    expect(same.baseline_id).toBe(b.baseline_id)
    n8n.workflows.pop()
    const changed = (await get(u, '/api/v1/catalog/baseline/latest')).body.data
    expect(changed.baseline_id).toBe(b.baseline_id + 1)
    expect(changed.workflows).toBe(2)
  })

  test('the baseline answer is one set of bytes per stored baseline: a strong ETag, and 304 to If-None-Match', async () => {
    const { u, n8n } = await setup()
    const path = '/api/v1/catalog/baseline/latest'
    const first = await u.request(path)
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[^"]+"$/)
    const body = await first.text()
    const again = await u.request(path)
    expect(again.headers.get('etag')).toBe(etag)
    expect(await again.text()).toBe(body)
    const unchanged = await u.request(path, { headers: { 'if-none-match': etag ?? '' } })
    expect(unchanged.status).toBe(304)
    expect(await unchanged.text()).toBe('')
    // A changed workflow set is a new baseline: new bytes, a new tag, and the old tag gets a 200.
    n8n.workflows.pop()
    const changed = await u.request(path, { headers: { 'if-none-match': etag ?? '' } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect((await changed.json()).data.workflows).toBe(2)
    // The tool gone: the stored snapshot answers, marked stale, under another tag.
    n8n.stop()
    const stale = await u.request(path)
    expect(stale.status).toBe(200)
    const staleBody = await stale.json()
    expect(staleBody.meta).toMatchObject({ source: 'snapshot', stale: true })
    expect(stale.headers.get('etag')).not.toBe(changed.headers.get('etag'))
  })

  test('upstream release from npm registry metadata, from a file, and stored when the source fails', async () => {
    const { u, upstream } = await setup()
    const live = await get(u, '/api/v1/upstream/releases/latest')
    expect(live.body.data).toMatchObject({ version: '2.8.4', published_at: '2026-11-10T12:00:00.000Z' })
    expect(live.body.meta.source).toBe('registry')
    upstream.respond(() => json({}, 500))
    const stored = await get(u, '/api/v1/upstream/releases/latest')
    expect(stored.status).toBe(200)
    expect(stored.body.meta).toMatchObject({ source: 'stored', stale: true })
    expect(stored.body.data.version).toBe('2.8.4')

    const file = join(tempDir('wta-upstream-'), 'release.json')
    writeFileSync(file, JSON.stringify({ version: '2.9.0', published_at: '2026-11-20T00:00:00.000Z' }))
    const { u: u2 } = await setup({ WTA_UPSTREAM_FILE: file })
    const fromFile = await get(u2, '/api/v1/upstream/releases/latest')
    expect(fromFile.body.data.version).toBe('2.9.0')
    expect(fromFile.body.meta.source).toBe('file')

    const { u: u3 } = await setup({
      WTA_UPSTREAM_URL: 'http://127.0.0.1:1/n8n',
      WTA_UPSTREAM_TIMEOUT_MS: '500',
    })
    const none = await get(u3, '/api/v1/upstream/releases/latest')
    expect(none.status).toBe(503)
    expect(none.body.error.code).toBe('upstream_unavailable')
  })

  test('hotspots rank failing and slow workflows and nodes inside the window only', async () => {
    const now = Date.now()
    const ago = (min: number) => new Date(now - min * 60_000).toISOString()
    const executions = [
      execution(1, 'wf2', ago(10), 5000, 'error', {
        'Every Night': [5],
        'Build Rows': [4000],
        'Archive Locally': [900, true],
      }),
      execution(2, 'wf2', ago(20), 4000, 'error', {
        'Every Night': [5],
        'Build Rows': [3000],
        'Archive Locally': [800, true],
      }),
      execution(3, 'wf3', ago(30), 200, 'success', { 'Order Webhook': [1], 'Fulfilment API': [150] }),
      execution(4, 'wf3', ago(60 * 30), 99_000, 'error', { 'Fulfilment API': [99_000, true] }),
    ]
    const { u } = await setup({}, fakeN8n({ executions }))
    await get(u, '/api/v1/workflows')
    const h = (await get(u, '/api/v1/executions/hotspots?hours=24&limit=5')).body.data
    expect(h.executions).toBe(3)
    expect(h.failures).toBe(2)
    expect(h.failing_workflows).toEqual([
      {
        workflow_id: 'wf2',
        name: 'Legacy nightly report',
        executions: 2,
        failures: 2,
        failure_rate: 1,
        avg_ms: 4500,
        max_ms: 5000,
      },
    ])
    expect(h.slow_workflows[0].workflow_id).toBe('wf2')
    expect(h.failing_nodes[0]).toMatchObject({ workflow_id: 'wf2', node: 'Archive Locally', failures: 2 })
    expect(h.slow_nodes[0]).toMatchObject({ node: 'Build Rows', avg_ms: 3500, max_ms: 4000 })
    expect((await get(u, '/api/v1/executions/hotspots?hours=0')).status).toBe(400)
    const wide = (await get(u, '/api/v1/executions/hotspots?hours=48')).body.data
    expect(wide.executions).toBe(4)
  })
})

describe('upgrade views', () => {
  test('impact lists every workflow’s affected nodes with severity and auto-migratability', async () => {
    const { u } = await setup()
    const res = await u.send('POST', '/api/v1/upgrade/impact', { target_version: '2.8.4' })
    expect(res.status).toBe(200)
    const d = (await res.json()).data
    expect(d).toMatchObject({ from_version: '1.60.0', target_version: '2.8.4' })
    const byId = Object.fromEntries(d.workflows.map((w: { workflow_id: string }) => [w.workflow_id, w]))
    // The webhook workflow crosses the 1.103.0 and 1.109.0 notes on HTML responses of the Webhook node.
    expect(
      byId.wf3.affected_nodes.map((a: { node: string; change_id: string }) => `${a.node}:${a.change_id}`),
    ).toEqual([
      'Order Webhook:n8n-1.103.0-webhook-html-sandboxed',
      'Order Webhook:n8n-1.109.0-webhook-html-csp',
    ])
    expect(byId.wf3.max_severity).toBe('medium')
    expect(byId.wf2.max_severity).toBe('critical')
    expect(
      byId.wf2.affected_nodes.map((a: { node: string; change_id: string }) => `${a.node}:${a.change_id}`),
    ).toEqual(['Archive Locally:n8n-2.0.0-execute-command-disabled'])
    const code = byId.wf1.affected_nodes.filter((a: { node: string }) => a.node === 'Read Token')
    expect(
      code.map((a: { change_id: string; auto_migratable: boolean }) => [a.change_id, a.auto_migratable]),
    ).toEqual([
      ['n8n-2.0.0-code-env-access-blocked', false],
      ['n8n-2.0.0-code-evaluate-expression', false],
      ['n8n-2.0.0-task-runners-default', false],
    ])
    expect(d.instance_changes.map((c: { id: string }) => c.id)).toEqual([
      'n8n-2.0.0-mysql-mariadb-storage-dropped',
    ])
    // Within 1.x nothing of the 2.0 notes applies; older-than-current targets are refused.
    const minor = (
      await (await u.send('POST', '/api/v1/upgrade/impact', { target_version: '1.70.0' })).json()
    ).data
    expect(minor.totals.affected_nodes).toBe(0)
    const down = await u.send('POST', '/api/v1/upgrade/impact', { target_version: '1.0.0' })
    expect(down.status).toBe(422)
    expect((await down.json()).error.code).toBe('target_older_than_current')
    expect((await u.send('POST', '/api/v1/upgrade/impact', { target_version: 'latest' })).status).toBe(400)
    // Without a target, the latest upstream release is the target.
    const dflt = (await (await u.send('POST', '/api/v1/upgrade/impact', {})).json()).data
    expect(dflt.target_version).toBe('2.8.4')
  })

  test('summary, backlog and batches agree with the impact', async () => {
    const { u } = await setup()
    const s = (await get(u, '/api/v1/upgrade/summary')).body.data
    expect(s).toMatchObject({
      current_version: '1.60.0',
      target_version: '2.8.4',
      up_to_date: false,
      behind: { majors: 1, minors: 8 },
    })
    // wf1 is the active one and has high manual work (env access in Code).
    expect(s.recommendation).toBe('blocked')
    const b = (await get(u, '/api/v1/upgrade/backlog')).body.data
    expect(b.count).toBe(s.manual_nodes)
    expect(b.items[0].severity).toBe('critical')
    expect(b.items.every((i: { severity: string }) => i.severity !== undefined)).toBe(true)
    const batches = (await get(u, '/api/v1/upgrade/batches')).body.data.batches
    expect(
      batches.map((x: { key: string; workflows: { workflow_id: string }[] }) => [
        x.key,
        x.workflows.map((w) => w.workflow_id),
      ]),
    ).toEqual([
      ['unaffected', []],
      ['auto_migratable', []],
      ['manual_low_medium', ['wf3']],
      ['manual_high_critical', ['wf1', 'wf2']],
    ])
    const upToDate = (await get(u, '/api/v1/upgrade/summary?target_version=1.60.0')).body.data
    expect(upToDate.recommendation).toBe('up_to_date')
  })

  test('alerts name deprecated nodes, invalid active workflows and a blocked upgrade', async () => {
    const { u, n8n } = await setup()
    await get(u, '/api/v1/workflows')
    const a = (await get(u, '/api/v1/upgrade/alerts')).body.data
    const codes = a.alerts.map((x: { code: string }) => x.code)
    expect(codes).toContain('deprecated_node_in_use')
    expect(codes).toContain('active_workflow_invalid')
    expect(codes).toContain('upgrade_blocked')
    expect(codes).toContain('major_version_behind')
    expect(codes).not.toContain('automation_unreachable')
    n8n.stop()
    const down = (await get(u, '/api/v1/upgrade/alerts')).body.data
    expect(down.alerts.map((x: { code: string }) => x.code)).toContain('automation_unreachable')
  })

  test('scheduled latest is 404 until a report is made, then the stored report', async () => {
    const { u } = await setup()
    const none = await get(u, '/api/v1/upgrade/scheduled/latest')
    expect(none.status).toBe(404)
    expect(none.body.error.code).toBe('no_scheduled_report')
    const { makeReport } = await import('./service/upgrade.ts')
    const { createWta } = await import('./service/wta.ts')
    await makeReport(createWta(u.ctx.config as never, u.ctx.storage), 'scheduled')
    const latest = await get(u, '/api/v1/upgrade/scheduled/latest')
    expect(latest.status).toBe(200)
    expect(latest.body.data).toMatchObject({
      trigger: 'scheduled',
      summary: { target_version: '2.8.4', recommendation: 'blocked' },
    })
  })
})

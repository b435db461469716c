/**
 * WTA against a real n8n. Runs when WTA_N8N_DIR names an n8n install (tools/n8n after
 * `npm ci --prefix tools/n8n`); skipped otherwise, with a message. 13-19 s on this
 * machine, most of it n8n starting.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { CliIo } from '../../common/cli.ts'
import { tempDir } from '../../test/harness.ts'
import { n8nBin, type RealN8n, startN8n } from '../../tools/n8n/lib.ts'
import { wtaCli } from './cli.ts'
import { workflowContextJsonSchema } from './rules/context.ts'
import { EXAMPLES_DIR, jsonSchemaValidator } from './testing.ts'

const DIR = process.env.WTA_N8N_DIR
const ready = DIR !== undefined && existsSync(n8nBin(DIR))
if (!ready)
  console.warn(
    'WTA real-n8n integration test skipped: set WTA_N8N_DIR to an n8n install (npm ci --prefix tools/n8n)',
  )

let n8n: RealN8n
let env: Record<string, string>

async function svc(...args: string[]) {
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
  const code = await wtaCli.run([...args, '--json'], env, io)
  return { code, body: out ? JSON.parse(out) : undefined, err }
}

describe.skipIf(!ready)('WTA against a real n8n', () => {
  beforeAll(async () => {
    n8n = await startN8n(DIR as string, EXAMPLES_DIR)
    console.log(`n8n ${n8n.version} ready in ${n8n.startMs} ms`)
    env = {
      SVC_DATA_DIR: tempDir('wta-real-n8n-'),
      WTA_AUTOMATION_URL: n8n.url,
      WTA_AUTOMATION_API_KEY: n8n.apiKey,
      // n8n 2.x does not tell its version to API-key callers: the operator declares it.
      WTA_AUTOMATION_VERSION: n8n.version,
      WTA_AUTOMATION_TIMEOUT_MS: '10000',
      WTA_UPSTREAM_FILE: join(import.meta.dir, 'fixtures', 'upstream-2.8.4.json'),
    }
  }, 300_000)
  afterAll(async () => {
    await n8n?.stop()
  }, 30_000)

  test('health reaches the running n8n; status reports it with the declared version', async () => {
    const h = await svc('health')
    expect(h.code).toBe(0)
    expect(h.body.automation_reachable).toBe(true)
    const s = await svc('status')
    expect(s.body.data.runtime.automation_version).toBe(n8n.version)
  })

  test('workflows are listed through the public API and validated, context valid against its schema', async () => {
    const list = await svc('workflows')
    expect(list.code).toBe(0)
    const names = list.body.data.workflows.map((w: { name: string }) => w.name).sort()
    expect(names).toEqual(Object.keys(n8n.imported).sort())
    const validate = jsonSchemaValidator(workflowContextJsonSchema())
    for (const [name, id] of Object.entries(n8n.imported)) {
      const ctx = await svc('context', id)
      expect({ name, code: ctx.code }).toEqual({ name, code: 0 })
      expect({ name, valid: validate(ctx.body.data), errors: validate.errors ?? null }).toEqual({
        name,
        valid: true,
        errors: null,
      })
    }
    const crm = await svc('validate', n8n.imported['CRM sync with environment secrets'] as string)
    expect(crm.code).toBe(1)
    expect(crm.body.data.issues.map((i: { code: string }) => i.code)).toContain('dangling_connection')
    const webhook = await svc('validate', n8n.imported['Order webhook to fulfilment API'] as string)
    expect(webhook.body.data).toMatchObject({ valid: true, catalog_n8n_version: '2.8.4' })
  })

  test('a failing webhook execution shows up in the hotspots, with the node that failed', async () => {
    // The order webhook calls https://fulfilment.example, which cannot answer here: a real failure.
    const id = n8n.imported['Order webhook to fulfilment API'] as string
    await n8n.activate(id)
    for (let i = 0; i < 3; i++) {
      await fetch(`${n8n.url}/webhook/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"order":1}',
      })
    }
    let h = await svc('hotspots', '--hours', '1')
    for (let i = 0; i < 40 && h.body.data.failures < 3; i++) {
      await Bun.sleep(250)
      h = await svc('hotspots', '--hours', '1')
    }
    expect(h.code).toBe(0)
    expect(h.body.data.failing_workflows[0]).toMatchObject({ workflow_id: id, failures: 3, executions: 3 })
    expect(h.body.data.failing_nodes[0]).toMatchObject({
      workflow_id: id,
      node: 'Fulfilment API',
      failures: 3,
    })
  }, 60_000)

  test('baseline and the upgrade views answer from the real data', async () => {
    const b = await svc('baseline')
    expect(b.body.data.workflows).toBe(3)
    expect(b.body.data.node_types.every((t: { known: boolean }) => t.known)).toBe(true)
    const impact = await svc('upgrade', 'impact', '--from', '1.60.0')
    expect(impact.body.data.target_version).toBe('2.8.4')
    // All three examples: the webhook one through the 1.103.0 and 1.109.0 webhook HTML entries.
    expect(impact.body.data.totals.affected_workflows).toBe(3)
    const up = await svc('upgrade', 'summary')
    expect(up.body.data).toMatchObject({
      current_version: n8n.version,
      up_to_date: true,
      recommendation: 'up_to_date',
    })
    const report = await svc('upgrade', 'report')
    expect(report.code).toBe(0)
    expect((await svc('upgrade', 'scheduled')).body.data.report_id).toBe(report.body.data.report_id)
  })

  test('an observer round snapshots the workflows, then the snapshot answers with n8n gone', async () => {
    expect((await svc('observe')).code).toBe(0)
    await n8n.stop()
    const offline = await svc('workflows')
    expect(offline.code).toBe(0)
    expect(offline.body.meta).toMatchObject({ source: 'snapshot', stale: true })
    expect(offline.body.data.count).toBe(3)
    expect((await svc('health')).body.automation_reachable).toBe(false)
  }, 60_000)
})

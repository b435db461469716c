import { expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildCommand } from '../../bin/build.ts'
import { hmacHex, signBody } from '../../common/signature.ts'
import { type Json, runUnitProcess, tempDir } from '../../test/harness.ts'
import { BASE_ENV, factsFile, internal, MCP_KEY, method, SECRETS, webContact } from './testing.ts'

const ROOT = join(import.meta.dir, '..', '..')

test('`bun run unit eis` serves projections of facts loaded by `svc eis facts import`, and drains on SIGTERM', async () => {
  const dir = tempDir()
  const env = { ...BASE_ENV, SVC_DATA_DIR: dir }
  const file = join(dir, 'facts.jsonl')
  writeFileSync(file, factsFile())
  const load = Bun.spawn([process.execPath, 'run', 'svc', 'eis', 'facts', 'import', file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect(await load.exited).toBe(0)
  expect(await new Response(load.stdout).text()).toContain('loaded 4 identity fact(s)')

  const unit = await runUnitProcess('eis', '/healthz', env)
  const fact = await fetch(unit.url + method('identity_projections.project_tool_access_fact'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...internal },
    body: JSON.stringify({ technical_subject: 'alice' }),
  })
  expect(fact.status).toBe(200)
  expect(((await fact.json()) as Json).message.project_tool_login_allowed).toBe(true)
  const status = await fetch(unit.url + method('health.integration_status'))
  expect(((await status.json()) as Json).message.documents.identity_facts).toBe(4)
  // A signed contact intake, acknowledged, survives the restart; its redelivery creates nothing.
  const contact = JSON.stringify(webContact('proc@example.org'))
  const deliver = (base: string) =>
    fetch(base + method('webhooks.website_contact_intake'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signBody(hmacHex(), SECRETS.ERP_API_SHARED_SECRET, contact),
      },
      body: contact,
    })
  const first = ((await (await deliver(unit.url)).json()) as Json).message
  expect(first).toMatchObject({ target_doctype: 'Lead', ack: true, duplicate: false })
  expect(await unit.stop('SIGTERM')).toBe(0)
  const output = await unit.output()
  expect(output).toContain('"msg":"stopped"')
  for (const secret of Object.values(BASE_ENV)) expect(output).not.toContain(secret as string)

  const again = await runUnitProcess('eis', '/healthz', env)
  const second = ((await (await deliver(again.url)).json()) as Json).message
  expect(second).toEqual({ ...first, duplicate: true })
  expect(await again.stop('SIGINT')).toBe(0)
})

test('the compiled executable migrates an empty data directory and serves the MCP gateway (SDK inside the binary)', async () => {
  const work = tempDir('svc-eis-exe-')
  const exe = join(work, 'svc')
  const build = Bun.spawnSync(buildCommand(exe), { cwd: ROOT })
  expect(build.exitCode).toBe(0)
  const unit = await runUnitProcess('eis', '/healthz', { ...BASE_ENV, SVC_DATA_DIR: join(work, 'data') }, [
    exe,
    'unit',
    'eis',
  ])
  const client = new Client({ name: 'exe-test', version: '1.0.0' })
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${unit.url}/mcp`), {
        requestInit: { headers: { 'x-svc-key': MCP_KEY } },
      }),
    )
    const status = await client.callTool({ name: 'integration_status', arguments: {} })
    expect(JSON.parse((status.content as Json)[0].text)).toMatchObject({ service: 'eis', database: 'ok' })
    // Requests without a Bearer header: a signed webhook, and MCP without its key.
    const contact = JSON.stringify(webContact('exe@example.org'))
    const hook = await fetch(unit.url + method('webhooks.website_contact_intake'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signBody(hmacHex(), SECRETS.ERP_API_SHARED_SECRET, contact),
      },
      body: contact,
    })
    expect(hook.status).toBe(200)
    const anonymous = await fetch(`${unit.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(anonymous.status).toBe(401)
    const withToken = await fetch(unit.url + method('identity_projections.lifecycle_fact_batch'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...internal },
      body: '{}',
    })
    expect(withToken.status).toBe(200)
    // An internal route without a Bearer header is a 401 envelope, not a 500 (the bearer
    // plugin's query fallback threw inside the executable).
    const noToken = await fetch(unit.url + method('identity_projections.lifecycle_fact_batch'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(noToken.status).toBe(401)
    expect(((await noToken.json()) as Json).error.code).toBe('unauthorized')
  } finally {
    await client.close()
    expect(await unit.stop('SIGTERM')).toBe(0)
    rmSync(work, { recursive: true, force: true })
  }
}, 120_000)

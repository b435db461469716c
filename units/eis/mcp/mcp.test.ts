import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { freePort, type Json } from '../../../test/harness.ts'
import { importFacts } from '../service/identity.ts'
import { intakeContact, intakeSupplier } from '../service/intake.ts'
import { bootEis, type EisUnit, factsFile, MCP_KEY, webContact } from '../testing.ts'

let u: EisUnit
let url: URL
let intake: string

beforeAll(async () => {
  u = await bootEis()
  u.app.listen({ port: freePort(), hostname: '127.0.0.1' })
  url = new URL(`http://127.0.0.1:${u.app.server?.port}/mcp`)
  await importFacts(u.ctx.storage, factsFile(), 'facts.jsonl')
  const contact = webContact('mcp@example.org')
  await intakeContact(u.ctx.storage, JSON.stringify(contact), contact)
  const supplier = { vendor: { name: 'V' } }
  intake = (await intakeSupplier(u.ctx.storage, JSON.stringify(supplier), supplier)).supplier_intake
})
afterAll(async () => {
  await u.app.stop(true)
  await u.dispose()
})

async function connect(headers: Record<string, string> = { 'x-svc-key': MCP_KEY }) {
  const client = new Client({ name: 'eis-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  return client
}
const textOf = (result: Json) => JSON.parse(result.content[0].text)

describe('MCP gateway with the SDK client', () => {
  test('connects, lists and calls tools', async () => {
    const client = await connect()
    try {
      expect(client.getServerVersion()?.name).toBe('svc-eis')
      const tools = (await client.listTools()).tools.map((t) => t.name).sort()
      expect(tools).toEqual([
        'access_fact_lookup',
        'approval_status',
        'integration_status',
        'lead_lookup',
        'request_approval',
        'support_context',
      ])
      const status = textOf(await client.callTool({ name: 'integration_status', arguments: {} }))
      expect(status).toMatchObject({ service: 'eis', status: 'ok' })
      const fact = textOf(
        await client.callTool({ name: 'access_fact_lookup', arguments: { technical_subject: 'alice' } }),
      )
      expect(fact.project_tool_login_allowed).toBe(true)
      const refused = await client.callTool({ name: 'access_fact_lookup', arguments: {} })
      expect(refused.isError).toBe(true)
      expect(textOf(refused).error.code).toBe('exactly_one_identifier')
      const lead = textOf(
        await client.callTool({ name: 'lead_lookup', arguments: { email: 'MCP@example.org' } }),
      )
      expect(lead).toMatchObject({ doctype: 'Lead', email_id: 'mcp@example.org' })
      const approval = textOf(
        await client.callTool({
          name: 'request_approval',
          arguments: { target_doctype: 'Supplier Intake', target_name: intake },
        }),
      )
      expect(approval.packet.state).toBe('requested')
      expect(JSON.stringify(approval)).not.toContain('callback_token')
      const status2 = textOf(
        await client.callTool({ name: 'approval_status', arguments: { packet: approval.packet.name } }),
      )
      expect(status2.name).toBe(approval.packet.name)
      const context = textOf(
        await client.callTool({
          name: 'support_context',
          arguments: { business_refs: [{ doctype: 'Supplier Intake', name: intake }] },
        }),
      )
      expect(context.summary.found).toBe(1)

      const packet = await client.readResource({ uri: `eis://approval-packets/${approval.packet.name}` })
      expect(JSON.parse((packet.contents[0] as Json).text)).toMatchObject({
        state: 'requested',
        target_name: intake,
      })
      const events = await client.readResource({ uri: 'eis://integration-events/recent' })
      expect(JSON.parse((events.contents[0] as Json).text).length).toBe(2)
      const prompt = await client.getPrompt({
        name: 'draft_ticket_reply',
        arguments: {
          ticket_id: '42',
          business_refs: JSON.stringify([{ doctype: 'Supplier Intake', name: intake }]),
        },
      })
      expect(JSON.stringify(prompt.messages)).toContain(intake)
    } finally {
      await client.close()
    }
  })

  test('without the key: the handshake works, everything else is refused', async () => {
    const client = await connect({})
    try {
      await client.ping()
      await expect(client.listTools()).rejects.toThrow()
    } finally {
      await client.close()
    }
    const wrong = await connect({ 'x-svc-key': 'wrong-key-000000000000' })
    try {
      await wrong.ping()
      await expect(wrong.callTool({ name: 'integration_status', arguments: {} })).rejects.toThrow()
      await expect(wrong.listTools()).rejects.toThrow()
    } finally {
      await wrong.close()
    }
    const raw = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(raw.status).toBe(401)
    const stream = await fetch(url, { headers: { accept: 'text/event-stream', 'x-svc-key': MCP_KEY } })
    expect(stream.status).toBe(405)
    expect(((await stream.json()) as Json).error.code).toBe('method_not_allowed')
    expect(((await raw.json()) as Json).error.code).toBe('unauthorized')
  })

  test('negotiates every protocol version the SDK supports', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as Json).result.protocolVersion).toBe(version)
    }
  })
})

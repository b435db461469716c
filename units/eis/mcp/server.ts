/**
 * The MCP server over EIS's own operations: tools, resources and a prompt. A fresh server is
 * built per request (the SDK's stateless pattern), so nothing of one client's session leaks into
 * another's.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { AppError } from '../../../common/errors.ts'
import { SUITE_VERSION } from '../../../common/version.ts'
import { APPROVABLE_DOCTYPES } from '../rules/approval.ts'
import { getPacket, requestApproval } from '../service/approvals.ts'
import type { EisDeps } from '../service/deps.ts'
import { eventView } from '../service/evidence.ts'
import { lookupAccessFact } from '../service/identity.ts'
import { supportContext } from '../service/support.ts'
import * as store from '../store.ts'

export interface McpDeps extends EisDeps {
  status: () => Promise<unknown>
}

const RECENT_EVENTS = 50
const asText = (value: unknown) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
})

/** A tool's answer: the value as JSON text, or the refusal as a tool error (never a protocol error). */
async function answer(run: () => Promise<unknown>) {
  try {
    return asText(await run())
  } catch (err) {
    if (err instanceof AppError)
      return {
        ...asText({ error: { code: err.errorCode, message: err.message, details: err.details } }),
        isError: true,
      }
    throw err
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const BusinessRefs = z
  .array(z.object({ doctype: z.string().min(1).max(140), name: z.string().min(1).max(140) }))
  .max(50)

export function buildMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer({ name: 'svc-eis', version: SUITE_VERSION })

  server.registerTool(
    'integration_status',
    {
      title: 'Integration status',
      description:
        'EIS runtime and integration snapshot: which integrations are configured, event and document counts.',
    },
    () => answer(deps.status),
  )
  server.registerTool(
    'access_fact_lookup',
    {
      title: 'Access fact lookup',
      description:
        'The normalized fail-closed access fact (contract version 2) of a subject; give exactly one identifier.',
      inputSchema: {
        technical_subject: z.string().min(1).max(256).optional(),
        business_identity_id: z.string().min(1).max(256).optional(),
      },
    },
    (args) => answer(() => lookupAccessFact(deps.storage, args)),
  )
  server.registerTool(
    'support_context',
    {
      title: 'Support context',
      description: 'Hydrate business references ({doctype, name}) with found, missing and partial markers.',
      inputSchema: { business_refs: BusinessRefs },
    },
    (args) => answer(() => supportContext(deps, args.business_refs)),
  )
  server.registerTool(
    'request_approval',
    {
      title: 'Request approval',
      description:
        'Open an approval packet for a document. The callback token is not shown here: it is for the runtime host.',
      inputSchema: {
        target_doctype: z.enum(APPROVABLE_DOCTYPES),
        target_name: z.string().min(1).max(140),
        approval_context: z.record(z.string(), z.unknown()).optional(),
      },
    },
    (args) =>
      answer(async () => {
        const { packet, runtime_host_configured } = await requestApproval(deps, args)
        return { packet, runtime_host_configured }
      }),
  )
  server.registerTool(
    'approval_status',
    {
      title: 'Approval status',
      description: 'An approval packet and its effective state.',
      inputSchema: { packet: z.string().min(1).max(140) },
    },
    (args) => answer(() => getPacket(deps, args.packet)),
  )
  server.registerTool(
    'lead_lookup',
    {
      title: 'Lead lookup',
      description: 'The Lead of an e-mail address (case-insensitive).',
      inputSchema: { email: z.string().min(3).max(320) },
    },
    (args) =>
      answer(async () => {
        const lead = await deps.erp.findLeadByEmail(args.email.trim().toLowerCase())
        return lead ?? { found: false, email: args.email }
      }),
  )

  server.registerResource(
    'integration_events',
    'eis://integration-events/recent',
    {
      title: 'Recent integration events',
      description: `The newest ${RECENT_EVENTS} integration events (payloads left out).`,
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify((await store.recentEvents(deps.storage, RECENT_EVENTS)).map(eventView)),
        },
      ],
    }),
  )
  server.registerResource(
    'integration_event',
    new ResourceTemplate('eis://integration-events/{name}', { list: undefined }),
    {
      title: 'Integration event',
      description: 'One integration event by name.',
      mimeType: 'application/json',
    },
    async (uri, { name }) => {
      const event = await store.findEvent(deps.storage, String(name))
      if (!event) throw new Error(`No integration event is named ${String(name)}.`)
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(eventView(event)) }],
      }
    },
  )
  server.registerResource(
    'approval_packet',
    new ResourceTemplate('eis://approval-packets/{name}', { list: undefined }),
    {
      title: 'Approval packet',
      description: 'One approval packet by name, with its effective state.',
      mimeType: 'application/json',
    },
    async (uri, { name }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(await getPacket(deps, String(name))),
        },
      ],
    }),
  )

  server.registerPrompt(
    'draft_ticket_reply',
    {
      title: 'Draft a ticket reply',
      description: 'A prompt to draft a reply to a support ticket from the hydrated business context.',
      argsSchema: {
        ticket_id: z.string().min(1).max(100),
        customer_message: z.string().max(20_000).optional(),
        business_refs: z.string().max(10_000).optional().describe('JSON array of {doctype, name}'),
      },
    },
    async (args) => {
      const refs = args.business_refs ? BusinessRefs.safeParse(parseJson(args.business_refs)) : undefined
      const context = refs?.success ? await supportContext(deps, refs.data) : { objects: [], summary: null }
      const text = [
        `Draft a reply to support ticket ${args.ticket_id}.`,
        args.customer_message
          ? `The customer wrote:\n${args.customer_message}`
          : 'The customer message is not given.',
        `Business context from the ERP (documents marked missing or partial were not fully available; say so rather than guess):\n${JSON.stringify(context, null, 2)}`,
        'Answer politely and concretely; name invoice numbers and amounts only as they appear in the context.',
      ].join('\n\n')
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] }
    },
  )
  return server
}

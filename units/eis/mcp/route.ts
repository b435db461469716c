/**
 * `/mcp`: MCP over Streamable HTTP through the official SDK, stateless (a fresh server and
 * transport per request, no session id), JSON answers. `X-SVC-Key: <EIS_MCP_KEY>` is required for
 * every message but the handshake (`initialize`, `notifications/initialized`, `ping`). The SDK
 * negotiates every protocol version it supports (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05,
 * 2024-10-07).
 */
import { Elysia, t } from 'elysia'
import { ErrorEnvelope, envelope, unauthorized, unavailable } from '../../../common/errors.ts'
import { safeEqual, sha256Hex } from '../../../common/hash.ts'
import type { McpDeps } from './server.ts'

/**
 * The SDK (with zod) and the tool definitions, loaded on the first MCP request: most EIS processes
 * never serve one, and loading them at start cost every process start-up time and resident memory.
 */
let sdk:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        typeof import('./server.ts'),
      ]
    >
  | undefined
const loadSdk = () => {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./server.ts'),
  ])
  return sdk
}

export const HANDSHAKE_METHODS = new Set(['initialize', 'notifications/initialized', 'ping'])

/** True when every message of the body (one, or a batch) is a handshake message. */
export function onlyHandshake(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body]
  return (
    messages.length > 0 &&
    messages.every(
      (m) =>
        typeof m === 'object' &&
        m !== null &&
        HANDSHAKE_METHODS.has(String((m as { method?: unknown }).method)),
    )
  )
}

/**
 * The key check with the handshake exemption. The shared credentials macro decides before the
 * body is read, so it cannot exempt by JSON-RPC method; this mirrors its rules (absent 401, wrong
 * 401, none configured 503, constant-time over digests).
 */
export function checkMcpKey(given: string | null, configured: string | undefined): void {
  if (!given) throw unauthorized('unauthorized', 'This MCP request needs an X-SVC-Key header.')
  if (!configured)
    throw unavailable('credentials_not_configured', 'EIS_MCP_KEY is not set; the MCP gateway fails closed.')
  if (!safeEqual(sha256Hex(given), sha256Hex(configured)))
    throw unauthorized('unauthorized', 'The X-SVC-Key is not valid.')
}

const JsonRpc = t.Union(
  [
    t.Record(t.String(), t.Unknown()),
    t.Array(t.Record(t.String(), t.Unknown()), { minItems: 1, maxItems: 100 }),
  ],
  {
    description: 'a JSON-RPC 2.0 message or batch',
  },
)
/** GET and DELETE: the suite envelope with 405 (the SDK client only reads the status on GET). */
const notAllowed = ({
  set,
}: {
  set: { status?: number | string; headers: Record<string, string | number> }
}) => {
  set.status = 405
  set.headers.allow = 'POST'
  return envelope(
    'method_not_allowed',
    'This MCP gateway is stateless: POST only (no server stream, no sessions).',
  )
}
const notAllowedHooks = (summary: string) => ({ response: { 405: ErrorEnvelope }, detail: { summary } })

export const mcpRoutes = (deps: McpDeps, mcpKey: string | undefined) =>
  new Elysia({ name: 'eis:mcp' })
    .post(
      '/mcp',
      async ({ request, body }) => {
        if (!onlyHandshake(body)) checkMcpKey(request.headers.get('x-svc-key'), mcpKey)
        const [{ WebStandardStreamableHTTPServerTransport }, { buildMcpServer }] = await loadSdk()
        const server = buildMcpServer(deps)
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        })
        await server.connect(transport)
        try {
          return await transport.handleRequest(request, { parsedBody: body })
        } finally {
          void server.close()
        }
      },
      {
        body: JsonRpc,
        detail: {
          summary: 'MCP gateway (JSON-RPC over Streamable HTTP): tools, resources, prompts',
          description: 'X-SVC-Key required except for initialize, notifications/initialized and ping.',
          security: [{ mcp: [] }],
        },
      },
    )
    .get('/mcp', notAllowed, notAllowedHooks('No server-initiated stream: 405 (stateless gateway)'))
    .delete('/mcp', notAllowed, notAllowedHooks('No sessions to end: 405 (stateless gateway)'))

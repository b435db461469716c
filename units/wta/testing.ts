/**
 * Test helpers: a fake n8n (Bun.serve on 127.0.0.1) speaking the public API's shapes, with
 * API-key checks and cursor pagination, and the shipped example workflows.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { N8nExecution, N8nWorkflow } from './service/automation.ts'

export const EXAMPLES_DIR = join(import.meta.dir, 'examples')

export type ExampleWorkflow = Omit<N8nWorkflow, 'id'>

export function exampleWorkflows(): ExampleWorkflow[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(EXAMPLES_DIR, f), 'utf8')) as ExampleWorkflow)
}

export interface FakeN8n {
  url: string
  apiKey: string
  workflows: N8nWorkflow[]
  executions: N8nExecution[]
  version: string
  /** Paths requested, in order. */
  requests: string[]
  /** Answer every request with this status (simulate an outage), or undefined for normal. */
  failWith: number | undefined
  /** Milliseconds every API request takes (so that overlapping readers would show). */
  delayMs: number
  /** API requests being answered now, and the most there ever were at once. */
  inFlight: number
  maxInFlight: number
  /** Stop listening (simulate the tool going away). */
  stop(): void
}

const encode = (n: number) => Buffer.from(`offset:${n}`).toString('base64url')
const decode = (c: string | null) => (c ? Number(Buffer.from(c, 'base64url').toString().slice(7)) : 0)

export function fakeN8n(
  o: { workflows?: N8nWorkflow[]; executions?: N8nExecution[]; version?: string } = {},
): FakeN8n {
  const state: FakeN8n = {
    url: '',
    apiKey: 'fake-n8n-api-key-0123456789',
    workflows:
      o.workflows ??
      exampleWorkflows().map((w, i) => ({
        ...w,
        id: `wf${i + 1}`,
        active: i === 0,
        updatedAt: '2026-11-01T00:00:00.000Z',
      })),
    executions: o.executions ?? [],
    version: o.version ?? '1.60.0',
    requests: [],
    failWith: undefined,
    delayMs: 0,
    inFlight: 0,
    maxInFlight: 0,
    stop: () => {},
  }
  const page = <T>(items: T[], url: URL) => {
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 250)
    const offset = decode(url.searchParams.get('cursor'))
    const slice = items.slice(offset, offset + limit)
    return Response.json({
      data: slice,
      nextCursor: offset + limit < items.length ? encode(offset + limit) : null,
    })
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (!url.pathname.startsWith('/api/v1/')) return answer(req, url)
      state.inFlight++
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
      try {
        if (state.delayMs > 0) await Bun.sleep(state.delayMs)
        return answer(req, url)
      } finally {
        state.inFlight--
      }
    },
  })
  function answer(req: Request, url: URL): Response {
    state.requests.push(url.pathname + url.search)
    if (state.failWith) return new Response('down', { status: state.failWith })
    if (url.pathname === '/healthz') return Response.json({ status: 'ok' })
    if (url.pathname === '/rest/settings') return Response.json({ data: { versionCli: state.version } })
    if (!url.pathname.startsWith('/api/v1/')) return Response.json({ message: 'not found' }, { status: 404 })
    if (req.headers.get('x-n8n-api-key') !== state.apiKey)
      return Response.json({ message: "'X-N8N-API-KEY' header required" }, { status: 401 })
    const [, , , kind, id] = url.pathname.split('/')
    if (kind === 'workflows' && !id) return page(state.workflows, url)
    if (kind === 'workflows') {
      const w = state.workflows.find((x) => x.id === id)
      return w ? Response.json(w) : Response.json({ message: 'Not Found' }, { status: 404 })
    }
    if (kind === 'executions' && !id) {
      const withData = url.searchParams.get('includeData') === 'true'
      const sorted = [...state.executions].sort((a, b) =>
        String(b.startedAt).localeCompare(String(a.startedAt)),
      )
      return page(withData ? sorted : sorted.map(({ data: _d, ...e }) => e), url)
    }
    if (kind === 'tags') return page([], url)
    return Response.json({ message: 'Not Found' }, { status: 404 })
  }
  state.url = `http://127.0.0.1:${server.port}`
  state.stop = () => void server.stop(true)
  return state
}

/** An execution as n8n reports it, with run data for `nodes` (name → [ms, failed?]). */
export function execution(
  id: number,
  workflowId: string,
  startedAt: string,
  ms: number,
  status: 'success' | 'error',
  nodes: Record<string, [number, boolean?]> = {},
): N8nExecution {
  return {
    id,
    workflowId,
    mode: 'trigger',
    finished: status === 'success',
    status,
    startedAt,
    stoppedAt: new Date(Date.parse(startedAt) + ms).toISOString(),
    data: {
      resultData: {
        runData: Object.fromEntries(
          Object.entries(nodes).map(([name, [t, failed]]) => [
            name,
            [{ executionTime: t, executionStatus: failed ? 'error' : 'success' }],
          ]),
        ),
        ...(status === 'error' ? { lastNodeExecuted: Object.keys(nodes).at(-1) } : {}),
      },
    },
  }
}

/** A JSON Schema validator (Ajv, draft 2020-12 with formats) for a served schema document. */
export function jsonSchemaValidator(schema: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  return ajv.compile(schema)
}

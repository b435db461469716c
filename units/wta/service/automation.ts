/**
 * The client of the workflow-automation tool (n8n): its public REST API under `{root}/api/v1`
 * with `X-N8N-API-KEY`, following `nextCursor` pagination, and its health route for
 * reachability. Every call goes through `callPeer` with a timeout and never throws: a failure
 * comes back as a value saying why, so callers answer from snapshots or fail closed.
 * Shapes follow n8n's shipped `dist/public-api/v1/openapi.yml` (schemas workflow, node,
 * execution, workflowList, executionList, tagList); unknown fields are kept.
 */
import { type Static, Type as T } from '@sinclair/typebox'
import { callPeer, type PeerFailure } from '../../../common/peer.ts'

export const N8nNode = T.Object(
  {
    id: T.Optional(T.String()),
    name: T.String(),
    type: T.String(),
    typeVersion: T.Optional(T.Number()),
    disabled: T.Optional(T.Boolean()),
    webhookId: T.Optional(T.String()),
    parameters: T.Optional(T.Record(T.String(), T.Unknown())),
    credentials: T.Optional(T.Record(T.String(), T.Unknown())),
    position: T.Optional(T.Array(T.Number())),
  },
  { additionalProperties: true },
)
export type N8nNode = Static<typeof N8nNode>

/** `connections[source][kind][outputIndex]` = targets (n8n's connection map, keyed by node name). */
export const N8nConnections = T.Record(
  T.String(),
  T.Record(
    T.String(),
    T.Array(
      T.Union([
        T.Null(),
        T.Array(
          T.Object({ node: T.String(), type: T.String(), index: T.Number() }, { additionalProperties: true }),
        ),
      ]),
    ),
  ),
)
export type N8nConnections = Static<typeof N8nConnections>

export const N8nTag = T.Object(
  { id: T.Optional(T.String()), name: T.String() },
  { additionalProperties: true },
)

export const N8nWorkflow = T.Object(
  {
    id: T.String(),
    name: T.String(),
    active: T.Optional(T.Boolean()),
    createdAt: T.Optional(T.String()),
    updatedAt: T.Optional(T.String()),
    versionId: T.Optional(T.Union([T.String(), T.Null()])),
    nodes: T.Array(N8nNode),
    connections: N8nConnections,
    settings: T.Optional(T.Record(T.String(), T.Unknown())),
    tags: T.Optional(T.Array(N8nTag)),
  },
  { additionalProperties: true },
)
export type N8nWorkflow = Static<typeof N8nWorkflow>

export const N8nExecution = T.Object(
  {
    id: T.Union([T.String(), T.Number()]),
    finished: T.Optional(T.Boolean()),
    mode: T.Optional(T.String()),
    startedAt: T.Optional(T.Union([T.String(), T.Null()])),
    stoppedAt: T.Optional(T.Union([T.String(), T.Null()])),
    workflowId: T.Optional(T.Union([T.String(), T.Number(), T.Null()])),
    status: T.Optional(T.String()),
    data: T.Optional(T.Unknown()),
  },
  { additionalProperties: true },
)
export type N8nExecution = Static<typeof N8nExecution>

const page = <S extends ReturnType<typeof T.Object>>(item: S) =>
  T.Object(
    { data: T.Array(item), nextCursor: T.Optional(T.Union([T.String(), T.Null()])) },
    { additionalProperties: true },
  )
const WorkflowPage = page(N8nWorkflow)
const ExecutionPage = page(N8nExecution)
const TagPage = page(N8nTag)

export interface AutomationConfig {
  /** The tool's root, e.g. http://127.0.0.1:5678; undefined when not configured. */
  url: string | undefined
  apiKey: string | undefined
  timeoutMs: number
  /** Upper bound of pages followed in one listing (a guard against a cursor that never ends). */
  maxPages: number
}

export type Failure = { ok: false; reason: PeerFailure | 'unauthorized' | 'not_found'; message: string }
export type Answer<T> = { ok: true; value: T } | Failure

/** Items per page asked of n8n (its documented maximum is 250). */
export const PAGE_SIZE = 250

export interface AutomationClient {
  configured: boolean
  /** `GET {root}/healthz`: the tool's own liveness. */
  health(): Promise<Answer<{ status: string }>>
  /** `GET {root}/rest/settings` → `versionCli`, the running version (unauthenticated in n8n). */
  version(): Promise<Answer<string>>
  workflows(): Promise<Answer<N8nWorkflow[]>>
  workflow(id: string): Promise<Answer<N8nWorkflow>>
  /** Executions started at or after `since` (n8n lists newest first), bounded by `max`. */
  executions(o: {
    since: string
    max: number
    includeData?: boolean
    status?: string
  }): Promise<Answer<N8nExecution[]>>
  execution(id: string): Promise<Answer<N8nExecution>>
  tags(): Promise<Answer<Static<typeof N8nTag>[]>>
}

export function createAutomationClient(c: AutomationConfig): AutomationClient {
  const root = c.url?.replace(/\/+$/, '')
  const headers = c.apiKey ? { 'x-n8n-api-key': c.apiKey } : undefined

  async function get<S extends Parameters<typeof callPeer>[0]['schema'] & object>(
    path: string,
    schema: S,
  ): Promise<Answer<Static<S>>> {
    if (!root || !c.apiKey)
      return {
        ok: false,
        reason: 'not_configured',
        message: 'WTA_AUTOMATION_URL or WTA_AUTOMATION_API_KEY is not set',
      }
    const res = await callPeer({ url: `${root}${path}`, headers, timeoutMs: c.timeoutMs, schema })
    if (res.ok) return { ok: true, value: res.body as Static<S> }
    if (res.status === 401 || res.status === 403)
      return { ok: false, reason: 'unauthorized', message: `the tool refused the API key (${res.status})` }
    if (res.status === 404)
      return { ok: false, reason: 'not_found', message: `${path} not found on the tool` }
    return { ok: false, reason: res.reason, message: res.message }
  }

  /** Follow `nextCursor` until it ends, `stop` says enough, or `maxPages` is reached. */
  async function all<I>(
    path: string,
    schema: ReturnType<typeof page>,
    stop?: (items: I[]) => boolean,
  ): Promise<Answer<I[]>> {
    const items: I[] = []
    let cursor: string | null | undefined
    for (let pages = 0; pages < c.maxPages; pages++) {
      const sep = path.includes('?') ? '&' : '?'
      const url = `${path}${sep}limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
      const res = await get(url, schema)
      if (!res.ok) return res
      const batch = res.value.data as I[]
      items.push(...batch)
      cursor = res.value.nextCursor
      if (!cursor || batch.length === 0 || stop?.(batch)) return { ok: true, value: items }
    }
    return { ok: true, value: items }
  }

  async function probeHealth(): Promise<Answer<{ status: string }>> {
    const res = await callPeer({ url: `${root}/healthz`, timeoutMs: c.timeoutMs })
    if (!res.ok) return { ok: false, reason: res.reason, message: res.message }
    const status = (res.body as { status?: unknown })?.status
    return { ok: true, value: { status: typeof status === 'string' ? status : 'ok' } }
  }
  // One probe of the tool at a time: health checks that arrive while one is on its way share its
  // answer (a burst of liveness probes is one call to the tool, not one each). Each check after
  // it settles asks the tool again, so a tool going away shows on the next check.
  let healthInFlight: Promise<Answer<{ status: string }>> | undefined

  return {
    configured: Boolean(root && c.apiKey),
    health() {
      if (!root)
        return Promise.resolve({
          ok: false,
          reason: 'not_configured',
          message: 'WTA_AUTOMATION_URL is not set',
        })
      healthInFlight ??= probeHealth().finally(() => {
        healthInFlight = undefined
      })
      return healthInFlight
    },
    async version() {
      if (!root) return { ok: false, reason: 'not_configured', message: 'WTA_AUTOMATION_URL is not set' }
      const res = await callPeer({ url: `${root}/rest/settings`, timeoutMs: c.timeoutMs })
      if (!res.ok) return { ok: false, reason: res.reason, message: res.message }
      const body = res.body as { data?: { versionCli?: unknown }; versionCli?: unknown }
      const v = body?.data?.versionCli ?? body?.versionCli
      return typeof v === 'string'
        ? { ok: true, value: v }
        : { ok: false, reason: 'bad_body', message: 'the settings carry no versionCli' }
    },
    workflows: () => all('/api/v1/workflows', WorkflowPage),
    workflow: (id) => get(`/api/v1/workflows/${encodeURIComponent(id)}`, N8nWorkflow),
    executions: async (o) => {
      const query = `includeData=${o.includeData === true}${o.status ? `&status=${o.status}` : ''}`
      const older = (e: N8nExecution) => (e.startedAt ?? '') < o.since
      const res = await all<N8nExecution>(`/api/v1/executions?${query}`, ExecutionPage, (batch) =>
        batch.some(older),
      )
      if (!res.ok) return res
      return { ok: true, value: res.value.filter((e) => !older(e)).slice(0, o.max) }
    },
    execution: (id) => get(`/api/v1/executions/${encodeURIComponent(id)}?includeData=true`, N8nExecution),
    tags: () => all('/api/v1/tags', TagPage),
  }
}

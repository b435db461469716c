/**
 * The workflow-automation integrations. Operator: the automation tool itself (n8n's public REST
 * API, `X-N8N-API-KEY`): workflows and failed executions. Expert: WTA, the workflow-tooling API
 * that analyses that tool (`/api/v1/health`, `/api/v1/status`).
 */
import { callPeer } from '../../common/peer.ts'

export interface AutomationSettings {
  url: string
  apiKey: string | undefined
}

export interface WorkflowFailure {
  workflow_id: string
  workflow_name: string
  active: boolean
  failed_executions: number
  last_failed_at: string | null
}

export interface OperatorSnapshot {
  workflows: number
  active_workflows: number
  failing: WorkflowFailure[]
}

export class AutomationError extends Error {}

/** Pages of n8n lists followed at most (250 items each). */
const MAX_PAGES = 20

type J = Record<string, unknown>
const obj = (v: unknown): J => (v !== null && typeof v === 'object' ? (v as J) : {})

async function n8nList(s: AutomationSettings, path: string, timeoutMs: number): Promise<J[]> {
  const out: J[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(`${s.url.replace(/\/+$/, '')}/api/v1/${path}`)
    url.searchParams.set('limit', '250')
    if (cursor) url.searchParams.set('cursor', cursor)
    const res = await callPeer({
      url: url.href,
      headers: s.apiKey ? { 'x-n8n-api-key': s.apiKey } : {},
      timeoutMs,
    })
    if (!res.ok) throw new AutomationError(`GET ${url.pathname}: ${res.reason} ${res.message}`)
    const body = obj(res.body)
    if (Array.isArray(body.data)) out.push(...(body.data as J[]))
    cursor = typeof body.nextCursor === 'string' && body.nextCursor !== '' ? body.nextCursor : undefined
    if (!cursor) break
  }
  return out
}

/** Workflows and their failed executions, from the automation tool. */
export async function operatorSnapshot(s: AutomationSettings, timeoutMs: number): Promise<OperatorSnapshot> {
  const workflows = await n8nList(s, 'workflows', timeoutMs)
  const failed = await n8nList(s, 'executions?status=error', timeoutMs)
  const byWorkflow = new Map<string, { count: number; last: string | null }>()
  for (const e of failed) {
    const id = String(e.workflowId ?? '')
    const at =
      typeof e.stoppedAt === 'string' ? e.stoppedAt : typeof e.startedAt === 'string' ? e.startedAt : null
    const seen = byWorkflow.get(id) ?? { count: 0, last: null }
    byWorkflow.set(id, { count: seen.count + 1, last: at && (!seen.last || at > seen.last) ? at : seen.last })
  }
  const names = new Map(workflows.map((w) => [String(w.id), w]))
  const failing = [...byWorkflow].map(([id, f]) => ({
    workflow_id: id,
    workflow_name: String(names.get(id)?.name ?? id),
    active: names.get(id)?.active === true,
    failed_executions: f.count,
    last_failed_at: f.last,
  }))
  return {
    workflows: workflows.length,
    active_workflows: workflows.filter((w) => w.active === true).length,
    failing: failing.sort((a, b) => a.workflow_id.localeCompare(b.workflow_id)),
  }
}

/** WTA's health and status, as it reports them (their field shapes are WTA's). */
export async function expertStatus(s: AutomationSettings, timeoutMs: number) {
  const headers: Record<string, string> = s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}
  const root = s.url.replace(/\/+$/, '')
  const [health, status] = await Promise.all([
    callPeer({ url: `${root}/api/v1/health`, headers, timeoutMs }),
    callPeer({ url: `${root}/api/v1/status`, headers, timeoutMs }),
  ])
  return {
    reachable: health.ok,
    health_status: health.ok ? health.status : (health.status ?? null),
    failure: health.ok ? null : health.reason,
    status: status.ok ? obj(status.body) : null,
  }
}

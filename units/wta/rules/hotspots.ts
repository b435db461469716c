/**
 * Execution hotspots over a window: workflows that fail most and run slowest, and the nodes
 * where failures happen and time goes (from executions read with their run data). Pure.
 */
import type { N8nExecution } from '../service/automation.ts'

export const FAILED_STATUSES = new Set(['error', 'crashed'])

export interface WorkflowHotspot {
  workflow_id: string
  name: string | null
  executions: number
  failures: number
  failure_rate: number
  avg_ms: number | null
  max_ms: number | null
}

export interface NodeHotspot {
  workflow_id: string
  node: string
  runs: number
  failures: number
  avg_ms: number | null
  max_ms: number | null
}

export interface Hotspots {
  since: string
  until: string
  executions: number
  failures: number
  failing_workflows: WorkflowHotspot[]
  slow_workflows: WorkflowHotspot[]
  failing_nodes: NodeHotspot[]
  slow_nodes: NodeHotspot[]
}

const durationMs = (e: N8nExecution) => {
  if (!e.startedAt || !e.stoppedAt) return null
  const ms = Date.parse(e.stoppedAt) - Date.parse(e.startedAt)
  return Number.isFinite(ms) && ms >= 0 ? ms : null
}

interface RunData {
  resultData?: {
    error?: { node?: { name?: string } }
    lastNodeExecuted?: string
    runData?: Record<string, { executionTime?: number; executionStatus?: string; error?: unknown }[]>
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000

function stats(durations: number[]) {
  if (durations.length === 0) return { avg_ms: null, max_ms: null }
  return {
    avg_ms: Math.round(durations.reduce((s, d) => s + d, 0) / durations.length),
    max_ms: Math.max(...durations),
  }
}

export function executionHotspots(
  executions: readonly N8nExecution[],
  names: ReadonlyMap<string, string>,
  o: { since: string; until: string; limit: number },
): Hotspots {
  const perWorkflow = new Map<string, { n: number; failures: number; durations: number[] }>()
  const perNode = new Map<
    string,
    { workflow_id: string; node: string; runs: number; failures: number; durations: number[] }
  >()
  for (const e of executions) {
    const wid = String(e.workflowId ?? 'unknown')
    const w = perWorkflow.get(wid) ?? { n: 0, failures: 0, durations: [] }
    perWorkflow.set(wid, w)
    w.n++
    const failed = FAILED_STATUSES.has(e.status ?? '')
    if (failed) w.failures++
    const d = durationMs(e)
    if (d !== null) w.durations.push(d)
    const result = (e.data as RunData | undefined)?.resultData
    const failedNode = failed ? (result?.error?.node?.name ?? result?.lastNodeExecuted) : undefined
    for (const [node, runs] of Object.entries(result?.runData ?? {})) {
      const key = `${wid}\u0000${node}`
      const s = perNode.get(key) ?? { workflow_id: wid, node, runs: 0, failures: 0, durations: [] }
      perNode.set(key, s)
      for (const r of runs) {
        s.runs++
        if (typeof r.executionTime === 'number') s.durations.push(r.executionTime)
        if (r.executionStatus === 'error' || r.error) s.failures++
      }
    }
    if (failedNode && !Object.hasOwn(result?.runData ?? {}, failedNode)) {
      const key = `${wid}\u0000${failedNode}`
      const s = perNode.get(key) ?? {
        workflow_id: wid,
        node: failedNode,
        runs: 0,
        failures: 0,
        durations: [],
      }
      perNode.set(key, s)
      s.failures++
    }
  }
  const workflows = [...perWorkflow.entries()].map(([workflow_id, w]) => ({
    workflow_id,
    name: names.get(workflow_id) ?? null,
    executions: w.n,
    failures: w.failures,
    failure_rate: round(w.failures / w.n),
    ...stats(w.durations),
  }))
  const nodes = [...perNode.values()].map(({ durations, ...n }) => ({ ...n, ...stats(durations) }))
  return {
    since: o.since,
    until: o.until,
    executions: executions.length,
    failures: workflows.reduce((s, w) => s + w.failures, 0),
    failing_workflows: workflows
      .filter((w) => w.failures > 0)
      .sort((a, b) => b.failures - a.failures || b.failure_rate - a.failure_rate)
      .slice(0, o.limit),
    slow_workflows: workflows
      .filter((w) => w.avg_ms !== null)
      .sort((a, b) => (b.avg_ms ?? 0) - (a.avg_ms ?? 0))
      .slice(0, o.limit),
    failing_nodes: nodes
      .filter((n) => n.failures > 0)
      .sort((a, b) => b.failures - a.failures)
      .slice(0, o.limit),
    slow_nodes: nodes
      .filter((n) => n.avg_ms !== null)
      .sort((a, b) => (b.avg_ms ?? 0) - (a.avg_ms ?? 0))
      .slice(0, o.limit),
  }
}

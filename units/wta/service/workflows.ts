/**
 * Workflows: read live from the tool and snapshotted (history kept per content), answered from
 * the snapshot when the tool cannot be read, with `stale: true` and the reason.
 */
import { type AppError, notFound, unavailable } from '../../../common/errors.ts'
import { workflowContext } from '../rules/context.ts'
import { inboundContracts } from '../rules/contracts.ts'
import { validateWorkflow } from '../rules/validate.ts'
import {
  lastSync,
  recordFailedSync,
  recordSnapshot,
  recordWorkflow,
  type SnapshotRow,
  snapshotWorkflow,
  snapshotWorkflows,
  workflowHash,
  workflowHistory,
} from '../store.ts'
import { answer, type Meta } from './answer.ts'
import type { Failure, N8nWorkflow } from './automation.ts'
import type { Wta } from './wta.ts'

/** The error a failed read of the tool becomes when there is nothing stored to answer from. */
export function toolFailure(f: Failure): AppError {
  if (f.reason === 'not_configured')
    return unavailable(
      'automation_not_configured',
      'WTA_AUTOMATION_URL and WTA_AUTOMATION_API_KEY must be set.',
      { reason: f.reason },
    )
  if (f.reason === 'unauthorized')
    return unavailable('automation_unauthorized', 'The workflow-automation tool refused the API key.', {
      reason: f.reason,
    })
  return unavailable('automation_unavailable', 'The workflow-automation tool could not be read.', {
    reason: f.reason,
    message: f.message,
  })
}

const stale = (f: Failure): Meta => ({ source: 'snapshot', stale: true, reason: `${f.reason}: ${f.message}` })

export interface WorkflowSet {
  workflows: N8nWorkflow[]
  meta: Meta
}

/** Read every workflow live and snapshot it; on failure answer from the snapshot. */
export async function readWorkflows(wta: Wta): Promise<WorkflowSet> {
  const at = wta.now().toISOString()
  const live = await wta.client.workflows()
  if (!live.ok) {
    await recordFailedSync(wta.storage, at, `${live.reason}: ${live.message}`)
    wta.events.append('sync.failed', { reason: live.reason })
    const rows = await snapshotWorkflows(wta.storage)
    if (rows.length === 0 && (await lastSync(wta.storage, true)) === undefined) throw toolFailure(live)
    return { workflows: rows.map((r) => r.workflow), meta: stale(live) }
  }
  const previous = new Map((await snapshotWorkflows(wta.storage)).map((r) => [r.workflow.id, r.workflow]))
  const version = await wta.client.version()
  const changes = await recordSnapshot(wta.storage, live.value, at, version.ok ? version.value : null)
  if (changes.added.length + changes.changed.length + changes.removed.length > 0)
    wta.events.append('workflows.changed', { ...changes })
  for (const w of live.value) {
    const was = previous.get(w.id)
    const before = was ? inboundContracts(was) : []
    const after = inboundContracts(w)
    if (JSON.stringify(before) !== JSON.stringify(after))
      wta.events.append('webhook_contract.changed', { workflow_id: w.id, before, after })
  }
  return { workflows: live.value, meta: { source: 'live' } }
}

/** One workflow, live (and snapshotted) or from the snapshot. */
export async function readWorkflow(
  wta: Wta,
  id: string,
): Promise<{ workflow: N8nWorkflow; meta: Meta; row?: SnapshotRow }> {
  const live = await wta.client.workflow(id)
  if (live.ok) {
    await recordWorkflow(wta.storage, live.value, wta.now().toISOString())
    return { workflow: live.value, meta: { source: 'live' } }
  }
  if (live.reason === 'not_found')
    throw notFound('workflow_not_found', `No workflow ${id} on the workflow-automation tool.`)
  const row = await snapshotWorkflow(wta.storage, id)
  if (!row) {
    if (live.reason === 'not_configured' || live.reason === 'unauthorized') throw toolFailure(live)
    throw notFound(
      'workflow_not_found',
      `No workflow ${id} in the snapshot, and the tool could not be read.`,
      { reason: live.reason },
    )
  }
  return { workflow: row.workflow, meta: stale(live), row }
}

export const workflowSummary = (w: N8nWorkflow) => ({
  id: w.id,
  name: w.name,
  active: w.active ?? false,
  nodes: w.nodes.length,
  tags: (w.tags ?? []).map((t) => t.name),
  updated_at: w.updatedAt ?? null,
  content_hash: workflowHash(w),
})

export async function listWorkflows(wta: Wta) {
  const set = await readWorkflows(wta)
  const workflows = set.workflows.map(workflowSummary).sort((a, b) => a.name.localeCompare(b.name))
  return answer({ count: workflows.length, workflows }, set.meta, wta.now())
}

export async function getWorkflow(wta: Wta, id: string) {
  const { workflow, meta } = await readWorkflow(wta, id)
  return answer({ workflow, history: await workflowHistory(wta.storage, id) }, meta, wta.now())
}

export async function workflowContextOf(wta: Wta, id: string) {
  const { workflow, meta } = await readWorkflow(wta, id)
  const stored = await snapshotWorkflow(wta.storage, id)
  const validation = validateWorkflow(workflow, wta.nodeTypes)
  const context = workflowContext(
    workflow,
    wta.nodeTypes,
    validation,
    {
      kind: meta.source === 'live' ? 'live' : 'snapshot',
      content_hash: workflowHash(workflow),
      snapshot_taken_at: stored?.lastSeenAt ?? null,
    },
    wta.now().toISOString(),
  )
  return answer(context, meta, wta.now())
}

export async function validateWorkflowById(wta: Wta, id: string) {
  const { workflow, meta } = await readWorkflow(wta, id)
  return answer(validationView(wta, workflow), meta, wta.now())
}

/** Validate a workflow document given directly (the command line's `--file`). */
export function validateDocument(wta: Wta, workflow: N8nWorkflow) {
  return answer(validationView(wta, workflow), { source: 'file' }, wta.now())
}

const validationView = (wta: Wta, w: N8nWorkflow) => ({
  ...validateWorkflow(w, wta.nodeTypes),
  name: w.name,
  catalog_n8n_version: wta.nodeTypes.n8n_version,
})

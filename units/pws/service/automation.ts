/** Workflow-automation integrations: failing workflows become system_runtime_work tasks. */
import { unavailable } from '../../../common/errors.ts'
import { AutomationError, type AutomationSettings, expertStatus, operatorSnapshot } from '../automation.ts'
import { nextVersion } from '../rules/versioning.ts'
import { findTaskBySourceTx, type TaskRow, updateTaskTx } from '../store.ts'
import { iso, type PwsDeps, write } from './deps.ts'
import { requireProject } from './projects.ts'
import { insertNewTaskTx, taskView } from './tasks.ts'

const SOURCE = 'automation_workflow'

function need(s: AutomationSettings | undefined, what: string): AutomationSettings {
  if (!s) throw unavailable('integration_not_configured', `The ${what} integration is not configured.`)
  return s
}

async function snapshot(deps: PwsDeps) {
  const s = need(deps.settings.automation.operator, 'workflow-automation operator (PWS_AUTOMATION_URL)')
  try {
    return await operatorSnapshot(s, deps.settings.peerTimeoutMs)
  } catch (err) {
    if (err instanceof AutomationError) {
      deps.log.warn({ err: err.message }, 'automation tool call failed')
      throw unavailable('integration_unavailable', 'The workflow-automation tool did not answer as expected.')
    }
    throw err
  }
}

export async function operatorStatus(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  if (!deps.settings.automation.operator) {
    return { project_id: projectId, integration: 'automation-operator', configured: false }
  }
  const snap = await snapshot(deps)
  return { project_id: projectId, integration: 'automation-operator', configured: true, ...snap }
}

/**
 * One task per failing workflow (created once, then kept current): the failure count and last
 * failure go into the title, the workflow's active flag into the external truth state.
 */
export async function operatorSync(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const snap = await snapshot(deps)
  const now = deps.now()
  const at = iso(now)
  // One after another on the transaction: each new task takes the next task number.
  const tasks = await write(deps, async (tx) => {
    const out: TaskRow[] = []
    for (const f of snap.failing) {
      const title = `Workflow ${f.workflow_name} failing (${f.failed_executions} failed executions)`
      const state = f.active ? 'active' : 'inactive'
      const existing = await findTaskBySourceTx(tx, projectId, SOURCE, f.workflow_id)
      if (!existing) {
        const row = await insertNewTaskTx(
          tx,
          projectId,
          {
            title,
            lane: 'ready',
            workClass: 'system_runtime_work',
            sourceTruthOwner: 'automation_tool',
            sourceReferenceType: SOURCE,
            sourceReference: f.workflow_id,
            externalTruthState: state,
          },
          at,
        )
        out.push(row)
      } else if (existing.title === title && existing.externalTruthState === state) {
        out.push(existing)
      } else {
        const row = await updateTaskTx(tx, projectId, existing.taskKey, {
          title,
          externalTruthState: state,
          updatedAt: nextVersion(existing.updatedAt, now),
        })
        out.push(row)
      }
    }
    return out
  })
  return {
    project_id: projectId,
    sync_mode: 'auto',
    result: {
      workflows: snap.workflows,
      failing_workflows: snap.failing.length,
      tasks: tasks.map((t) => taskView(t, now)),
    },
  }
}

export async function expertView(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const s = deps.settings.automation.expert
  if (!s) return { project_id: projectId, integration: 'automation-expert', configured: false }
  return {
    project_id: projectId,
    integration: 'automation-expert',
    configured: true,
    ...(await expertStatus(s, deps.settings.peerTimeoutMs)),
  }
}

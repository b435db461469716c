/**
 * Support work from EIS: each correlation envelope creates or updates one `case_linked_work`
 * task. Idempotent on `correlation_id`; a later envelope about the same ticket updates the
 * ticket's task instead of attaching a second one.
 */
import type { Static } from 'elysia'
import { unprocessable } from '../../../common/errors.ts'
import { canonicalJson } from '../../../common/hash.ts'
import type { SupportEnvelope } from '../model/support.ts'
import { caseGuards, isClosedSourceState } from '../rules/tasks.ts'
import { nextVersion } from '../rules/versioning.ts'
import {
  findProject,
  findSupportHandoffTx,
  findTaskBySourceTx,
  findTaskTx,
  type TaskRow,
  updateTaskTx,
  upsertSupportHandoffTx,
} from '../store.ts'
import { iso, type PwsDeps, write } from './deps.ts'
import { ensureProjectTx } from './projects.ts'
import { insertNewTaskTx, taskView } from './tasks.ts'

type Envelope = Static<typeof SupportEnvelope>

/** Priorities that skip the backlog. */
const URGENT = new Set(['high', 'urgent', 'critical', 'p1', 'p0'])

/**
 * EIS reports each business reference it resolved (`business_refs.items[]` with `found` and
 * `partial`); one it could not see whole makes the task's view of the case partial.
 */
export function partialVisibilityOf(e: Envelope): boolean {
  const items = (e.business_refs as { items?: unknown } | undefined)?.items
  if (!Array.isArray(items)) return false
  return items.some((i) => {
    const ref = i as { found?: unknown; partial?: unknown }
    return ref.found === false || ref.partial === true
  })
}

const sourceReference = (e: Envelope) => `${e.source.system}:${e.ticket.id}`
const titleOf = (e: Envelope) => e.ticket.title?.trim() || `Support ticket ${e.ticket.id}`

export async function receiveSupportHandoff(deps: PwsDeps, envelope: Envelope) {
  const projectId = envelope.project_id ?? deps.settings.supportProjectId
  if (envelope.project_id && envelope.project_id !== deps.settings.supportProjectId) {
    if (!(await findProject(deps.storage, envelope.project_id))) {
      throw unprocessable('unknown_project', `No project ${envelope.project_id} to receive support work.`)
    }
  }
  const now = deps.now()
  const at = iso(now)
  const outcome = await write(deps, async (tx) => {
    await ensureProjectTx(tx, projectId, 'Support', at)
    const seen = await findSupportHandoffTx(tx, envelope.correlation_id)
    const existing: TaskRow | undefined = seen
      ? await findTaskTx(tx, seen.projectId, seen.taskKey)
      : await findTaskBySourceTx(tx, projectId, 'support_ticket', sourceReference(envelope))
    let row: TaskRow
    let result: 'created' | 'updated' | 'unchanged'
    if (!existing) {
      row = await insertNewTaskTx(
        tx,
        projectId,
        {
          title: titleOf(envelope),
          lane: URGENT.has(envelope.ticket.priority.toLowerCase()) ? 'ready' : 'backlog',
          workClass: 'case_linked_work',
          sourceTruthOwner: 'eis',
          sourceReferenceType: 'support_ticket',
          sourceReference: sourceReference(envelope),
          externalTruthState: envelope.ticket.state,
          missingContext: !envelope.ticket.title && !envelope.ticket.article,
          partialVisibility: partialVisibilityOf(envelope),
        },
        at,
      )
      result = 'created'
    } else if (seen && canonicalJson(seen.envelope) === canonicalJson(envelope)) {
      row = existing
      result = 'unchanged'
    } else {
      const guards = caseGuards('case_linked_work', envelope.ticket.state)
      row = await updateTaskTx(tx, existing.projectId, existing.taskKey, {
        title: envelope.ticket.title?.trim() || existing.title,
        externalTruthState: envelope.ticket.state,
        missingContext: existing.missingContext && !envelope.ticket.title && !envelope.ticket.article,
        partialVisibility: partialVisibilityOf(envelope),
        caseLifecycleGuard: guards.case_lifecycle_guard,
        lifecycleCompletionGuard: guards.lifecycle_completion_guard,
        // A ticket reopened at the source while its task is done needs a look from an operator.
        workflowState:
          existing.lane === 'done' && !isClosedSourceState(envelope.ticket.state)
            ? 'verification_required'
            : existing.workflowState,
        updatedAt: nextVersion(existing.updatedAt, now),
      })
      result = 'updated'
    }
    if (result !== 'unchanged') {
      await upsertSupportHandoffTx(tx, {
        correlationId: envelope.correlation_id,
        projectId: row.projectId,
        taskKey: row.taskKey,
        ticketId: envelope.ticket.id,
        envelope,
        receivedAt: seen?.receivedAt ?? at,
        updatedAt: at,
      })
    }
    return { row, result }
  })
  deps.counters.supportHandoffs.inc({ result: outcome.result })
  return {
    ok: true as const,
    result: outcome.result,
    correlation_id: envelope.correlation_id,
    project_id: outcome.row.projectId,
    task_key: outcome.row.taskKey,
    work_class: 'case_linked_work' as const,
    task: taskView(outcome.row, now),
  }
}

import type { Static } from 'elysia'
import { conflict, notFound, unprocessable } from '../../../common/errors.ts'
import type { Sql } from '../../../db/storage.ts'
import type { CreateTaskRequest, Task, TaskListQuery, UpdateTaskRequest } from '../model/tasks.ts'
import { caseGuards, lifecycleOf, statusForLane, type WorkClass, workflowStateFor } from '../rules/tasks.ts'
import { judgeVersion, nextVersion, versionConflict } from '../rules/versioning.ts'
import {
  allTasks,
  findTask,
  findTaskTx,
  insertTaskTx,
  laneExistsTx,
  listLanes,
  listTasks,
  type TaskRow,
  takeTaskSeqTx,
  updateTaskTx,
} from '../store.ts'
import { iso, type PwsDeps, write, writeback } from './deps.ts'
import { cursorPosition, nextCursor, requireProject } from './projects.ts'

export type TaskView = Static<typeof Task>

export function taskView(r: TaskRow, nowMs: number): TaskView {
  return {
    id: r.taskKey,
    task_key: r.taskKey,
    project_id: r.projectId,
    title: r.title,
    lane: r.lane,
    status: r.status,
    work_class: r.workClass,
    work_item_truth_owner: r.workItemTruthOwner,
    source_truth_owner: r.sourceTruthOwner,
    source_reference_type: r.sourceReferenceType,
    source_reference: r.sourceReference,
    version_token: r.updatedAt,
    workflow_state: r.workflowState,
    external_truth_state: r.externalTruthState,
    external_truth: r.externalTruth,
    missing_context: r.missingContext,
    partial_visibility: r.partialVisibility,
    writeback_guard_state: r.writebackGuardState,
    case_lifecycle_guard: r.caseLifecycleGuard,
    lifecycle_completion_guard: r.lifecycleCompletionGuard,
    consumer_remediation_actions: r.remediation,
    lifecycle_state: lifecycleOf(r, nowMs),
    cycle_key: r.cycleKey,
    module_key: r.moduleKey,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  }
}

/** What a new task is made from; the rest of the payload follows from its source. */
export interface NewTask {
  taskKey?: string
  title: string
  lane?: string
  status?: string
  workClass: WorkClass
  /** Who owns the truth of the source: pws for native work, eis for tickets, a provider for PRs. */
  sourceTruthOwner?: string
  sourceReferenceType?: string
  sourceReference?: string | null
  externalTruthState?: string | null
  missingContext?: boolean
  partialVisibility?: boolean
  cycleKey?: string | null
  moduleKey?: string | null
}

export function buildTaskRow(projectId: string, taskKey: string, t: NewTask, at: string): TaskRow {
  const lane = t.lane ?? 'backlog'
  const external = t.sourceTruthOwner !== undefined && t.sourceTruthOwner !== 'pws'
  const externalState = external ? (t.externalTruthState ?? null) : null
  const guards = caseGuards(t.workClass, externalState)
  return {
    projectId,
    taskKey,
    title: t.title,
    lane,
    status: t.status ?? statusForLane(lane),
    workClass: t.workClass,
    workItemTruthOwner: 'pws',
    sourceTruthOwner: t.sourceTruthOwner ?? 'pws',
    sourceReferenceType: t.sourceReferenceType ?? 'native',
    sourceReference: t.sourceReference ?? null,
    workflowState: workflowStateFor(lane, 'active'),
    externalTruthState: externalState,
    externalTruth: external,
    missingContext: t.missingContext ?? false,
    partialVisibility: t.partialVisibility ?? false,
    writebackGuardState: 'clear',
    caseLifecycleGuard: guards.case_lifecycle_guard,
    lifecycleCompletionGuard: guards.lifecycle_completion_guard,
    remediation: [],
    cycleKey: t.cycleKey ?? null,
    moduleKey: t.moduleKey ?? null,
    createdAt: at,
    updatedAt: at,
  }
}

const unknownLane = (lane: string) =>
  unprocessable('unknown_lane', `The project has no lane ${lane}; GET …/lanes lists them.`, { lane })

/** Inside a write transaction: insert a new task, naming it `<project>-<n>` unless a key is given. */
export async function insertNewTaskTx(tx: Sql, projectId: string, t: NewTask, at: string): Promise<TaskRow> {
  const lane = t.lane ?? 'backlog'
  if (!(await laneExistsTx(tx, projectId, lane))) throw unknownLane(lane)
  const key = t.taskKey ?? `${projectId}-${await takeTaskSeqTx(tx, projectId)}`
  const row = buildTaskRow(projectId, key, t, at)
  if (!(await insertTaskTx(tx, row)))
    throw conflict('task_exists', `The project already has a task ${key}.`, { task_key: key })
  return row
}

export async function createTask(deps: PwsDeps, projectId: string, body: Static<typeof CreateTaskRequest>) {
  await requireProject(deps, projectId)
  const at = iso(deps.now())
  const row = await write(deps, (tx) =>
    insertNewTaskTx(
      tx,
      projectId,
      {
        taskKey: body.task_key,
        title: body.title,
        lane: body.lane,
        status: body.status,
        workClass: body.work_class ?? 'project_work',
        cycleKey: body.cycle_key,
        moduleKey: body.module_key,
      },
      at,
    ),
  )
  return taskView(row, deps.now())
}

export async function tasksPage(deps: PwsDeps, projectId: string, query: Static<typeof TaskListQuery>) {
  await requireProject(deps, projectId)
  const page = await listTasks(
    deps.storage,
    projectId,
    { lane: query.lane, workClass: query.work_class, workflowState: query.workflow_state },
    query.limit ?? 100,
    cursorPosition(query.cursor, 2),
  )
  const now = deps.now()
  return { items: page.rows.map((r) => taskView(r, now)), next_cursor: nextCursor(page.next) }
}

const taskNotFound = (projectId: string, taskKey: string) =>
  notFound('task_not_found', `Project ${projectId} has no task ${taskKey}.`)

export async function getTask(deps: PwsDeps, projectId: string, taskKey: string) {
  await requireProject(deps, projectId)
  const row = await findTask(deps.storage, projectId, taskKey)
  if (!row) throw taskNotFound(projectId, taskKey)
  return taskView(row, deps.now())
}

/**
 * Move a task (and optionally retitle it): only with the current version token. A missing or
 * stale `expected_version` is a 409 with remediation metadata, and nothing changes.
 */
export async function updateTask(
  deps: PwsDeps,
  projectId: string,
  taskKey: string,
  body: Static<typeof UpdateTaskRequest>,
) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const row = await writeback(deps, async (tx) => {
    const current = await findTaskTx(tx, projectId, taskKey)
    if (!current) throw taskNotFound(projectId, taskKey)
    const verdict = judgeVersion(body.expected_version, current.updatedAt)
    if (verdict !== 'current') {
      throw versionConflict('task', taskKey, verdict, body.expected_version, current.updatedAt, {
        project_id: projectId,
        current_lane: current.lane,
        requested_lane: body.lane,
      })
    }
    if (!(await laneExistsTx(tx, projectId, body.lane))) throw unknownLane(body.lane)
    return updateTaskTx(tx, projectId, taskKey, {
      lane: body.lane,
      title: body.title ?? current.title,
      status: body.status ?? statusForLane(body.lane),
      workflowState: workflowStateFor(body.lane, current.workflowState),
      writebackGuardState: 'clear',
      remediation: [],
      updatedAt: nextVersion(current.updatedAt, now),
    })
  })
  return taskView(row, now)
}

/** Tasks shown per lane on the board; the lane's count is always complete. */
export const BOARD_LANE_LIMIT = 200

export async function board(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const [laneRows, taskRows] = [
    await listLanes(deps.storage, projectId),
    await allTasks(deps.storage, projectId),
  ]
  const lanes = laneRows.map((l) => {
    const inLane = taskRows.filter((t) => t.lane === l.laneKey)
    return {
      lane_key: l.laneKey,
      title: l.title,
      position: l.position,
      task_count: inLane.length,
      tasks: inLane.slice(0, BOARD_LANE_LIMIT).map((t) => taskView(t, now)),
      truncated: inLane.length > BOARD_LANE_LIMIT,
    }
  })
  return { project_id: projectId, lanes, task_count: taskRows.length, generated_at: iso(now) }
}

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import { ProjectParams } from '../model/common.ts'
import { ActiveWorkflow, Doctor, OperatorDashboard } from '../model/overview.ts'
import {
  Board,
  CreateProjectRequest,
  CreateTaskRequest,
  LaneList,
  Project,
  ProjectList,
  ProjectListQuery,
  Task,
  TaskList,
  TaskListQuery,
  TaskParams,
  UpdateTaskRequest,
} from '../model/tasks.ts'
import type { PwsDeps } from '../service/deps.ts'
import { activeWorkflow, doctor, operatorDashboard } from '../service/overview.ts'
import { createProject, getProject, lanesOf, listProjectsPage } from '../service/projects.ts'
import { board, createTask, getTask, tasksPage, updateTask } from '../service/tasks.ts'

const P = '/api/v1/projects/:project_id'
const read = errorResponses(400, 401, 403, 404)
const write = errorResponses(400, 401, 403, 404, 409, 413, 415, 422)

export const projectRoutes = (deps: PwsDeps, sessions: ReturnType<typeof sessionPlugin>) =>
  new Elysia({ name: 'pws:projects' })
    .use(sessions)
    .get('/api/v1/projects', ({ query }) => listProjectsPage(deps, query), {
      session: 'viewer',
      query: ProjectListQuery,
      response: { 200: ProjectList, ...read },
      detail: { summary: 'List projects (cursor pagination)' },
    })
    .post(
      '/api/v1/projects',
      async ({ body, set }) => {
        const project = await createProject(deps, body)
        set.status = 201
        return project
      },
      {
        session: 'operator',
        body: CreateProjectRequest,
        response: { 201: Project, ...write },
        detail: { summary: 'Create a project with the default lanes (409 project_exists)' },
      },
    )
    .get(P, ({ params }) => getProject(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: Project, ...read },
      detail: { summary: 'One project (404 project_not_found)' },
    })
    .get(`${P}/lanes`, ({ params }) => lanesOf(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: LaneList, ...read },
      detail: { summary: 'The lanes of the project, in board order, with task counts' },
    })
    .get(`${P}/board`, ({ params }) => board(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: Board, ...read },
      detail: { summary: 'The board: every lane with its tasks' },
    })
    .get(`${P}/tasks`, ({ params, query }) => tasksPage(deps, params.project_id, query), {
      session: 'viewer',
      params: ProjectParams,
      query: TaskListQuery,
      response: { 200: TaskList, ...read },
      detail: {
        summary: 'Tasks, oldest first (filters lane, work_class, workflow_state; cursor pagination)',
      },
    })
    .post(
      `${P}/tasks`,
      async ({ params, body, set }) => {
        const task = await createTask(deps, params.project_id, body)
        set.status = 201
        return task
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreateTaskRequest,
        response: { 201: Task, ...write },
        detail: { summary: 'Create a task (409 task_exists, 422 unknown_lane)' },
      },
    )
    .get(`${P}/tasks/:task_key`, ({ params }) => getTask(deps, params.project_id, params.task_key), {
      session: 'viewer',
      params: TaskParams,
      response: { 200: Task, ...read },
      detail: { summary: 'One task with its version_token' },
    })
    .patch(
      `${P}/tasks/:task_key`,
      ({ params, body }) => updateTask(deps, params.project_id, params.task_key, body),
      {
        session: 'operator',
        params: TaskParams,
        body: UpdateTaskRequest,
        response: { 200: Task, ...write },
        detail: {
          summary: 'Move a task to a lane, with the version it was read at',
          description:
            '409 expected_version_required or version_conflict, with consumer_remediation_actions, current_version and conflict beside the envelope; nothing changes. 422 unknown_lane.',
        },
      },
    )
    .get(`${P}/active-workflow`, ({ params }) => activeWorkflow(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: ActiveWorkflow, ...read },
      detail: {
        summary: "Active workflow summary, computed from the project's tasks, pages and delivery records",
      },
    })
    .get(`${P}/doctor`, ({ params }) => doctor(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: Doctor, ...read },
      detail: { summary: "Checks of the project's configuration and sync" },
    })
    .get(`${P}/operator-dashboard`, ({ params }) => operatorDashboard(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: OperatorDashboard, ...read },
      detail: { summary: 'Operator dashboard: mode, doctor and integrations' },
    })

import type { Static } from 'elysia'
import { badRequest, conflict, notFound } from '../../../common/errors.ts'
import type { Sql } from '../../../db/storage.ts'
import type { CreateProjectRequest, Project, ProjectListQuery } from '../model/tasks.ts'
import { DEFAULT_LANES } from '../rules/tasks.ts'
import {
  decodeCursor,
  encodeCursor,
  findProject,
  insertProjectTx,
  type LaneRow,
  listLanes,
  listProjects,
  type ProjectRow,
} from '../store.ts'
import { iso, type PwsDeps, write } from './deps.ts'

export const projectView = (p: ProjectRow): Static<typeof Project> => ({
  project_id: p.projectId,
  name: p.name,
  primary_repo_ref:
    p.repoProvider && p.repoFullName ? { provider: p.repoProvider, full_name: p.repoFullName } : null,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
})

/** The project or a 404; every project route starts here. */
export async function requireProject(deps: PwsDeps, projectId: string): Promise<ProjectRow> {
  const project = await findProject(deps.storage, projectId)
  if (!project) throw notFound('project_not_found', `No project has project_id ${projectId}.`)
  return project
}

/** The cursor's position, or a 400 when the client sent something that is not one of ours. */
export function cursorPosition(cursor: string | undefined, size: number): string[] | undefined {
  const position = decodeCursor(cursor, size)
  if (cursor && !position)
    throw badRequest('invalid_cursor', 'cursor is not a next_cursor this list gave out.')
  return position
}

export const nextCursor = (next: string[] | null) => (next ? encodeCursor(next) : null)

function newProjectRows(
  projectId: string,
  name: string,
  at: string,
  repo?: { provider: string; full_name: string },
) {
  const project: ProjectRow = {
    projectId,
    name,
    repoProvider: repo?.provider ?? null,
    repoFullName: repo?.full_name ?? null,
    nextTaskSeq: 1,
    createdAt: at,
    updatedAt: at,
  }
  const laneRows: LaneRow[] = DEFAULT_LANES.map((l, i) => ({
    projectId,
    laneKey: l.lane_key,
    title: l.title,
    position: i,
  }))
  return { project, laneRows }
}

export async function createProject(deps: PwsDeps, body: Static<typeof CreateProjectRequest>) {
  const { project, laneRows } = newProjectRows(
    body.project_id,
    body.name,
    iso(deps.now()),
    body.primary_repo_ref,
  )
  if (!(await write(deps, (tx) => insertProjectTx(tx, project, laneRows)))) {
    throw conflict('project_exists', `A project with project_id ${body.project_id} already exists.`)
  }
  return projectView(project)
}

/** Inside a write transaction: the project, created with default lanes when absent. */
export async function ensureProjectTx(tx: Sql, projectId: string, name: string, at: string): Promise<void> {
  const { project, laneRows } = newProjectRows(projectId, name, at)
  await insertProjectTx(tx, project, laneRows)
}

export async function getProject(deps: PwsDeps, projectId: string) {
  return projectView(await requireProject(deps, projectId))
}

export async function listProjectsPage(deps: PwsDeps, query: Static<typeof ProjectListQuery>) {
  const page = await listProjects(deps.storage, query.limit ?? 100, cursorPosition(query.cursor, 1))
  return { items: page.rows.map(projectView), next_cursor: nextCursor(page.next) }
}

export async function lanesOf(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const rows = await listLanes(deps.storage, projectId)
  return {
    project_id: projectId,
    items: rows.map((l) => ({
      lane_key: l.laneKey,
      title: l.title,
      position: l.position,
      task_count: l.taskCount,
    })),
  }
}

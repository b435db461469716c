import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import { ProjectParams } from '../model/common.ts'
import {
  CreateCycleRequest,
  CreateModuleRequest,
  CreatePageRequest,
  Cycle,
  CycleList,
  IntegrationSyncResult,
  Module,
  ModuleList,
  Page,
  PageList,
  PageParams,
  PageSyncRequest,
  PageSyncResult,
  RepoSyncResult,
  UpdatePageRequest,
} from '../model/planning.ts'
import type { PlanningRepo } from '../planning-repo.ts'
import type { PwsDeps } from '../service/deps.ts'
import {
  createCycle,
  createModule,
  createPage,
  cyclesOf,
  getPage,
  modulesOf,
  pagesOf,
  pullPage,
  pushPage,
  syncFromRepo,
  updatePage,
} from '../service/planning.ts'

const P = '/api/v1/projects/:project_id'
const read = errorResponses(400, 401, 403, 404)
const write = errorResponses(400, 401, 403, 404, 409, 413, 415, 422)
const sync = errorResponses(400, 401, 403, 404, 409, 413, 415, 503)

export const planningRoutes = (
  deps: PwsDeps,
  sessions: ReturnType<typeof sessionPlugin>,
  repo: PlanningRepo | undefined,
) =>
  new Elysia({ name: 'pws:planning' })
    .use(sessions)
    .get(`${P}/planning/cycles`, ({ params }) => cyclesOf(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: CycleList, ...read },
      detail: { summary: 'Planning cycles with their task counts' },
    })
    .post(
      `${P}/planning/cycles`,
      async ({ params, body, set }) => {
        set.status = 201
        return createCycle(deps, params.project_id, body)
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreateCycleRequest,
        response: { 201: Cycle, ...write },
        detail: { summary: 'Create a planning cycle (409 cycle_exists)' },
      },
    )
    .get(`${P}/planning/modules`, ({ params }) => modulesOf(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: ModuleList, ...read },
      detail: { summary: 'Planning modules with their task counts' },
    })
    .post(
      `${P}/planning/modules`,
      async ({ params, body, set }) => {
        set.status = 201
        return createModule(deps, params.project_id, body)
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreateModuleRequest,
        response: { 201: Module, ...write },
        detail: { summary: 'Create a planning module (409 module_exists)' },
      },
    )
    .get(`${P}/planning/pages`, ({ params }) => pagesOf(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: PageList, ...read },
      detail: { summary: 'Planning pages (without bodies) and their sync_state' },
    })
    .post(
      `${P}/planning/pages`,
      async ({ params, body, set }) => {
        set.status = 201
        return createPage(deps, params.project_id, body)
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreatePageRequest,
        response: { 201: Page, ...write },
        detail: { summary: 'Create a page locally (sync_state local_changes until pushed)' },
      },
    )
    .post(`${P}/planning/pages/sync-from-repo`, ({ params }) => syncFromRepo(deps, repo, params.project_id), {
      session: 'operator',
      params: ProjectParams,
      response: { 200: RepoSyncResult, ...sync },
      detail: {
        summary:
          'git pull, then mirror every <project_id>/*.md page (503 when the repository is unset or unreachable)',
      },
    })
    .get(`${P}/planning/pages/:slug`, ({ params }) => getPage(deps, params.project_id, params.slug), {
      session: 'viewer',
      params: PageParams,
      response: { 200: Page, ...read },
      detail: { summary: 'One page with its body and version_token' },
    })
    .patch(
      `${P}/planning/pages/:slug`,
      ({ params, body }) => updatePage(deps, params.project_id, params.slug, body),
      {
        session: 'operator',
        params: PageParams,
        body: UpdatePageRequest,
        response: { 200: Page, ...write },
        detail: { summary: 'Edit a page locally, with its expected_version (409 when missing or stale)' },
      },
    )
    .post(
      `${P}/planning/pages/:slug/pull-from-repo`,
      ({ params, body }) => pullPage(deps, repo, params.project_id, params.slug, body?.expected_version),
      {
        session: 'operator',
        params: PageParams,
        body: PageSyncRequest,
        response: { 200: PageSyncResult, ...sync },
        detail: {
          summary:
            'git pull --rebase, then read the page from the repository (409 on a missing or stale expected_version)',
        },
      },
    )
    .post(
      `${P}/planning/pages/:slug/push-to-repo`,
      ({ params, body }) => pushPage(deps, repo, params.project_id, params.slug, body?.expected_version),
      {
        session: 'operator',
        params: PageParams,
        body: PageSyncRequest,
        response: { 200: PageSyncResult, ...sync },
        detail: {
          summary:
            'Commit the page, pull --rebase, push (409 on a stale expected_version or a repository conflict)',
        },
      },
    )
    .post(
      `${P}/integrations/planning/sync`,
      async ({ params }) => ({
        project_id: params.project_id,
        sync_mode: 'auto',
        result: await syncFromRepo(deps, repo, params.project_id),
      }),
      {
        session: 'operator',
        params: ProjectParams,
        response: { 200: IntegrationSyncResult, ...sync },
        detail: { summary: 'The planning-tool integration: sync every page from the planning repository' },
      },
    )

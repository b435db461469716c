import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import { ProjectParams } from '../model/common.ts'
import { SyncResult } from '../model/delivery.ts'
import { expertView, operatorStatus, operatorSync } from '../service/automation.ts'
import type { PwsDeps } from '../service/deps.ts'

const P = '/api/v1/projects/:project_id/integrations'
const errors = errorResponses(400, 401, 403, 404, 413, 415, 503)
const Open = t.Object(
  { project_id: t.String(), integration: t.String(), configured: t.Boolean() },
  { additionalProperties: true },
)

export const automationRoutes = (deps: PwsDeps, sessions: ReturnType<typeof sessionPlugin>) =>
  new Elysia({ name: 'pws:automation' })
    .use(sessions)
    .get(`${P}/automation-operator`, ({ params }) => operatorStatus(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: Open, ...errors },
      detail: {
        summary:
          'The workflow-automation tool: workflows, active ones, failing ones (503 when not configured or unreachable)',
      },
    })
    .post(`${P}/automation-operator/sync`, ({ params }) => operatorSync(deps, params.project_id), {
      session: 'operator',
      params: ProjectParams,
      response: { 200: SyncResult, ...errors },
      detail: { summary: 'One system_runtime_work task per failing workflow, created once and kept current' },
    })
    .get(`${P}/automation-expert`, ({ params }) => expertView(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: Open, ...errors },
      detail: {
        summary: "WTA's reachability and status of the automation tool (503 when SVC_WTA_URL is unset)",
      },
    })

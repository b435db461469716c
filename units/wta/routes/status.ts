import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { apiAccess } from '../access.ts'
import { HealthAnswer, StatusAnswer } from '../model.ts'
import { workflowContextJsonSchema } from '../rules/context.ts'
import { health, status } from '../service/status.ts'
import type { Wta } from '../service/wta.ts'

export function statusRoutes(wta: Wta) {
  return new Elysia({ name: 'wta:status' })
    .use(apiAccess(wta.config.SVC_API_TOKEN))
    .get('/api/v1/health', () => health(wta), {
      response: { 200: HealthAnswer },
      detail: { summary: 'API and workflow-automation-tool reachability (always open)' },
    })
    .get('/api/v1/status', () => status(wta), {
      guarded: true,
      response: { 200: StatusAnswer, ...errorResponses(401) },
      detail: {
        summary: 'Compact operator, runtime, catalog, upgrade and platform status; the API surface version',
      },
    })
    .get('/api/v1/workflow-context.schema.json', () => workflowContextJsonSchema(), {
      guarded: true,
      detail: { summary: 'The JSON Schema of the WorkflowContext document' },
    })
}

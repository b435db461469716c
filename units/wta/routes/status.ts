import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { jsonView } from '../../../common/json-view.ts'
import type { ApiCredentials } from '../access.ts'
import { HealthAnswer, StatusAnswer } from '../model.ts'
import { workflowContextJsonSchema } from '../rules/context.ts'
import { health, status } from '../service/status.ts'
import type { Wta } from '../service/wta.ts'

const ContextSchemaDocument = t.Record(t.String(), t.Unknown(), {
  description: 'a JSON Schema (draft 2020-12)',
})

export function statusRoutes(wta: Wta, creds: ApiCredentials) {
  // Derived from the schema the code enforces, the same for the life of the process.
  const contextSchema = workflowContextJsonSchema()
  return new Elysia({ name: 'wta:status' })
    .use(creds)
    .get('/api/v1/health', () => health(wta), {
      response: { 200: HealthAnswer },
      detail: { summary: 'API and workflow-automation-tool reachability (always open)' },
    })
    .get('/api/v1/status', () => status(wta), {
      auth: 'bearer',
      response: { 200: StatusAnswer, ...errorResponses(401) },
      detail: {
        summary: 'Compact operator, runtime, catalog, upgrade and platform status; the API surface version',
      },
    })
    .get(
      '/api/v1/workflow-context.schema.json',
      jsonView(ContextSchemaDocument, () => contextSchema),
      {
        auth: 'bearer',
        response: {
          200: ContextSchemaDocument,
          ...errorResponses(401),
        },
        detail: { summary: 'The JSON Schema of the WorkflowContext document' },
      },
    )
}

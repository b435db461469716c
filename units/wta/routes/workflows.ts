import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { ApiCredentials } from '../access.ts'
import { ContextAnswer, ValidationAnswer, WorkflowAnswer, WorkflowId, WorkflowsAnswer } from '../model.ts'
import { getWorkflow, listWorkflows, validateWorkflowById, workflowContextOf } from '../service/workflows.ts'
import type { Wta } from '../service/wta.ts'

export function workflowRoutes(wta: Wta, creds: ApiCredentials) {
  return new Elysia({ name: 'wta:workflows' })
    .use(creds)
    .get('/api/v1/workflows', () => listWorkflows(wta), {
      auth: 'bearer',
      response: { 200: WorkflowsAnswer, ...errorResponses(401, 503) },
      detail: { summary: 'Workflows, read live and snapshotted (from the snapshot when the tool is down)' },
    })
    .get('/api/v1/workflows/:id', ({ params }) => getWorkflow(wta, params.id), {
      auth: 'bearer',
      params: WorkflowId,
      response: { 200: WorkflowAnswer, ...errorResponses(401, 404, 503) },
      detail: { summary: 'One workflow with its snapshot history' },
    })
    .get('/api/v1/workflows/:id/context', ({ params }) => workflowContextOf(wta, params.id), {
      auth: 'bearer',
      params: WorkflowId,
      response: { 200: ContextAnswer, ...errorResponses(401, 404, 503) },
      detail: { summary: 'The WorkflowContext document (schema at /api/v1/workflow-context.schema.json)' },
    })
    .post('/api/v1/workflows/:id/validate', ({ params }) => validateWorkflowById(wta, params.id), {
      auth: 'bearer',
      params: WorkflowId,
      body: t.Optional(
        t.Object({}, { description: 'empty: the workflow is read from the tool (or its snapshot)' }),
      ),
      response: { 200: ValidationAnswer, ...errorResponses(400, 401, 404, 415, 503) },
      detail: {
        summary:
          'Structural checks: dangling connections, unknown or deprecated node types, missing credentials, disabled triggers',
      },
    })
}

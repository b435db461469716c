import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { IntakeRequest, IntakeResponse, RunIdParams, RunRecord } from '../model.ts'
import type { AlsDeps } from '../service/deps.ts'
import { getRun, intakeSignal } from '../service/signals.ts'

export const signalRoutes = (deps: AlsDeps) =>
  new Elysia({ name: 'als:signals' })
    .post('/api/v1/learning/signals/intake', ({ body }) => intakeSignal(deps, body), {
      body: IntakeRequest,
      response: { 200: IntakeResponse, ...errorResponses(400, 409, 413, 415, 422, 503) },
      detail: {
        summary: 'Signals intake: record a trace as a run',
        description:
          '422 guardrail_blocked (guardrail_decision BLOCK), security_critical_trace (a family in a no-learn zone), tenant_inconsistent (trace_id or correlation_id already recorded under another tenant_ref). The same trace again returns the stored run; other fields for a recorded trace_id: 409 trace_already_recorded. 503 persistence_unavailable.',
      },
    })
    .get('/api/v1/learning/runs/:run_id', ({ params }) => getRun(deps, params.run_id), {
      params: RunIdParams,
      response: { 200: RunRecord, ...errorResponses(400, 404, 503) },
      detail: { summary: 'A stored run (404 run_not_found)' },
    })

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { callerOf } from '../auth.ts'
import { ResearchRun, ResearchRunRequest, RunParams } from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import { createRun, getRun } from '../service/research.ts'

export const researchRunRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:research-runs' }).use(deps.auth).guard({ auth: 'apiKey' }, (app) =>
    app
      .post(
        '/v1/research/runs',
        async ({ body, principal, set }) => {
          set.status = 202
          return createRun(deps, callerOf(principal), body)
        },
        {
          body: ResearchRunRequest,
          response: { 202: ResearchRun, ...errorResponses(400, 401, 413, 415) },
          detail: {
            summary: 'Start a research run: volume over time, top sources and entities, cluster summaries',
          },
        },
      )
      .get(
        '/v1/research/runs/:run_id',
        ({ params, principal }) => getRun(deps, callerOf(principal), params.run_id),
        {
          params: RunParams,
          response: { 200: ResearchRun, ...errorResponses(401, 404) },
          detail: { summary: 'A research run: state and results' },
        },
      ),
  )

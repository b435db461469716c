import { Elysia } from 'elysia'
import type { credentials } from '../../../common/credentials.ts'
import { errorResponses } from '../../../common/errors.ts'
import { SupportEnvelope, SupportHandoffResponse } from '../model/support.ts'
import type { PwsDeps } from '../service/deps.ts'
import { receiveSupportHandoff } from '../service/support.ts'

type Credentials = ReturnType<
  typeof credentials<{ supportHandoff: { kind: 'bearer'; tokens: (string | undefined)[] } }>
>

/** The EIS → PWS support handoff (CONTRACTS.md §4), bearer PWS_SUPPORT_HANDOFF_TOKEN. */
export const supportRoutes = (deps: PwsDeps, creds: Credentials) =>
  new Elysia({ name: 'pws:support' }).use(creds).post(
    '/api/v1/support/handoff',
    async ({ body, set }) => {
      const answer = await receiveSupportHandoff(deps, body)
      set.status = answer.result === 'created' ? 201 : 200
      return answer
    },
    {
      auth: 'supportHandoff',
      body: SupportEnvelope,
      response: {
        200: SupportHandoffResponse,
        201: SupportHandoffResponse,
        ...errorResponses(400, 401, 413, 415, 422, 503),
      },
      detail: {
        summary:
          'Support work from EIS: create or update a case_linked_work task (idempotent on correlation_id)',
        description:
          '201 created; 200 updated (same ticket, new state) or unchanged (a replay). 401 without the bearer token; 503 credentials_not_configured when PWS_SUPPORT_HANDOFF_TOKEN is unset. 422 unknown_project when project_id names no project.',
      },
    },
  )

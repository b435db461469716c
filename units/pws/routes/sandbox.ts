import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import { ProjectParams } from '../model/common.ts'
import { SandboxReadParams, SandboxWriteRequest, SandboxWriteResponse } from '../model/sandbox.ts'
import type { PwsDeps } from '../service/deps.ts'
import { readSandboxWrite, sandboxWrite } from '../service/sandbox.ts'

const P = '/api/v1/projects/:project_id/adapter-sandbox/writes'

export const sandboxRoutes = (deps: PwsDeps, sessions: ReturnType<typeof sessionPlugin>) =>
  new Elysia({ name: 'pws:sandbox' })
    .use(sessions)
    .post(
      P,
      async ({ params, body, set }) => {
        const answer = await sandboxWrite(deps, params.project_id, body)
        if (answer.idempotent_replay) set.headers['idempotent-replayed'] = 'true'
        return answer
      },
      {
        session: 'admin',
        params: ProjectParams,
        body: SandboxWriteRequest,
        response: { 200: SandboxWriteResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 503) },
        detail: {
          summary: 'An idempotent adapter sandbox write, with readback and evidence',
          description:
            '403 sandbox_writes_disabled, sandbox_project_prefix_mismatch, sandbox_owner_repo_mismatch. 409 idempotency_conflict (same key, other body), handoff_not_in_project, handoff_mismatch (nothing changes). 422 operation_invalid, handoff_context_not_supported, unknown_lane. 503 sandbox_write_failed after the bounded retries.',
        },
      },
    )
    .get(`${P}/:scenario/:idempotency_key`, ({ params }) => readSandboxWrite(deps, params), {
      session: 'admin',
      params: SandboxReadParams,
      response: { 200: SandboxWriteResponse, ...errorResponses(400, 401, 403, 404) },
      detail: { summary: 'The stored answer of a sandbox write (404 sandbox_write_not_found)' },
    })

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { callerOf } from '../auth.ts'
import {
  AccountParams,
  CaseEvidence,
  CaseParams,
  EnrichResponse,
  SupportCase,
  SupportCaseRequest,
} from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import { caseEvidence, enrichCase, openCase } from '../service/support.ts'

export const supportRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:support' }).use(deps.auth).guard({ auth: 'apiKey' }, (app) =>
    app
      .post(
        '/v1/accounts/:account_id/support-cases',
        async ({ params, body, principal, set }) => {
          set.status = 201
          return openCase(deps, callerOf(principal), params.account_id, body)
        },
        {
          params: AccountParams,
          body: SupportCaseRequest,
          response: { 201: SupportCase, ...errorResponses(400, 401, 404, 413, 415, 422) },
          detail: {
            summary: 'Open a support case with evidence (articles, searches, snapshots, exports, runs, jobs)',
            description:
              '404 account_not_found. 422 evidence_not_found lists evidence that does not exist for the account.',
          },
        },
      )
      .get(
        '/v1/support-cases/:case_id/evidence',
        ({ params, principal }) => caseEvidence(deps, callerOf(principal), params.case_id),
        {
          params: CaseParams,
          response: { 200: CaseEvidence, ...errorResponses(401, 404) },
          detail: { summary: 'The evidence of a support case' },
        },
      )
      .post(
        '/v1/support-cases/:case_id/evidence/enrich',
        ({ params, principal }) => enrichCase(deps, callerOf(principal), params.case_id),
        {
          params: CaseParams,
          response: { 200: EnrichResponse, ...errorResponses(401, 404) },
          detail: { summary: 'Attach related items: near-duplicates, search results, articles a job wrote' },
        },
      ),
  )

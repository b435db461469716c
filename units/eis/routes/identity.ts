import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { Storage } from '../../../db/storage.ts'
import type { EisCredentials } from '../access.ts'
import { Message, message } from '../model/common.ts'
import {
  AccessFact,
  AccessFactBatch,
  AccessFactRequest,
  BatchRequest,
  BootstrapRequest,
  BootstrapTruth,
  LifecycleFactBatch,
} from '../model/identity.ts'
import { P } from '../paths.ts'
import {
  accessFactBatch,
  bootstrapPrincipalTruth,
  lifecycleFactBatch,
  lookupAccessFact,
} from '../service/identity.ts'

export interface IdentityDeps {
  storage: Storage
  access: EisCredentials
  bootstrapSubject: string | undefined
}

const errors = errorResponses(400, 401, 413, 415)

export const identityRoutes = (deps: IdentityDeps) =>
  new Elysia({ name: 'eis:identity' }).use(deps.access).guard({ auth: 'internal' }, (app) =>
    app
      .post(
        P('identity_projections.project_tool_access_fact'),
        async ({ body }) => message(await lookupAccessFact(deps.storage, body)),
        {
          body: AccessFactRequest,
          response: { 200: Message(AccessFact), ...errors },
          detail: {
            summary: 'Access fact of one subject (fail closed)',
            description:
              'Exactly one of technical_subject or business_identity_id (else 400 exactly_one_identifier). An unknown subject gets 200 with project_tool_login_allowed false and fail_closed_reason unknown_subject.',
          },
        },
      )
      .post(
        P('identity_projections.project_tool_access_fact_batch'),
        async ({ body }) => message(await accessFactBatch(deps.storage, body ?? {})),
        {
          body: t.Optional(BatchRequest),
          response: { 200: AccessFactBatch, ...errors },
          detail: { summary: 'Access facts, ordered by technical_subject (limit 1..500, default 100)' },
        },
      )
      .post(
        P('identity_projections.lifecycle_fact_batch'),
        async ({ body }) => message(await lifecycleFactBatch(deps.storage, body ?? {})),
        {
          body: t.Optional(BatchRequest),
          response: { 200: LifecycleFactBatch, ...errors },
          detail: { summary: 'Compact lifecycle and dominance facts (limit 1..500, default 100)' },
        },
      )
      .post(
        P('identity_projections.keystore_bootstrap_principal_truth'),
        async ({ body }) =>
          message(
            await bootstrapPrincipalTruth(deps.storage, deps.bootstrapSubject, body?.technical_subject),
          ),
        {
          body: t.Optional(BootstrapRequest),
          response: { 200: BootstrapTruth, ...errors },
          detail: {
            summary: 'Bootstrap principal truth (default subject EIS_BOOTSTRAP_SUBJECT, else Administrator)',
          },
        },
      ),
  )

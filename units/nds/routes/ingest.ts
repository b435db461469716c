import { Elysia, t } from 'elysia'
import { errorResponses, notFound } from '../../../common/errors.ts'
import { callerOf } from '../auth.ts'
import { DirectSourceParams, IngestJob, IngestRequest, JobParams, SourceParams } from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import { createIngestJob } from '../service/ingest.ts'
import { presentJob } from '../service/present.ts'

const errors = errorResponses(400, 401, 413, 415, 422)
const body = t.Optional(IngestRequest)
const accepted = { 202: IngestJob, ...errors }

export const ingestRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:ingest' })
    .use(deps.auth)
    .guard({ auth: 'apiKey' }, (app) =>
      app
        .post(
          '/v1/ingest/:source',
          async ({ params, body: b, principal, set }) => {
            set.status = 202
            return createIngestJob(deps, callerOf(principal), params.source, 'direct', b ?? undefined)
          },
          {
            params: DirectSourceParams,
            body,
            response: accepted,
            detail: {
              summary:
                'Ingest from event_db or crawl_news now (the given urls, else the configured locations)',
              description:
                '422 source_location_missing names the variable or body field that would supply the location.',
            },
          },
        )
        .post(
          '/v1/ingest/:source/backfill',
          async ({ params, body: b, principal, set }) => {
            set.status = 202
            return createIngestJob(deps, callerOf(principal), params.source, 'backfill', b ?? undefined)
          },
          {
            params: SourceParams,
            body,
            response: accepted,
            detail: {
              summary: 'Backfill a date range (from, to) from a source',
              description:
                '422 date_range_missing, date_range_invalid, source_location_missing, query_missing, invalid_url.',
            },
          },
        )
        .post(
          '/v1/ingest/:source/current-events',
          async ({ params, body: b, principal, set }) => {
            set.status = 202
            return createIngestJob(deps, callerOf(principal), params.source, 'current-events', b ?? undefined)
          },
          {
            params: SourceParams,
            body,
            response: accepted,
            detail: { summary: 'Ingest the recent window (window_hours) from a source' },
          },
        ),
    )
    .guard({ auth: 'apiKey' }, (app) =>
      app.get(
        '/v1/jobs/:job_id',
        async ({ params, principal }) => {
          const job = await deps.store.getJob(params.job_id)
          if (!job || job.accountId !== callerOf(principal).accountId)
            throw notFound('job_not_found', 'No such ingest job.')
          return presentJob(job)
        },
        {
          params: JobParams,
          response: { 200: IngestJob, ...errorResponses(401, 404) },
          detail: { summary: 'An ingest job: state, counts and per-item errors' },
        },
      ),
    )

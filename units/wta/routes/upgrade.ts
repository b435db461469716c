import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { ApiCredentials } from '../access.ts'
import {
  AlertsAnswer,
  BacklogAnswer,
  BatchesAnswer,
  ImpactAnswer,
  ImpactRequest,
  ReportAnswer,
  SummaryAnswer,
  TargetQuery,
} from '../model.ts'
import { alerts, backlog, batches, impact, scheduledLatest, summary } from '../service/upgrade.ts'
import type { Wta } from '../service/wta.ts'

const failures = errorResponses(400, 401, 422, 503)

export function upgradeRoutes(wta: Wta, creds: ApiCredentials) {
  return new Elysia({ name: 'wta:upgrade' })
    .use(creds)
    .get('/api/v1/upgrade/summary', ({ query }) => summary(wta, query), {
      auth: 'bearer',
      query: TargetQuery,
      response: { 200: SummaryAnswer, ...failures },
      detail: { summary: 'Upgrade summary: versions, affected workflows and nodes, recommendation' },
    })
    .get('/api/v1/upgrade/backlog', ({ query }) => backlog(wta, query), {
      auth: 'bearer',
      query: TargetQuery,
      response: { 200: BacklogAnswer, ...failures },
      detail: { summary: 'The manual work an upgrade needs, most severe first' },
    })
    .get('/api/v1/upgrade/batches', ({ query }) => batches(wta, query), {
      auth: 'bearer',
      query: TargetQuery,
      response: { 200: BatchesAnswer, ...failures },
      detail: { summary: 'Workflows grouped into upgrade batches by risk' },
    })
    .get('/api/v1/upgrade/alerts', () => alerts(wta), {
      auth: 'bearer',
      response: { 200: AlertsAnswer, ...errorResponses(401) },
      detail: {
        summary:
          'Alerts: unreachable tool, stale snapshot, deprecated nodes, invalid active workflows, blocked upgrade',
      },
    })
    .get('/api/v1/upgrade/scheduled/latest', () => scheduledLatest(wta), {
      auth: 'bearer',
      response: { 200: ReportAnswer, ...errorResponses(401, 404) },
      detail: { summary: 'The latest upgrade report made by the scheduled (idle) observer or a command' },
    })
    .post('/api/v1/upgrade/impact', ({ body }) => impact(wta, body ?? {}), {
      auth: 'bearer',
      body: ImpactRequest,
      response: { 200: ImpactAnswer, ...failures },
      detail: {
        summary: 'For a target version, every workflow’s affected nodes with severity and auto-migratability',
      },
    })
}

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { ApiCredentials } from '../access.ts'
import { BaselineAnswer, HotspotsAnswer, HotspotsQuery, UpstreamAnswer } from '../model.ts'
import { baselineLatest, hotspots, upstreamLatest } from '../service/catalog.ts'
import type { Wta } from '../service/wta.ts'

export function catalogRoutes(wta: Wta, creds: ApiCredentials) {
  return new Elysia({ name: 'wta:catalog' })
    .use(creds)
    .get('/api/v1/catalog/baseline/latest', () => baselineLatest(wta), {
      auth: 'bearer',
      response: { 200: BaselineAnswer, ...errorResponses(401, 503) },
      detail: { summary: 'Node types and type versions in use, from the workflows (stored when changed)' },
    })
    .get('/api/v1/upstream/releases/latest', () => upstreamLatest(wta), {
      auth: 'bearer',
      response: { 200: UpstreamAnswer, ...errorResponses(401, 503) },
      detail: {
        summary: 'The latest n8n release from the configured source (npm registry metadata or a file)',
      },
    })
    .get('/api/v1/executions/hotspots', ({ query }) => hotspots(wta, query), {
      auth: 'bearer',
      query: HotspotsQuery,
      response: { 200: HotspotsAnswer, ...errorResponses(400, 401, 503) },
      detail: { summary: 'Failing and slow workflows and nodes over a window, from executions' },
    })
}

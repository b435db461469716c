import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { CACHED_VIEW, jsonViews } from '../../../common/json-view.ts'
import type { ApiCredentials } from '../access.ts'
import { BaselineAnswer, HotspotsAnswer, HotspotsQuery, UpstreamAnswer } from '../model.ts'
import { baselineParts, hotspots, upstreamLatest } from '../service/catalog.ts'
import type { Wta } from '../service/wta.ts'

/** The one source of the baseline views: their key (the stored baseline, the read's meta) says what changed. */
const BASELINES = {}

export function catalogRoutes(wta: Wta, creds: ApiCredentials) {
  // The same baseline read the same way is the same answer: checked, serialized and tagged once,
  // stamped with the time it was first made, and answered 304 to a matching If-None-Match.
  const baselineView = jsonViews(BaselineAnswer)
  return new Elysia({ name: 'wta:catalog' })
    .use(creds)
    .get(
      '/api/v1/catalog/baseline/latest',
      async ({ request, set }) => {
        const { key, build } = await baselineParts(wta)
        return baselineView({ request, set }, BASELINES, key, build)
      },
      {
        auth: 'bearer',
        response: { 200: BaselineAnswer, ...errorResponses(401, 503) },
        detail: {
          summary: 'Node types and type versions in use, from the workflows (stored when changed)',
          ...CACHED_VIEW,
        },
      },
    )
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

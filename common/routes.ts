import { Elysia, t } from 'elysia'
import { PROMETHEUS_CONTENT_TYPE, type Registry } from './metrics.ts'

/** `GET /metrics` in Prometheus text format 0.0.4. */
export const metricsRoute = (registry: Registry, path = '/metrics') =>
  new Elysia({ name: 'metrics', seed: path }).get(
    path,
    async () =>
      new Response(await registry.metrics(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } }),
    {
      response: { 200: t.String({ description: 'Prometheus text exposition format 0.0.4' }) },
      detail: { summary: 'Prometheus metrics' },
    },
  )

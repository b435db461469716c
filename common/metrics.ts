import { Counter, Gauge, Histogram, Registry } from 'prom-client'

export { Counter, Gauge, Histogram, Registry }

/** Prometheus text exposition 0.0.4, the content type promtool and scrapers expect. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export interface HttpMetrics {
  registry: Registry
  requests: Counter<'method' | 'route' | 'status'>
  duration: Histogram<'method' | 'route'>
}

/** Each unit owns one registry; names are prefixed `svc_` (CONTRACTS.md §2). */
export function createHttpMetrics(unit: string): HttpMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ unit })
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from request arrival to response, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  return { registry, requests, duration }
}

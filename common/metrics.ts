import type { Metric } from 'prom-client'
// Each class from its own module: the package index costs every unit's start ~10 ms and ~2.5 MB
// resident for the push gateway, default metrics and cluster code it also loads (docs/benchmarks.md).
import Counter from 'prom-client/lib/counter'
import Gauge from 'prom-client/lib/gauge'
import Histogram from 'prom-client/lib/histogram'
import Registry from 'prom-client/lib/registry'

export { Counter, Gauge, Histogram, Registry }

/** Prometheus text exposition 0.0.4, the content type promtool and scrapers expect. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

const REQUESTS = 'svc_http_requests_total'
const DURATION = 'svc_http_request_duration_seconds'
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const

interface Series {
  method: string
  route: string
  /** Requests answered, by status code. */
  statuses: Map<number, number>
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  buckets: Float64Array
  sum: number
  count: number
}

type Labels = Record<string, string | number>
interface Value {
  labels: Labels
  value: number
  metricName?: string
}

/**
 * Request count and duration per (method, route, status), kept in plain maps and typed arrays
 * and exposed through prom-client's registry. prom-client's own Counter.inc and Histogram.observe
 * hash a fresh label object on every call; on a unit's hottest path that cost about 10 µs of CPU
 * per request under load (docs/benchmarks.md). Here a request allocates nothing once its
 * route has been seen.
 */
export class HttpRequestMetrics {
  private readonly series = new Map<string, Map<string, Series>>()

  constructor(registry: Registry) {
    const requests = {
      name: REQUESTS,
      help: 'HTTP requests answered, by method, route pattern and status code.',
      type: 'counter',
      get: async () => ({ ...requests, aggregator: 'sum', values: this.requestValues() }),
    }
    const duration = {
      name: DURATION,
      help: 'Time from request arrival to response, by method and route pattern.',
      type: 'histogram',
      get: async () => ({ ...duration, aggregator: 'sum', values: this.durationValues() }),
    }
    // Objects with prom-client's collector shape (name, help, type, get); the registry formats them.
    registry.registerMetric(requests as unknown as Metric)
    registry.registerMetric(duration as unknown as Metric)
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.series.set(route, byMethod)
    }
    let s = byMethod.get(method)
    if (s === undefined) {
      s = {
        method,
        route,
        statuses: new Map(),
        buckets: new Float64Array(DURATION_BUCKETS.length + 1),
        sum: 0,
        count: 0,
      }
      byMethod.set(method, s)
    }
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1)
    let i = 0
    while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] as number)) i++
    s.buckets[i] = (s.buckets[i] ?? 0) + 1
    s.sum += seconds
    s.count++
  }

  private *all(): Generator<Series> {
    for (const byMethod of this.series.values()) yield* byMethod.values()
  }

  private requestValues(): Value[] {
    const out: Value[] = []
    for (const s of this.all()) {
      for (const [status, value] of s.statuses) {
        out.push({ labels: { method: s.method, route: s.route, status }, value })
      }
    }
    return out
  }

  private durationValues(): Value[] {
    const out: Value[] = []
    for (const s of this.all()) {
      const labels = { method: s.method, route: s.route }
      let cumulative = 0
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i] ?? 0
        out.push({ labels: { le, ...labels }, value: cumulative, metricName: `${DURATION}_bucket` })
      })
      out.push({ labels: { le: '+Inf', ...labels }, value: s.count, metricName: `${DURATION}_bucket` })
      out.push({ labels, value: s.sum, metricName: `${DURATION}_sum` })
      out.push({ labels, value: s.count, metricName: `${DURATION}_count` })
    }
    return out
  }
}

export interface HttpMetrics {
  registry: Registry
  http: HttpRequestMetrics
}

/** Each unit owns one registry; names are prefixed `svc_` (docs/conventions.md §2). */
export function createHttpMetrics(unit: string): HttpMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ unit })
  return { registry, http: new HttpRequestMetrics(registry) }
}

import { expect, test } from 'bun:test'
import { createHttpMetrics } from './metrics.ts'

test('request counts and duration histogram in Prometheus text format', async () => {
  const { registry, http } = createHttpMetrics('t')
  http.observe('GET', '/health', 200, 0.0004)
  http.observe('GET', '/health', 200, 0.003)
  http.observe('GET', '/health', 503, 7)
  http.observe('POST', '/api/contact', 422, 0.001)
  const text = await registry.metrics()
  const line = (prefix: string) => text.split('\n').find((l) => l.startsWith(prefix))
  expect(text).toContain('# TYPE svc_http_requests_total counter')
  expect(text).toContain('# TYPE svc_http_request_duration_seconds histogram')
  expect(line('svc_http_requests_total{method="GET",route="/health",status="200",unit="t"}')).toEndWith(' 2')
  expect(line('svc_http_requests_total{method="GET",route="/health",status="503",unit="t"}')).toEndWith(' 1')
  expect(line('svc_http_requests_total{method="POST",route="/api/contact",status="422",unit="t"}')).toEndWith(
    ' 1',
  )
  const bucket = (le: string, route = '/health', method = 'GET') =>
    line(`svc_http_request_duration_seconds_bucket{le="${le}",method="${method}",route="${route}",unit="t"}`)
  // Cumulative buckets; a value on a bound counts in that bucket (le is "less than or equal").
  expect(bucket('0.001')).toEndWith(' 1')
  expect(bucket('0.005')).toEndWith(' 2')
  expect(bucket('5')).toEndWith(' 2')
  expect(bucket('+Inf')).toEndWith(' 3')
  expect(bucket('0.001', '/api/contact', 'POST')).toEndWith(' 1')
  expect(line('svc_http_request_duration_seconds_count{method="GET",route="/health",unit="t"}')).toEndWith(
    ' 3',
  )
  expect(line('svc_http_request_duration_seconds_sum{method="GET",route="/health",unit="t"}')).toEndWith(
    ' 7.0034',
  )
})

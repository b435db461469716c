/** Fallback load generator (when wrk is not installed): keep-alive fetch loops for a bounded time. */
import type { LoadSpec } from './lib.ts'

const { url, spec, seconds, connections } = JSON.parse(process.env.LOAD ?? '{}') as {
  url: string
  spec: LoadSpec
  seconds: number
  connections: number
}
const latencies: number[] = []
let errors = 0
const end = performance.now() + seconds * 1000
async function worker() {
  while (performance.now() < end) {
    const t0 = performance.now()
    try {
      const res = await fetch(url + spec.path, {
        method: spec.method ?? 'GET',
        headers: spec.headers,
        body: spec.body,
      })
      await res.arrayBuffer()
      if (res.status >= 300) errors++
    } catch {
      errors++
    }
    latencies.push(performance.now() - t0)
  }
}
const started = performance.now()
await Promise.all(Array.from({ length: connections }, worker))
latencies.sort((a, b) => a - b)
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
console.log(
  JSON.stringify({
    requests: latencies.length,
    seconds: (performance.now() - started) / 1000,
    p50: pct(50),
    p99: pct(99),
    errors,
  }),
)

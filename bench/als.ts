/**
 * `bun run bench als`: ALS signals intake against a bare Bun.serve baseline in the same run.
 *   POST /api/v1/learning/signals/intake  vs bench/baselines/json-insert.ts (parse the same JSON,
 *   insert one row into SQLite, WAL, committed before the answer)
 * Every request carries a new trace_id and correlation_id (a wrk Lua `request` function), so each
 * intake is a real new run committed to SQLite before its answer, never a duplicate read.
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DEFAULT_LOAD,
  drive,
  generator,
  type Result,
  report,
  rssMb,
  startBaseline,
  startUnit,
  type Target,
} from './lib.ts'

const PATH = '/api/v1/learning/signals/intake'

/** The intake body with `%d` placeholders for the wrk thread and the request counter. */
const TEMPLATE = JSON.stringify({
  tenant_ref: 'tenant-bench',
  trace_id: 'trace-%d-%d',
  correlation_id: 'corr-%d-%d',
  outcome: 'failure',
  guardrail_decision: 'WARN',
  family_version_set: { 'learning.signals': '1.0.0', 'registry.contract_matrix': '2.3.1' },
})

function uniqueBodyScript(): string {
  const script = join(tmpdir(), `wrk-als-${process.pid}-${Date.now()}.lua`)
  writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
local template = ${JSON.stringify(TEMPLATE)}
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local counter = 0
function request()
  counter = counter + 1
  return wrk.format(nil, nil, nil, string.format(template, tid, counter, tid, counter))
end
done = function(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %d %f %f %f %d\\n", summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end
`,
  )
  return script
}

/** Like lib's `drive`, with a new body per request (needs wrk; the Bun fallback repeats one body). */
async function driveUnique(target: Target, scenario: string): Promise<Result> {
  if (!Bun.which('wrk')) {
    return drive(target, scenario, {
      method: 'POST',
      path: PATH,
      headers: { 'content-type': 'application/json' },
      body: TEMPLATE.replaceAll('%d', '0'),
    })
  }
  const load = DEFAULT_LOAD
  const proc = Bun.spawn(
    [
      'wrk',
      `-t${Math.min(2, load.connections)}`,
      `-c${load.connections}`,
      `-d${load.seconds}s`,
      '-s',
      uniqueBodyScript(),
      target.url + PATH,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const m = /RESULT (\d+) ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(out)
  if (!m) throw new Error(`wrk output not understood:\n${out}`)
  const [, requests, seconds, p50, p99, errors] = m.map(Number) as number[]
  return {
    label: target.label,
    scenario,
    requests: requests ?? 0,
    rps: Math.round((requests ?? 0) / (seconds ?? 1)),
    p50_ms: Math.round((p50 ?? 0) * 100) / 100,
    p99_ms: Math.round((p99 ?? 0) * 100) / 100,
    non2xx: errors ?? 0,
    rss_mb: rssMb(target.pid),
  }
}

/** Rows the target holds after the run: proof that every acknowledged write was committed. */
async function storedRuns(target: Target): Promise<number | null> {
  const res = await fetch(`${target.url}/metrics`).catch(() => undefined)
  if (!res?.ok) return null
  const text = await res.text()
  let total = 0
  for (const m of text.matchAll(/^svc_als_runs\{state="[a-z_]+",unit="als"\} (\d+)$/gm)) total += Number(m[1])
  return total
}

/** Rounds of baseline then ALS, so drift in machine load shows instead of biasing one side. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

export default async function main(): Promise<string> {
  const rows: Result[] = []
  const notes: string[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const scenario = `POST ${PATH} (round ${round})`
    const base = await startBaseline('json-insert', '/health')
    rows.push(await driveUnique(base, scenario))
    await base.stop()

    const als = await startUnit('als', '/health', { ALS_SERVICE_MODE: 'observe_only' })
    const row = await driveUnique(als, scenario)
    rows.push(row)
    const stored = await storedRuns(als)
    await als.stop()
    notes.push(
      `Round ${round}: wrk counted ${row.requests - row.non2xx} 2xx intakes, ALS held ${stored ?? 'unknown'} runs afterwards (requests in flight when wrk stopped are stored but not counted).`,
    )
  }
  notes.push(
    'Each request is a new trace (wrk Lua request(): unique trace_id and correlation_id). ALS answers each intake only after its INSERT committed, in a group commit of the intakes of one event-loop turn.',
  )
  notes.push(
    `Generator ${generator}; ALS runs in production posture with info logging to a discarded stdout.`,
  )
  if (!Bun.which('wrk')) {
    notes.push(
      'wrk is not installed: the fallback generator repeats one body, so after the first request ALS answers duplicates from the stored run and the comparison is not like for like. Install wrk for the real figure.',
    )
  }
  return report('ALS', rows, notes)
}

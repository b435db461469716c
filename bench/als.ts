/**
 * `bun run bench als`: ALS signals intake against a bare Bun.serve baseline in the same run.
 *   POST /api/v1/learning/signals/intake  vs bench/baselines/json-insert.ts (parse the same JSON,
 *   insert one row into SQLite, WAL, committed before the answer)
 * Every request carries a new trace_id and correlation_id (a wrk Lua `request` function), so each
 * intake is a real new run committed to SQLite before its answer, never a duplicate read.
 */
import {
  drive,
  generator,
  type Result,
  ROUNDS,
  report,
  startBaseline,
  startUnit,
  type Target,
} from './lib.ts'

const PATH = '/api/v1/learning/signals/intake'

/** The intake body; wrk replaces `{n}` with a value unique to each request. */
const TEMPLATE = JSON.stringify({
  tenant_ref: 'tenant-bench',
  trace_id: 'trace-{n}',
  correlation_id: 'corr-{n}',
  outcome: 'failure',
  guardrail_decision: 'WARN',
  family_version_set: { 'learning.signals': '1.0.0', 'registry.contract_matrix': '2.3.1' },
})

/** Rows the target holds after the run: proof that every acknowledged write was committed. */
async function storedRuns(target: Target): Promise<number | null> {
  const res = await fetch(`${target.url}/metrics`).catch(() => undefined)
  if (!res?.ok) return null
  const text = await res.text()
  let total = 0
  for (const m of text.matchAll(/^svc_als_runs\{state="[a-z_]+",unit="als"\} (\d+)$/gm)) total += Number(m[1])
  return total
}

const SPEC = {
  method: 'POST' as const,
  path: PATH,
  headers: { 'content-type': 'application/json' },
  body: TEMPLATE.replaceAll('{n}', '0'),
  uniqueBody: TEMPLATE,
}

export default async function main(): Promise<string> {
  const rows: Result[] = []
  const notes: string[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const scenario = `POST ${PATH} (round ${round})`
    const base = await startBaseline('json-insert', '/health')
    rows.push(await drive(base, scenario, SPEC))
    await base.stop()

    const als = await startUnit('als', '/health', { ALS_SERVICE_MODE: 'observe_only' })
    const row = await drive(als, scenario, SPEC)
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

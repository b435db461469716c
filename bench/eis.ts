/**
 * `bun run bench eis`: EIS's signed website contact intake against a bare Bun.serve baseline in
 * the same run.
 *   POST /api/method/svc_erp_core.api.webhooks.website_contact_intake
 *     EIS: signature over the raw body, body schema, one write transaction (Lead + Integration
 *          Event), Frappe-style answer, request log at warn
 *     baseline (this file with EIS_BENCH_BASELINE=1): read the raw body, verify the hex
 *          HMAC-SHA256 in constant time, JSON.parse, one INSERT into SQLite (WAL,
 *          synchronous=NORMAL, as the unit), a small JSON answer
 * Every request is a new intake exactly as WEB forwards it (contactPayload), with its own e-mail
 * address and platform_event.event_id, signed over its exact text: each one creates a Lead and an
 * Integration Event, never a redelivery. Signatures differ per body, so a fetch loop at fixed
 * concurrency drives both sides (not wrk or bench/load.ts, which repeat one body).
 *
 * The baseline process must load nothing but bun:sqlite and node:crypto, so its RSS is that of a
 * bare server: the driver's modules are imported inside `main`, never at the top.
 */
import { Database } from 'bun:sqlite'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { join } from 'node:path'
import type { Result, Target } from './lib.ts'

const PATH = '/api/method/svc_erp_core.api.webhooks.website_contact_intake'
const SECRET = 'bench-erp-api-secret-0123456789'

// ---------- baseline ----------

function serveBaseline() {
  const db = new Database(join(process.env.EIS_BENCH_DIR ?? '.', 'baseline.sqlite'), { create: true })
  db.run('PRAGMA busy_timeout = 5000')
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run(`CREATE TABLE IF NOT EXISTS intakes (event_id TEXT PRIMARY KEY, email TEXT NOT NULL,
    received_at TEXT NOT NULL, body TEXT NOT NULL)`)
  const insert = db.prepare('INSERT INTO intakes (event_id, email, received_at, body) VALUES (?, ?, ?, ?)')
  const stored = db.prepare('SELECT count(*) AS n FROM intakes')
  const decoder = new TextDecoder()
  const json = (body: unknown, status = 200) => Response.json(body, { status })
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return json({ status: 'ok', stored: (stored.get() as { n: number }).n })
      if (req.method !== 'POST' || path !== PATH) return json({ error: { code: 'not_found' } }, 404)
      const bytes = new Uint8Array(await req.arrayBuffer())
      const given = Buffer.from(req.headers.get('x-signature') ?? '', 'hex')
      const expected = createHmac('sha256', SECRET).update(bytes).digest()
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return json({ error: { code: 'signature_invalid' } }, 401)
      let body: { contact?: { email?: string }; platform_event?: { event_id?: string } }
      try {
        body = JSON.parse(decoder.decode(bytes))
      } catch {
        return json({ error: { code: 'invalid_json' } }, 400)
      }
      const id = body.platform_event?.event_id
      const email = body.contact?.email
      if (typeof id !== 'string' || typeof email !== 'string')
        return json({ error: { code: 'invalid_body' } }, 400)
      insert.run(id, email.toLowerCase(), new Date().toISOString(), decoder.decode(bytes))
      return json({ message: { integration_event: id, ack: true, duplicate: false } })
    },
  })
  process.on('SIGTERM', () => {
    server.stop(true)
    db.close()
    process.exit(0)
  })
}

if (process.env.EIS_BENCH_BASELINE === '1') serveBaseline()

// ---------- driver ----------

/**
 * Signed contact intakes at fixed concurrency for the configured time: each request a new body
 * (its own e-mail and event id) with its own signature. A request counts as served when the
 * answer is 200 with `ack: true, duplicate: false`.
 */
async function driveIntakes(
  target: Target,
  scenario: string,
  round: number,
): Promise<Result & { bytes: number }> {
  const { cpuMicros, DEFAULT_LOAD, resultOf } = await import('./lib.ts')
  const { contactPayload } = await import('../units/web/rules/delivery.ts')
  const { hmacHex, signBody } = await import('../common/signature.ts')
  const { seconds, connections } = DEFAULT_LOAD
  const site = {
    tool_key: 'public-website',
    public_base_url: 'https://example.org',
    runtime_kind: 'bun-elysia-function-runtime',
  }
  const latencies: number[] = []
  let refused = 0
  let bytes = 0
  const cpuBefore = cpuMicros(target.pid)
  const end = performance.now() + seconds * 1000
  const started = performance.now()
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < end; i++) {
      const raw = JSON.stringify(
        contactPayload(
          {
            intakeId: crypto.randomUUID(),
            receivedAt: new Date().toISOString(),
            name: 'Ada Bench',
            email: `ada-${round}-${w}-${i}@example.org`,
            interest: 'erp',
            message: 'We would like a demo of the ERP integration.',
            optional: { company: 'ACME', source_page: '/contact', locale: 'en' },
          },
          site,
        ),
      )
      bytes = raw.length
      const t0 = performance.now()
      const res = await fetch(target.url + PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...signBody(hmacHex(), SECRET, raw) },
        body: raw,
      })
      const answer = (await res.json().catch(() => ({}))) as {
        message?: { ack?: boolean; duplicate?: boolean }
      }
      latencies.push(performance.now() - t0)
      if (res.status !== 200 || answer.message?.ack !== true || answer.message.duplicate !== false) refused++
    }
  }
  await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)))
  const elapsed = (performance.now() - started) / 1000
  return { ...resultOf(target, scenario, { latencies, seconds: elapsed, non2xx: refused, cpuBefore }), bytes }
}

/** Rows of `table` in a stopped target's SQLite file. */
function rowsIn(file: string, table: string): number {
  const db = new Database(file, { readonly: true })
  try {
    return (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  } finally {
    db.close()
  }
}

export default async function main(): Promise<string> {
  const { DEFAULT_LOAD, ROUNDS, report, startUnit, summarize } = await import('./lib.ts')
  const { tempDir } = await import('../test/harness.ts')
  const unitDir = tempDir('bench-eis-')
  const baseDir = tempDir('bench-eis-baseline-')
  const unit = await startUnit('eis', '/healthz', {
    SVC_DATA_DIR: unitDir,
    ERP_API_SHARED_SECRET: SECRET,
    LOG_LEVEL: 'warn',
  })
  let base: Target | undefined
  const scenario = `POST ${PATH} (signed, new Lead each)`
  const sides: { rounds: (Result & { bytes: number })[] }[] = [{ rounds: [] }, { rounds: [] }]
  try {
    base = await startUnit(
      'baseline:bun-serve',
      '/healthz',
      { EIS_BENCH_BASELINE: '1', EIS_BENCH_DIR: baseDir },
      [process.execPath, 'bench/eis.ts'],
    )
    for (let round = 1; round <= ROUNDS; round++) {
      sides[0]?.rounds.push(await driveIntakes(base, scenario, round))
      sides[1]?.rounds.push(await driveIntakes(unit, scenario, round))
    }
  } finally {
    await base?.stop()
    await unit.stop()
  }
  const [b, u] = summarize(sides[0]?.rounds ?? [], sides[1]?.rounds ?? [])
  const ratio = u.ratio ?? Number.NaN
  const ratios = (u.rounds ?? []).map((r, i) => r / (b.rounds?.[i] ?? Number.NaN))
  const served = (s: { rounds: Result[] } | undefined) =>
    (s?.rounds ?? []).reduce((n, r) => n + r.requests - r.non2xx, 0)
  const unitFile = join(unitDir, 'eis.sqlite')
  const leads = rowsIn(unitFile, 'leads')
  const events = rowsIn(unitFile, "integration_events WHERE source = 'webhooks.website_contact_intake'")
  const baseRows = rowsIn(join(baseDir, 'baseline.sqlite'), 'intakes')
  const table = report(
    'EIS',
    [b, u],
    [
      `Ratio (requests/s, EIS over baseline) per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${ratio.toFixed(2)} (target ≥ 0.8: ${ratio >= 0.8 ? 'met' : 'NOT met'}).`,
      `Every request is a new WEB-shaped contact intake (units/web/rules/delivery.ts contactPayload: unique e-mail and platform_event.event_id, ${u.bytes} bytes of JSON) signed over its exact text (X-Signature, hex HMAC-SHA256). Counted served: 200 with ack true and duplicate false; non-2xx counts anything else.`,
      `Afterwards EIS held ${leads} Leads and ${events} contact Integration Events for ${served(sides[1])} acknowledged intakes; the baseline held ${baseRows} rows for ${served(sides[0])} (the driver waits for every answer, so nothing is in flight at the end).`,
      `Both sides run at once for all ${ROUNDS} rounds (databases grow across rounds) and are driven alternately by the same in-process fetch loop (${DEFAULT_LOAD.connections} connections), which also builds and signs each body. EIS runs from source in production posture with LOG_LEVEL=warn and ERP_API_SHARED_SECRET only (embedded ERP backend).`,
    ],
  )
  return table.replace(/^Generator: [^;]+;/m, 'Generator: in-process signed fetch loop (bench/eis.ts);')
}

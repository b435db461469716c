/**
 * The framework tax of every HTTP unit: its hot read routes (liveness, readiness, version, the
 * catalog and registry views) against a bare `Bun.serve` that answers the very same bytes
 * (bench/baselines/replay.ts, fed with what the unit answered each path with a moment before).
 * The ratio is what the plumbing costs: the unit still stamps request ids, counts metrics and
 * logs each request, and validates its response schema.
 *
 * `npm run bench -- <unit>` prints this section before the unit's own scenarios;
 * `npm run bench -- <unit> --tax` prints it alone.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { compare, type Result, report, rssMb, startBaseline, startUnit } from './lib.ts'

const TOKEN = 'bench-token-0000000000000001'
/**
 * `BENCH_BASELINE=body`: the baseline sends the body with its content type only, not the unit's
 * other headers (request id, nosniff, ETag, cache control): the figure of earlier runs.
 */
const BODY_ONLY = process.env.BENCH_BASELINE === 'body'

interface TaxRoutes {
  probe: string
  env?: Record<string, string>
  headers?: Record<string, string>
  paths: readonly string[]
}

/** Each unit's hot read routes, and what it needs to answer them in production posture. */
export const TAX_ROUTES: Record<string, TaxRoutes> = {
  rms: {
    probe: '/health',
    env: { RMS_LOCAL_TOKENS: `${TOKEN}:user:bench:r`, RMS_CONTROL_AGENT_ENABLED: 'false' },
    headers: { authorization: `Bearer ${TOKEN}` },
    paths: ['/health', '/version', '/api/v1/agent-runtime/catalog', '/api/v1/tool-profiles'],
  },
  als: { probe: '/health', paths: ['/health', '/version', '/api/v1/learning/contracts'] },
  pws: {
    probe: '/healthz',
    env: { PWS_SESSION_SECRET: 'bench-session-secret-0123456789abcdef' },
    paths: ['/healthz', '/versionz', '/contractz'],
  },
  web: {
    probe: '/health',
    env: { PUBLIC_BASE_URL: 'https://www.example.com', TURNSTILE_SECRET_KEY: 'bench-secret' },
    paths: ['/health', '/ready', '/version.json'],
  },
  nds: {
    probe: '/v1/health/live',
    env: { NDS_PUBLIC_BASE_URL: 'https://news.example.com' },
    paths: ['/v1/health/live', '/v1/health/info', '/v1/platform/metadata'],
  },
  eis: {
    probe: '/healthz',
    env: { EIS_INTERNAL_TOKEN: TOKEN },
    headers: { authorization: `Bearer ${TOKEN}` },
    paths: ['/healthz', '/api/method/svc_erp_core.api.health.integration_status'],
  },
  wta: {
    probe: '/api/v1/health',
    env: { SVC_API_TOKEN: TOKEN },
    headers: { authorization: `Bearer ${TOKEN}` },
    paths: ['/api/v1/health', '/api/v1/workflow-context.schema.json'],
  },
  mailbox: { probe: '/healthz', paths: ['/healthz'] },
  prs: {
    probe: '/health',
    paths: [
      '/health',
      '/api/v1/contracts/matrix',
      '/api/v1/contracts/registry',
      '/api/v1/contracts/docs-standard',
    ],
  },
}

/** Headers Bun's server writes on every response by itself. */
const BUN_WRITES = new Set(['date', 'content-length'])

/** What the unit answers each path with, for the baseline to replay byte for byte. */
async function capture(url: string, routes: TaxRoutes): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const path of routes.paths) {
    const res = await fetch(url + path, { headers: routes.headers })
    const body = Buffer.from(await res.arrayBuffer())
    if (res.status !== 200)
      throw new Error(`${path} answered ${res.status}: ${body.toString().slice(0, 200)}`)
    out[path] = {
      status: res.status,
      contentType: res.headers.get('content-type') ?? 'application/octet-stream',
      // Every header but the two Bun writes itself: the baseline sends the same bytes, request id
      // (this one, a constant of the same length) and ETag included.
      headers: [...res.headers].filter(([name]) => !BUN_WRITES.has(name)),
      body: body.toString('base64'),
    }
  }
  return out
}

export async function taxReport(unit: string): Promise<string> {
  const routes = TAX_ROUTES[unit]
  if (!routes) return `### ${unit.toUpperCase()}: framework tax\n\nno HTTP routes to measure\n`
  const target = await startUnit(unit, routes.probe, { LOG_LEVEL: 'info', ...routes.env })
  const rows: Result[] = []
  const notes: string[] = []
  try {
    const idle = rssMb(target.pid)
    const replayFile = join(tempDir('bench-replay-'), 'replay.json')
    writeFileSync(replayFile, JSON.stringify(await capture(target.url, routes)))
    const base = await startBaseline('replay', routes.probe, {
      REPLAY_FILE: replayFile,
      REPLAY_HEADERS: BODY_ONLY ? 'content-type' : 'all',
    })
    try {
      for (const path of routes.paths) {
        rows.push(...(await compare(base, target, `GET ${path}`, { path, headers: routes.headers })))
      }
    } finally {
      await base.stop()
    }
    notes.push(
      `${unit} RSS: ${idle} MB idle (after start), ${rssMb(target.pid)} MB after the load above.`,
      `The baseline (bench/baselines/replay.ts) answers each path with the bytes the unit answered it with just before the run (same status, headers and body${BODY_ONLY ? '; here only the content type of the headers, BENCH_BASELINE=body' : ''}); the unit runs from source in production posture with info logs to a discarded stdout.`,
    )
  } finally {
    await target.stop()
  }
  return report(`${unit.toUpperCase()}: framework tax (identical bytes)`, rows, notes)
}

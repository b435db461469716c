import { join } from 'node:path'
import { EXAMPLE_HOST_FILES } from '../units/rms/example-host.ts'
import type { AgentDoc } from '../units/rms/model/host.ts'
import { federationContract } from '../units/rms/rules/federation.ts'
import { drive, type Result, ROOT, report, startUnit } from './lib.ts'

const TOKEN = 'bench-read-token-0001'
const SUBJECT = 'user:bench'
const VERSION = 'pv-bench'

function authorityMark() {
  return {
    authority_source: 'projection',
    authority: {
      lane: 'bearer',
      subject: SUBJECT,
      projection_version: VERSION,
      cached: true,
      degraded: false,
      degraded_reason: null,
    },
  }
}

function documents() {
  const of = (dir: string) =>
    Object.entries(EXAMPLE_HOST_FILES)
      .filter(([path]) => path.startsWith(`${dir}/`))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, doc]) => doc)
  const profiles = of('tool-profiles')
  const agents = of('agents') as AgentDoc[]
  const catalog = federationContract({
    federation_id: 'example-federation',
    agents,
    desiredParents: new Map(agents.map((a) => [a.agent_id, a.parent_agent_id])),
    fallbackReason: null,
  })
  return {
    '/api/v1/tool-profiles': JSON.stringify({ items: profiles, count: profiles.length, ...authorityMark() }),
    '/api/v1/agent-runtime/catalog': JSON.stringify({ ...catalog, ...authorityMark() }),
  } as Record<string, string>
}

function serveBaseline() {
  const docs = documents()
  const resolutions = new Map([[TOKEN, { subject: SUBJECT, read: true }]])
  const headers = { 'content-type': 'application/json; charset=utf-8' }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/health') return Response.json({ status: 'ok' })
      const auth = req.headers.get('authorization')
      const token = auth?.startsWith('Bearer ') ? auth.slice(7) : null
      if (!token || !resolutions.get(token)?.read)
        return Response.json({ error: { code: 'unknown_token' } }, { status: 401 })
      const doc = docs[path]
      return doc ? new Response(doc, { headers }) : new Response('not found', { status: 404 })
    },
  })
  process.on('SIGTERM', () => {
    server.stop(true)
    process.exit(0)
  })
}

if (process.env.RMS_BENCH_BASELINE === '1') serveBaseline()

const SCENARIOS = [
  { scenario: 'GET /api/v1/tool-profiles (bearer)', path: '/api/v1/tool-profiles' },
  { scenario: 'GET /api/v1/agent-runtime/catalog (bearer)', path: '/api/v1/agent-runtime/catalog' },
]

/** The projection layer RMS asks; counts resolutions so the report can show the cache worked. */
function projectionLayer() {
  let resolves = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/api/v1/authority/resolve') {
        resolves++
        const { token } = (await req.json()) as { token: string }
        if (token !== TOKEN) return Response.json({ error: 'unknown' }, { status: 404 })
        return Response.json({
          subject: SUBJECT,
          read: true,
          write: false,
          projection_version: VERSION,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        })
      }
      if (path === '/api/v1/tool-policy-projection')
        return Response.json({ projection_version: VERSION, agents: [] })
      return new Response('not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, resolves: () => resolves, stop: () => server.stop(true) }
}

export default async function main(): Promise<string> {
  const rows: Result[] = []
  const spec = (path: string) => ({ path, headers: { authorization: `Bearer ${TOKEN}` } })
  const base = await startUnit('baseline:bun-serve', '/health', { RMS_BENCH_BASELINE: '1' }, [
    process.execPath,
    join(ROOT, 'bench', 'rms.ts'),
  ])
  try {
    for (const s of SCENARIOS) rows.push(await drive(base, s.scenario, spec(s.path)))
  } finally {
    await base.stop()
  }
  const layer = projectionLayer()
  let served = 0
  try {
    const rms = await startUnit('rms', '/health', {
      SVC_CONTEXT_BASE_URL: layer.url,
      RMS_CONTROL_AGENT_ENABLED: 'false',
    })
    try {
      for (const s of SCENARIOS) {
        const r = await drive(rms, s.scenario, spec(s.path))
        served += r.requests
        rows.push(r)
      }
    } finally {
      await rms.stop()
    }
  } finally {
    layer.stop()
  }
  return report('RMS', rows, [
    `Projection layer asked ${layer.resolves()} time(s) for ${served} authenticated RMS requests (resolution cache, bounded age 60 s).`,
    'RMS runs with SVC_ENV=production, logs on, the control loop off (it would only add a reconcile per 120 s); both sides serve the same JSON derived from the same example host.',
    'RMS re-reads the runtime host directory at most every 250 ms (RMS_HOST_SCAN_CACHE_MS) and derives each answer per request; the baseline serves precomputed bytes.',
  ])
}

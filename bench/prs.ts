/**
 * `bun run bench prs`: PRS's two hottest reads against a bare Bun.serve baseline in the same run.
 *   GET /api/v1/contracts/matrix    vs the same matrix document, precomputed, from Bun.serve
 *   GET /api/v1/contracts/registry  vs the same registry document, precomputed, from Bun.serve
 * The baseline is this file run with PRS_BENCH_BASELINE=1 (bench/baselines/ belongs to the
 * foundation), so both sides serve byte-for-byte the same derivation of the same contracts.
 */
import { unitContracts } from '../units/contracts.ts'
import { contractVersionOf, deriveMatrix, deriveRegistry } from '../units/prs/rules/derive.ts'
import { drive, type Result, report, startUnit } from './lib.ts'

function serveBaseline() {
  const contract_version = contractVersionOf(unitContracts)
  const generated_at = new Date().toISOString()
  const matrix = JSON.stringify({
    generated_at,
    contract_version,
    version: contract_version,
    ...deriveMatrix(unitContracts),
  })
  const registry = JSON.stringify({ generated_at, contract_version, units: deriveRegistry(unitContracts) })
  const headers = { 'content-type': 'application/json; charset=utf-8' }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/health') return Response.json({ status: 'ok' })
      if (path === '/api/v1/contracts/matrix') return new Response(matrix, { headers })
      if (path === '/api/v1/contracts/registry') return new Response(registry, { headers })
      return new Response('not found', { status: 404 })
    },
  })
  process.on('SIGTERM', () => {
    server.stop(true)
    process.exit(0)
  })
}

if (process.env.PRS_BENCH_BASELINE === '1') serveBaseline()

const SCENARIOS = [
  { scenario: 'GET /api/v1/contracts/matrix', path: '/api/v1/contracts/matrix' },
  { scenario: 'GET /api/v1/contracts/registry', path: '/api/v1/contracts/registry' },
]

export default async function main(): Promise<string> {
  const rows: Result[] = []
  const base = await startUnit('baseline:bun-serve', '/health', { PRS_BENCH_BASELINE: '1' }, [
    process.execPath,
    'bench/prs.ts',
  ])
  try {
    for (const s of SCENARIOS) rows.push(await drive(base, s.scenario, { path: s.path }))
  } finally {
    await base.stop()
  }
  const prs = await startUnit('prs', '/health', { LOG_LEVEL: 'warn' })
  try {
    for (const s of SCENARIOS) rows.push(await drive(prs, s.scenario, { path: s.path }))
  } finally {
    await prs.stop()
  }
  const sizes = await Promise.all(
    SCENARIOS.map(async (s) => {
      const doc = s.path.endsWith('matrix')
        ? deriveMatrix(unitContracts)
        : { units: deriveRegistry(unitContracts) }
      return `${s.scenario}: ${Math.round(JSON.stringify(doc).length / 1024)} KiB of JSON`
    }),
  )
  return report('PRS', rows, [
    ...sizes,
    'Both sides serve the same derivation of the same eleven contracts; PRS derives each view once and caches it (invalidated on a new observation round).',
  ])
}

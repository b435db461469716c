/**
 * CPU µs per request of a unit's GET routes in process, with no network and no load generator:
 * boot the unit as an operator runs it (production posture, info logs to stdout, the headers and
 * configuration of bench/tax.ts), then call `app.handle` in a loop, the paths in turn for three
 * rounds of `N` requests (default 50 000); prints each path's median round on stderr. Steadier
 * than the over-HTTP figures on a shared machine; compare paths within one run.
 *
 *   npx bun bench/in-process.ts eis /healthz /api/method/svc_erp_core.api.health.integration_status > /dev/null
 *   LOG_LEVEL=warn N=100000 npx bun bench/in-process.ts nds /v1/health/info > /dev/null
 *   npx bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/in-process.ts mailbox /healthz > /dev/null
 */

import { bootUnitAsync } from '../runtime/run.ts'
import { tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { median } from './lib.ts'
import { TAX_ROUTES } from './tax.ts'

const [name = 'eis', ...paths] = process.argv.slice(2)
const N = Number(process.env.N ?? 50_000)
const ROUNDS = 3
const routes = TAX_ROUTES[name]
const entry = httpUnits[name as keyof typeof httpUnits]
const unit = await bootUnitAsync(await entry.load(), {
  SVC_ENV: 'production',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  SVC_DATA_DIR: tempDir(`measure-${name}-`),
  ...routes?.env,
})
const headers = routes?.headers ?? {}
const run = async (path: string, count: number) => {
  const url = `http://localhost${path}`
  const t0 = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    const res = await unit.app.handle(new Request(url, { headers }))
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
    await res.arrayBuffer()
  }
  const d = process.cpuUsage(t0)
  return (d.user + d.system) / count
}
const rounds = new Map<string, number[]>(paths.map((p) => [p, []]))
for (const p of paths) await run(p, 5000)
for (let r = 0; r < ROUNDS; r++) for (const p of paths) rounds.get(p)?.push(await run(p, N))
for (const [p, us] of rounds) {
  process.stderr.write(
    `${name} GET ${p}: ${median(us).toFixed(1)} µs/request (rounds ${us.map((u) => u.toFixed(1)).join(', ')})\n`,
  )
}
await unit.close()
process.exit(0)

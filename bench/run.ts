/**
 * `npm run bench -- <name…> [--tax]`: for each HTTP unit, its framework tax (bench/tax.ts: hot read
 * routes against a `Bun.serve` answering identical bytes) and then its own scenarios
 * (bench/<unit>.ts, when there is one); other names (`storage`, `suite`) run bench/<name>.ts.
 * `--tax` runs the framework-tax section alone. `startup [unit…]` (bench/startup.ts) takes the
 * names after it as the units to start, not as benchmarks.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TAX_ROUTES, taxReport } from './tax.ts'

const own = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith('.ts') && !['lib.ts', 'load.ts', 'run.ts', 'tax.ts'].includes(f))
  .map((f) => f.slice(0, -3))
const available = [...new Set([...Object.keys(TAX_ROUTES), ...own])].sort()
const args = process.argv.slice(2)
const taxOnly = args.includes('--tax')
const startupAt = args.indexOf('startup')
const startupUnits = startupAt >= 0 ? args.slice(startupAt + 1) : []
const wanted = (startupAt >= 0 ? args.slice(0, startupAt + 1) : args).filter((a) => a !== '--tax')
if (wanted.length === 0 || wanted.some((w) => !available.includes(w))) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}>… [--tax]\n`)
  process.exit(2)
}
for (const name of wanted) {
  if (name in TAX_ROUTES) console.log(`${await taxReport(name)}\n`)
  if (taxOnly) continue
  const file = join(import.meta.dir, `${name}.ts`)
  if (!existsSync(file)) continue
  const mod = (await import(file)) as { default: (units?: string[]) => Promise<string> }
  console.log(`${await mod.default(name === 'startup' ? startupUnits : undefined)}\n`)
}

#!/usr/bin/env bun
/**
 * `bun tools/fuzz.ts [unit…] [--runs N] [--seed S] [--op 'METHOD /path'] [--mode valid|mutated|unknown]
 *  [--replay PATH] [--rebuild]`: fuzz every route of the named units (all registered HTTP units by
 * default) from their OpenAPI documents. A failure prints the command that replays it; `--rebuild`
 * first reruns, quietly, what a full run ran before the operation, so state and seen ids match.
 * Exit 0 when every property held, 1 on a failure, 2 on bad usage.
 */
import { parseArgs } from 'node:util'
import { httpUnits } from '../units/registry.ts'
import { type FuzzReport, formatFailure, fuzzTarget, type Mode } from './lib/fuzzer.ts'
import { KNOWN_ISSUES } from './lib/properties.ts'
import { openUnitTarget } from './lib/units.ts'

const USAGE =
  "usage: bun tools/fuzz.ts [unit...] [--runs N] [--seed S] [--op 'METHOD /path'] [--mode valid|mutated|unknown] [--replay PATH] [--rebuild]"

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (err) {
    process.stderr.write(`fuzz: ${(err as Error).message}\n${USAGE}\n`)
    return 2
  }
  const { values, positionals } = parsed
  const runs = Number(values.runs ?? 100)
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
  const mode = values.mode as Mode | undefined
  const known = Object.keys(httpUnits)
  const units = positionals.length > 0 ? positionals : known
  const problems = [
    ...(!Number.isInteger(runs) || runs < 1 ? ['--runs must be a positive integer'] : []),
    ...(!Number.isInteger(seed) ? ['--seed must be an integer'] : []),
    ...(mode && !['valid', 'mutated', 'unknown'].includes(mode)
      ? ['--mode must be valid, mutated or unknown']
      : []),
    ...units
      .filter((u) => !known.includes(u))
      .map((u) => `unknown unit '${u}' (registered: ${known.join(' ')})`),
  ]
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(`fuzz: ${p}\n`)
    process.stderr.write(`${USAGE}\n`)
    return 2
  }

  const reports: FuzzReport[] = []
  for (const unit of units) {
    console.log(`fuzz ${unit}: seed ${seed}, ${runs} runs per operation and mode`)
    const target = await openUnitTarget(unit)
    const started = performance.now()
    try {
      const report = await fuzzTarget(target, {
        runs,
        seed,
        only: values.op,
        mode,
        replay: values.replay,
        rebuild: values.rebuild,
        log: (line) => console.log(line),
      })
      reports.push(report)
      for (const note of report.notes) console.log(`  note: ${note}`)
      for (const [id, n] of Object.entries(report.known)) {
        const issue = KNOWN_ISSUES.find((k) => k.id === id)
        console.log(`  known issue ${id} (not failed, ${n} requests): ${issue?.note ?? ''}`)
      }
      for (const f of report.failures) console.log(formatFailure(f))
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      console.log(
        `${unit}: ${report.operations} operations, ${report.requests} requests, ${report.failures.length} failures (seed ${seed}, ${seconds} s)`,
      )
    } finally {
      await target.close()
    }
  }
  const requests = reports.reduce((n, r) => n + r.requests, 0)
  const failures = reports.reduce((n, r) => n + r.failures.length, 0)
  console.log(`fuzz: ${reports.length} units, ${requests} requests, ${failures} failures, seed ${seed}`)
  return failures > 0 ? 1 : 0
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      op: { type: 'string', multiple: true },
      mode: { type: 'string' },
      replay: { type: 'string' },
      rebuild: { type: 'boolean' },
    },
  })
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))

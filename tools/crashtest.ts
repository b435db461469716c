#!/usr/bin/env bun
/**
 * `bun tools/crashtest.ts <unit> [--rounds 20] [--seed S] [--concurrency 8] [--max-kill-ms 1500]`:
 * the real unit process under concurrent writes, SIGKILLed at random moments and restarted on
 * the same data directory. Exit 0 when no acknowledged write is lost and the database is intact,
 * 1 otherwise, 2 on bad usage.
 */
import { parseArgs } from 'node:util'
import { registeredUnit } from '../units/registry.ts'
import { crashTargets } from './crash-targets.ts'
import { crashTest, removeDataDir } from './lib/crash.ts'

const USAGE =
  'usage: bun tools/crashtest.ts <unit> [--rounds N] [--seed S] [--concurrency N] [--max-kill-ms MS] [--keep]'

export async function main(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        rounds: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        'max-kill-ms': { type: 'string' },
        keep: { type: 'boolean' },
      },
    }))
  } catch (err) {
    process.stderr.write(`crashtest: ${(err as Error).message}\n${USAGE}\n`)
    return 2
  }
  const unitName = positionals[0]
  const rounds = Number(values.rounds ?? 20)
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
  const concurrency = Number(values.concurrency ?? 8)
  const maxKillMs = Number(values['max-kill-ms'] ?? 1500)
  const unit = registeredUnit(unitName)
  const target = unitName ? crashTargets[unitName] : undefined
  const problems = [
    ...(!unitName ? ['unit name missing'] : []),
    ...(unitName && !unit ? [`unknown unit '${unitName}'`] : []),
    ...(unit && !target
      ? [`no crash target for '${unitName}' (covered: ${Object.keys(crashTargets).join(' ')})`]
      : []),
    ...([rounds, concurrency, maxKillMs].some((n) => !Number.isInteger(n) || n < 1)
      ? ['--rounds, --concurrency and --max-kill-ms must be positive integers']
      : []),
    ...(!Number.isInteger(seed) ? ['--seed must be an integer'] : []),
  ]
  if (problems.length > 0 || !unit || !target || !unitName) {
    for (const p of problems) process.stderr.write(`crashtest: ${p}\n`)
    process.stderr.write(`${USAGE}\n`)
    return 2
  }
  console.log(
    `crashtest ${unitName}: ${rounds} rounds, ${concurrency} writers, seed ${seed}, ${target.method} ${target.path}`,
  )
  const report = await crashTest(unitName, unit.liveness, target, {
    rounds,
    seed,
    concurrency,
    minKillMs: Math.min(100, maxKillMs),
    maxKillMs,
    log: (line) => console.log(line),
  })
  for (const e of report.errors) console.log(`  error: ${e}`)
  if (report.lost.length > 0) console.log(`  lost: ${report.lost.slice(0, 20).join(' ')}`)
  if (report.integrity.length > 0) console.log(`  integrity_check: ${report.integrity.join('; ')}`)
  const intact = report.integrity.length === 0 ? 'ok' : 'FAILED'
  console.log(
    `crashtest ${unitName}: rounds ${report.rounds}, acknowledged writes ${report.acknowledged}, writes lost ${report.lost.length}, integrity ${intact} (${report.attempted} attempted, seed ${seed})`,
  )
  if (values.keep) console.log(`  data dir kept: ${report.dataDir}`)
  else removeDataDir(report)
  const failed =
    report.lost.length > 0 ||
    report.integrity.length > 0 ||
    report.errors.length > 0 ||
    report.rounds < rounds
  return failed ? 1 : 0
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))

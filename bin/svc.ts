#!/usr/bin/env bun
/**
 * `svc`: the suite's one program.
 *   svc unit <name>      run one HTTP unit
 *   svc units            list units, ports and liveness routes
 *   svc migrate <name>   create or migrate a unit's database, then exit
 *   svc suite [--one-process] [name…]
 *                        run every HTTP unit (or the named ones), wired to each other; each its
 *                        own process, or all in this one
 *   svc <cli-unit> …     command-line units and unit subcommands (tel, mem, nds keys …)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../common/cli.ts'
import { ConfigError } from '../common/config.ts'
import { httpStatus } from '../common/peer.ts'
import { openUnitStorage, probeFile, readUnitConfig, runUnit } from '../runtime/run.ts'
import { cliUnits, httpUnits, registeredUnit, unitNames } from '../units/registry.ts'
import { runSuite, suiteStatus } from './suite.ts'

const USAGE = `usage: svc <command>
  unit <name>       run one HTTP unit (${Object.keys(httpUnits).join(' ')})
  units             list the units with their ports and liveness routes
  migrate <name>    create or migrate a unit's SQLite database, then exit
  suite [--one-process] [name...]
                    run every HTTP unit (or the named ones), wired to each other: each its own
                    process, or with --one-process all in this one (small hosts)
  suite status [name...]  each unit's liveness and readiness on this host (exit 1 if any is not ready)
  probe [name]      exit 0 when the unit running on this data directory answers its liveness route
${Object.entries(cliUnits)
  .map(([name, u]) => `  ${`${name} <command>`.padEnd(18)}${u.title} (svc ${name} lists its commands)`)
  .join('\n')}`

const PROBE_FILE = /^\.svc-.+\.listen\.json$/
const PROBE_TIMEOUT_MS = 3000

function usage(problem?: string): number {
  if (problem) process.stderr.write(`svc: ${problem}\n`)
  process.stderr.write(`${USAGE}\n`)
  return EXIT_USAGE
}

/** Container health check: no curl in slim images, so the executable probes itself. */
async function probe(name: string | undefined, env: Record<string, string | undefined>): Promise<number> {
  if (name !== undefined && !registeredUnit(name)) return usage(`probe: unknown unit '${name}'`)
  const dataDir = env.SVC_DATA_DIR || './data'
  const unhealthy = (line: string) => {
    process.stderr.write(`svc probe: ${line}\n`)
    return EXIT_FAILED
  }
  if (!existsSync(dataDir)) return unhealthy(`the data directory ${dataDir} does not exist (SVC_DATA_DIR)`)
  // Without a name: the one unit that ran on this data directory (a container's case).
  const ran = readdirSync(dataDir).filter((f) => PROBE_FILE.test(f))
  if (!name && ran.length > 1) return usage('probe: name the unit (several ran on this data directory)')
  const file = name ? probeFile(dataDir, name) : ran[0] && join(dataDir, ran[0])
  if (!file || !existsSync(file)) {
    return unhealthy(`${name ? `unit ${name} has` : 'no unit has'} started on the data directory ${dataDir}`)
  }
  let target: { port: number; liveness: string }
  try {
    target = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return unhealthy(`${file} is unreadable`)
  }
  const url = `http://127.0.0.1:${target.port}${target.liveness}`
  const status = await httpStatus(url, PROBE_TIMEOUT_MS)
  if (status === undefined) return unhealthy(`GET ${url} did not answer within ${PROBE_TIMEOUT_MS} ms`)
  return status === 200 ? EXIT_OK : unhealthy(`GET ${url} answered ${status}`)
}

async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv
  const env = process.env
  switch (command) {
    case 'unit': {
      const entry = registeredUnit(rest[0])
      if (!entry) return usage(rest[0] ? `unknown unit '${rest[0]}'` : 'unit name missing')
      await runUnit(await entry.load(), env)
      return undefined
    }
    case 'units': {
      const rows = unitNames.map((name) => {
        const h = registeredUnit(name)
        return h ? [name, String(h.port), h.liveness, h.title] : [name, '-', '-', cliUnits[name]?.title ?? '']
      })
      const widths = [8, 6, 18]
      console.log(['unit', 'port', 'liveness', 'title'].map((c, i) => c.padEnd(widths[i] ?? 0)).join(' '))
      for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' '))
      return 0
    }
    case 'migrate': {
      const entry = registeredUnit(rest[0])
      if (!entry) return usage(rest[0] ? `unknown unit '${rest[0]}'` : 'unit name missing')
      const unit = await entry.load()
      try {
        const config = readUnitConfig(unit, env)
        const storage = await openUnitStorage(unit, config)
        console.log(`${unit.name}: database ready at ${storage.location} (${storage.driver})`)
        await storage.close()
        return 0
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        for (const line of err.problems)
          process.stderr.write(`svc ${unit.name}: bad configuration: ${line}\n`)
        return EXIT_USAGE
      }
    }
    case 'probe':
      return probe(rest[0], env)
    case 'suite':
      if (rest[0] === 'status') return suiteStatus(rest.slice(1), env, (text) => process.stdout.write(text))
      await runSuite(rest, env)
      return undefined
    case undefined:
      return usage('command missing')
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE)
      return 0
    default: {
      const cli = Object.hasOwn(cliUnits, command) ? cliUnits[command] : undefined
      if (!cli) return usage(`unknown command '${command}'`)
      return (await cli.load()).run(rest, env)
    }
  }
}

// No top-level await: the entry stays buildable as a CommonJS bundle too (bytecode without --compile needs one).
void main(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exit(code)
})

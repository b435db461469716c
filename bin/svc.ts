#!/usr/bin/env bun
/**
 * `svc`: the suite's one program.
 *   svc unit <name>      run one HTTP unit
 *   svc units            list units, ports and liveness routes
 *   svc migrate <name>   create or migrate a unit's database, then exit
 *   svc suite [name…]    run every HTTP unit (or the named ones), wired to each other
 *   svc <cli-unit> …     command-line units and unit subcommands (tel, mem, nds keys …)
 */
import { EXIT_USAGE } from '../common/cli.ts'
import { ConfigError } from '../common/config.ts'
import { readUnitConfig, runUnit } from '../common/runtime.ts'
import { databasePath, openDatabase } from '../db/sqlite.ts'
import { cliUnits, httpUnits, unitNames } from '../units/registry.ts'
import { runSuite } from './suite.ts'

const USAGE = `usage: svc <command>
  unit <name>       run one HTTP unit (${Object.keys(httpUnits).join(' ')})
  units             list the units with their ports and liveness routes
  migrate <name>    create or migrate a unit's SQLite database, then exit
  suite [name...]   run every HTTP unit (or the named ones), wired to each other
${Object.values(cliUnits)
  .map((u) => `  ${u.usage}`)
  .join('\n')}`

function usage(problem?: string): number {
  if (problem) process.stderr.write(`svc: ${problem}\n`)
  process.stderr.write(`${USAGE}\n`)
  return EXIT_USAGE
}

function httpUnit(name: string | undefined) {
  return name !== undefined && Object.hasOwn(httpUnits, name)
    ? httpUnits[name as keyof typeof httpUnits]
    : undefined
}

async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv
  const env = process.env
  switch (command) {
    case 'unit': {
      const unit = httpUnit(rest[0])
      if (!unit) return usage(rest[0] ? `unknown unit '${rest[0]}'` : 'unit name missing')
      await runUnit(unit, env)
      return undefined
    }
    case 'units': {
      const rows = unitNames.map((name) => {
        const h = httpUnit(name)
        return h ? [name, String(h.port), h.liveness, h.title] : [name, '-', '-', cliUnits[name]?.title ?? '']
      })
      const widths = [8, 6, 18]
      console.log(['unit', 'port', 'liveness', 'title'].map((c, i) => c.padEnd(widths[i] ?? 0)).join(' '))
      for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' '))
      return 0
    }
    case 'migrate': {
      const unit = httpUnit(rest[0])
      if (!unit) return usage(rest[0] ? `unknown unit '${rest[0]}'` : 'unit name missing')
      try {
        const config = readUnitConfig(unit, env)
        const db = openDatabase(
          databasePath(unit.name, config.SVC_DATA_DIR, config.DATABASE_URL),
          unit.migrations,
        )
        console.log(`${unit.name}: database ready at ${db.path}`)
        db.close()
        return 0
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        for (const line of err.problems)
          process.stderr.write(`svc ${unit.name}: bad configuration: ${line}\n`)
        return EXIT_USAGE
      }
    }
    case 'suite':
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
      return cli.run(rest, env)
    }
  }
}

const code = await main(process.argv.slice(2))
if (code !== undefined) process.exit(code)

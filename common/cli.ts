/**
 * Command-line units (TEL, MEM) and an HTTP unit's extra subcommands (`svc nds keys create`).
 *
 * A unit declares its commands once with `defineCli`; the framework parses arguments with
 * `node:util` `parseArgs` (strict: an unknown option is bad usage), reads the unit's typed
 * configuration from the environment, prints a human summary or, with `--json`, one JSON
 * document, and maps the outcome to the exit codes every command-line unit shares:
 * 0 pass, 1 a failed check, 2 bad usage or configuration.
 *
 *   export const tel = defineCli({ name: 'tel', title: '…', env: { SVC_REGISTRY_URL: … },
 *     commands: { verify: { summary: '…', options: { family: { type: 'string' } },
 *       run: async (ctx) => checksOutcome(await verify(ctx.config, ctx.options.family)) } } })
 */
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { type Static, Type as T, type TObject, type TProperties } from '@sinclair/typebox'
import { ConfigError, loadConfig } from './config.ts'

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2
export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE

type Env = Record<string, string | undefined>

/** Where a command writes; tests pass their own to capture the output. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}

/** A command-line unit (TEL, MEM) or a unit's extra subcommands (`svc nds keys …`). */
export interface CliUnit {
  kind: 'cli'
  name: string
  title: string
  usage: string
  /** Returns the exit code: 0 pass, 1 failed check, 2 bad usage or configuration. */
  run(args: string[], env: Env, io?: CliIo): Promise<number>
}

/**
 * Bad usage or configuration found while a command runs (a variable the command needs is
 * unset, an argument is malformed): one line on stderr, exit 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** What a command produced: the exit code, the human summary and the `--json` document. */
export interface Outcome {
  exit: ExitCode
  human: string
  json: unknown
}

type Options = NonNullable<ParseArgsConfig['options']>
type OptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>

export interface CommandContext<C> {
  config: C
  env: Env
  /** Option values after `parseArgs` (strict), `--json` removed. */
  options: OptionValues
  positionals: string[]
  /** The value of a configuration variable the command cannot run without, else UsageError. */
  require<K extends keyof C & string>(name: K): NonNullable<C[K]>
  io: CliIo
}

export interface Command<C> {
  summary: string
  /** Argument synopsis shown in the usage, e.g. `[--family <key>]` or `<name>`. */
  args?: string
  options?: Options
  /** How many positionals the command takes (default none). */
  positionals?: { min: number; max: number }
  run(ctx: CommandContext<C>): Promise<Outcome>
}

export interface CliDefinition<P extends TProperties> {
  name: string
  title: string
  /** The unit's environment variables (TypeBox), read and validated before any command runs. */
  env: P
  commands: Record<string, Command<Static<TObject<P>>>>
}

const GLOBAL_OPTIONS: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

function usageText(def: {
  name: string
  title: string
  commands: Record<string, { summary: string; args?: string }>
}) {
  const names = Object.keys(def.commands)
  const width = Math.max(...names.map((n) => n.length + 1))
  const lines = names.map((n) => {
    const cmd = def.commands[n]
    const synopsis = cmd?.args ? `${n} ${cmd.args}` : n
    return `  svc ${def.name} ${synopsis.padEnd(width + 16)} ${cmd?.summary ?? ''}`
  })
  return `usage: svc ${def.name} <command> [--json]   (${def.title})\n${lines.join('\n')}\n`
}

/** Longest command name (commands may be two words: `keys create`) that prefixes the arguments. */
function matchCommand(names: string[], args: string[]): { name: string; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const candidate = args.slice(0, words).join(' ')
    if (args.length >= words && names.includes(candidate)) return { name: candidate, rest: args.slice(words) }
  }
  return undefined
}

export function defineCli<P extends TProperties>(def: CliDefinition<P>): CliUnit {
  type C = Static<TObject<P>>
  const usage = usageText(def)
  return {
    kind: 'cli',
    name: def.name,
    title: def.title,
    usage: `${def.name} <command>  ${def.title} (svc ${def.name} for its commands)`,
    async run(args, env, io = processIo) {
      const bad = (message: string) => {
        io.stderr(`svc ${def.name}: ${message}\n${usage}`)
        return EXIT_USAGE
      }
      if (args.length === 0) return bad('command missing')
      if (args[0] === 'help' || args[0] === '--help' || args[0] === '-h') {
        io.stdout(usage)
        return EXIT_OK
      }
      const match = matchCommand(Object.keys(def.commands), args)
      const command = match ? def.commands[match.name] : undefined
      if (!match || !command) return bad(`unknown command '${args[0]}'`)

      let parsed: { values: OptionValues; positionals: string[] }
      try {
        parsed = parseArgs({
          args: match.rest,
          options: { ...GLOBAL_OPTIONS, ...command.options },
          allowPositionals: true,
          strict: true,
        }) as { values: OptionValues; positionals: string[] }
      } catch (err) {
        return bad((err as Error).message)
      }
      const { json, help, ...options } = parsed.values
      if (help) {
        io.stdout(
          `usage: svc ${def.name} ${match.name}${command.args ? ` ${command.args}` : ''} [--json]\n  ${command.summary}\n`,
        )
        return EXIT_OK
      }
      const { min, max } = command.positionals ?? { min: 0, max: 0 }
      if (parsed.positionals.length < min || parsed.positionals.length > max) {
        return bad(`'${match.name}' takes ${min === max ? min : `${min} to ${max}`} argument(s)`)
      }

      let config: C
      try {
        config = loadConfig(T.Object(def.env), env) as C
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        for (const line of err.problems) io.stderr(`svc ${def.name}: bad configuration: ${line}\n`)
        return EXIT_USAGE
      }
      const ctx: CommandContext<C> = {
        config,
        env,
        options,
        positionals: parsed.positionals,
        io,
        require(name) {
          const value = config[name]
          if (value === undefined || value === null)
            throw new UsageError(`${name} is not set: '${match.name}' needs it`)
          return value as NonNullable<C[typeof name]>
        },
      }
      try {
        const outcome = await command.run(ctx)
        io.stdout(json ? `${JSON.stringify(outcome.json, null, 2)}\n` : ensureNewline(outcome.human))
        return outcome.exit
      } catch (err) {
        if (err instanceof UsageError) {
          io.stderr(`svc ${def.name} ${match.name}: ${err.message}\n`)
          return EXIT_USAGE
        }
        throw err
      }
    },
  }
}

const ensureNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`)

// ----------------------------------------------------------------------------------------------
// Checks: the verdicts of verify-style commands.

/** A check that could not be made is `unknown`: never `passed`, and never `failed` either. */
export type Verdict = 'passed' | 'failed' | 'unknown'

export interface Check {
  /** Stable key, e.g. `prs.matrix.reachable`. */
  name: string
  status: Verdict
  /** Why it failed or could not be made; for a pass, what was seen. */
  reason: string
  details?: unknown
}

/** failed if any failed; else unknown if any unknown; else passed (an empty list is unknown). */
export function overall(checks: readonly Check[]): Verdict {
  if (checks.some((c) => c.status === 'failed')) return 'failed'
  if (checks.length === 0 || checks.some((c) => c.status === 'unknown')) return 'unknown'
  return 'passed'
}

/**
 * Exit code of a verdict. An unverified check does not let a pipeline go green: `unknown` exits 1
 * like `failed`, and the output says which it was.
 */
export const exitFor = (verdict: Verdict): ExitCode => (verdict === 'passed' ? EXIT_OK : EXIT_FAILED)

const MARK: Record<Verdict, string> = { passed: 'PASS   ', failed: 'FAIL   ', unknown: 'UNKNOWN' }

/** Human lines for a list of checks, then a one-line total. */
export function renderChecks(title: string, checks: readonly Check[]): string {
  const counts = { passed: 0, failed: 0, unknown: 0 }
  for (const c of checks) counts[c.status]++
  const lines = checks.map((c) => `${MARK[c.status]} ${c.name}: ${c.reason}`)
  return `${title}\n${lines.join('\n')}\n${overall(checks)}: ${counts.passed} passed, ${counts.failed} failed, ${counts.unknown} unknown\n`
}

/** The outcome of a verify-style command: human lines, `{verdict, checks, ...extra}` as JSON. */
export function checksOutcome(
  title: string,
  checks: readonly Check[],
  extra: Record<string, unknown> = {},
): Outcome {
  const verdict = overall(checks)
  return { exit: exitFor(verdict), human: renderChecks(title, checks), json: { verdict, ...extra, checks } }
}

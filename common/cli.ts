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
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { type Static, Type as T, type TObject, type TProperties } from '@sinclair/typebox'
import { ConfigError, loadConfig } from './config.ts'
import { FamilyKey } from './contract.ts'
import { sha256Hex } from './hash.ts'
import { callPeer, type PeerFailure } from './peer.ts'
import { buildCommit } from './version.ts'

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
  /** The command names, as typed after the unit name. */
  commands: string[]
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
    commands: Object.keys(def.commands),
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
        // A database the configuration names but that cannot be opened (runtime/run.ts).
        if (err instanceof ConfigError) {
          for (const line of err.problems)
            io.stderr(`svc ${def.name} ${match.name}: bad configuration: ${line}\n`)
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

// ----------------------------------------------------------------------------------------------
// Observations: what a command saw on a peer's surface, kept as data so verify, snapshot and
// drift judge the same thing.

/** One GET of a peer surface, as recorded in snapshots (never carries credentials). */
export interface Observation {
  /** The URL without credentials; null when the variable naming the peer is unset. */
  url: string | null
  ok: boolean
  status: number | null
  /** Why there is no usable answer (`common/peer.ts` failure reasons), else null. */
  failure: PeerFailure | null
  message: string | null
  body: unknown
}

/** A URL with any `user:password@` removed, for output and snapshots. */
export function displayUrl(url: string | undefined): string | null {
  if (!url) return null
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    return u.toString()
  } catch {
    return '<invalid URL>'
  }
}

/** GET a surface through `callPeer` and keep the answer (or why there was none) as data. */
export async function observe(
  url: string | undefined,
  options: { timeoutMs: number; headers?: Record<string, string>; acceptStatus?: number[] },
): Promise<Observation> {
  const res = await callPeer({
    url,
    timeoutMs: options.timeoutMs,
    headers: options.headers,
    acceptStatus: options.acceptStatus,
  })
  const shown = displayUrl(url)
  if (res.ok)
    return { url: shown, ok: true, status: res.status, failure: null, message: null, body: res.body }
  return {
    url: shown,
    ok: false,
    status: res.status ?? null,
    failure: res.reason,
    message: res.message,
    body: res.body ?? null,
  }
}

/**
 * The verdict of a check whose surface gave no usable answer. Not configured, unreachable, a
 * timeout or a 5xx mean the check could not be made: unknown. A 4xx (the route is missing or
 * refuses) or a body that breaks the contract is an answer, and a wrong one: failed.
 */
export function noAnswerVerdict(o: Observation): Verdict {
  if (o.failure === 'bad_body') return 'failed'
  if (o.failure === 'bad_status' && o.status !== null && o.status < 500) return 'failed'
  return 'unknown'
}

/** Why an observation has no usable answer, in one line. */
export const noAnswerReason = (o: Observation, what: string): string =>
  o.failure === 'not_configured' ? `${what}: not configured` : `${what}: ${o.message ?? o.failure}`

// ----------------------------------------------------------------------------------------------
// Artifacts under dist/ (CONTRACTS.md §5): package metadata, snapshots, bundles.

/** Create the artifact directory when missing; returns its absolute path. */
export function artifactDir(dir: string): string {
  const abs = resolve(dir)
  mkdirSync(abs, { recursive: true })
  return abs
}

/** Write one JSON artifact (pretty, newline-terminated); returns the path written. */
export function writeJsonArtifact(dir: string, name: string, value: unknown): string {
  const path = join(artifactDir(dir), name)
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
  return path
}

/** A file-name-safe UTC timestamp: `20261122T045048123Z`. */
export const artifactStamp = (iso: string): string => iso.replace(/[-:.]/g, '')

/** The newest file in `dir` whose name starts with `prefix` and ends with `.json`, or undefined. */
export function newestArtifact(dir: string, prefix: string): string | undefined {
  if (!existsSync(dir)) return undefined
  const names = readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && n.endsWith('.json'))
    .sort()
  const last = names.at(-1)
  return last ? join(dir, last) : undefined
}

/** Read a JSON artifact an operator named; a missing or malformed file is bad usage (exit 2). */
export function readJsonArtifact(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new UsageError(`cannot read ${path}`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new UsageError(`${path} is not JSON`)
  }
}

// ----------------------------------------------------------------------------------------------
// Version truth of command-line units: a tag v0.x.y on the commit, else 0.0.0+<shortsha>.

export interface VersionTruth {
  version: string
  source: 'tag' | 'commit' | 'unknown'
  tag: string | null
  commit: string
}

const RELEASE_TAG = /^v(0\.\d+\.\d+)$/
const SHORT_SHA = 7

/** Pure: the version a commit and the tags on it give. The highest v0.x.y tag wins. */
export function versionFrom(commit: string, tags: readonly string[]): VersionTruth {
  const releases = tags
    .map((t) => RELEASE_TAG.exec(t.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ tag: m[0], parts: (m[1] ?? '').split('.').map(Number) }))
    .sort((a, b) => (b.parts[1] ?? 0) - (a.parts[1] ?? 0) || (b.parts[2] ?? 0) - (a.parts[2] ?? 0))
  const best = releases[0]
  if (best) return { version: best.tag.slice(1), source: 'tag', tag: best.tag, commit }
  if (!/^[0-9a-f]{7,40}$/.test(commit))
    return { version: '0.0.0+unknown', source: 'unknown', tag: null, commit }
  return { version: `0.0.0+${commit.slice(0, SHORT_SHA)}`, source: 'commit', tag: null, commit }
}

const git = (cwd: string, args: string[]): string | undefined => {
  try {
    const run = Bun.spawnSync(['git', ...args], { cwd, stdout: 'pipe', stderr: 'ignore' })
    return run.exitCode === 0 ? run.stdout.toString().trim() : undefined
  } catch {
    return undefined
  }
}

/**
 * The version of this build: the commit baked into the executable (or HEAD of the checkout in
 * `cwd`), and the v0.x.y tags git knows on it. Without git, the derived 0.0.0+<shortsha>.
 */
export function versionTruth(cwd = process.cwd()): VersionTruth {
  const baked = buildCommit()
  const commit = baked !== 'unknown' ? baked : (git(cwd, ['rev-parse', 'HEAD']) ?? 'unknown')
  const tags = commit === 'unknown' ? [] : (git(cwd, ['tag', '--points-at', commit])?.split('\n') ?? [])
  return versionFrom(commit, tags)
}

// ----------------------------------------------------------------------------------------------
// Drift: the differences between two JSON documents, by path.

export interface Difference {
  path: string
  expected: unknown
  observed: unknown
}

const isPrimitive = (v: unknown) => v === null || typeof v !== 'object'

/**
 * Every leaf where `observed` differs from `expected`: objects by key, arrays of plain values as
 * sets (one difference per value only one side has, the other side null), other arrays by index.
 * A side that lacks the value is null.
 */
export function differences(expected: unknown, observed: unknown, path = ''): Difference[] {
  const at = path || '/'
  if (Array.isArray(expected) && Array.isArray(observed) && [...expected, ...observed].every(isPrimitive)) {
    return [
      ...expected
        .filter((v) => !observed.includes(v))
        .map((v) => ({ path: at, expected: v, observed: null })),
      ...observed
        .filter((v) => !expected.includes(v))
        .map((v) => ({ path: at, expected: null, observed: v })),
    ]
  }
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
  if (isObj(expected) && isObj(observed) && Array.isArray(expected) === Array.isArray(observed)) {
    const keys = Array.isArray(expected)
      ? Array.from({ length: Math.max(expected.length, (observed as unknown as unknown[]).length) }, (_, i) =>
          String(i),
        )
      : [...new Set([...Object.keys(expected), ...Object.keys(observed)])].sort()
    return keys.flatMap((k) =>
      differences(
        (expected as Record<string, unknown>)[k],
        (observed as Record<string, unknown>)[k],
        `${path}/${k}`,
      ),
    )
  }
  return Object.is(expected, observed)
    ? []
    : [{ path: at, expected: expected ?? null, observed: observed ?? null }]
}

// ----------------------------------------------------------------------------------------------
// Secrets in output and bundles.

/** Variable names whose values are secrets. */
export const SECRET_VARIABLE = /SECRET|TOKEN|KEY|PASSWORD|AUTH/i
export const REDACTED = '[redacted]'

/** The environment as an operator may share it: secret values and URL credentials replaced. */
export function redactedEnv(env: Env, names: readonly string[]): Record<string, string | null> {
  return Object.fromEntries(
    names.map((n) => {
      const v = env[n]
      if (v === undefined || v === '') return [n, null]
      if (SECRET_VARIABLE.test(n)) return [n, REDACTED]
      return [n, /^https?:\/\//.test(v) ? (displayUrl(v) ?? v) : v]
    }),
  )
}

/** Every occurrence of each secret value (4+ characters) in `text`, replaced. */
export function redactValues(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length)
    .reduce((out, s) => out.split(s).join(REDACTED), text)
}

// ----------------------------------------------------------------------------------------------
// JSON output schemas shared by command-line units (tests check every `--json` document).

export const VerdictSchema = T.Union([T.Literal('passed'), T.Literal('failed'), T.Literal('unknown')])
export const CheckSchema = T.Object({
  name: T.String(),
  status: VerdictSchema,
  reason: T.String(),
  details: T.Optional(T.Unknown()),
})
/** `{verdict, ...extra, checks}`, the document `checksOutcome` prints with `--json`. */
export const ChecksDocument = <P extends TProperties>(extra: P) =>
  T.Object({ verdict: VerdictSchema, ...extra, checks: T.Array(CheckSchema) })

export const VersionTruthSchema = T.Object({
  version: T.String(),
  source: T.Union([T.Literal('tag'), T.Literal('commit'), T.Literal('unknown')]),
  tag: T.Union([T.String(), T.Null()]),
  commit: T.String(),
})
export const ObservationSchema = T.Object({
  url: T.Union([T.String(), T.Null()]),
  ok: T.Boolean(),
  status: T.Union([T.Integer(), T.Null()]),
  failure: T.Union([
    T.Literal('not_configured'),
    T.Literal('timeout'),
    T.Literal('unreachable'),
    T.Literal('bad_status'),
    T.Literal('bad_body'),
    T.Null(),
  ]),
  message: T.Union([T.String(), T.Null()]),
  body: T.Unknown(),
})
export const DifferenceSchema = T.Object({ path: T.String(), expected: T.Unknown(), observed: T.Unknown() })

/** `dist/package-metadata.json` of a command-line unit. */
export const PackageMetadataSchema = T.Object({
  name: T.String(),
  version: T.String(),
  unit: T.String(),
  version_truth: VersionTruthSchema,
  contract_version: T.String(),
  generated_at: T.String({ format: 'date-time' }),
  files: T.Array(T.Object({ path: T.String(), sha256: T.String() })),
  path: T.String({ description: 'where the file was written' }),
})
export type PackageMetadata = Static<typeof PackageMetadataSchema>

export const PACKAGE_METADATA_FILE = 'package-metadata.json'

/**
 * `svc <unit> metadata`: write `<dir>/package-metadata.json` (name, version truth, the shipped
 * contract version, a SHA-256 of every repository file the unit owns) and report it.
 */
export function packageMetadataOutcome(
  dir: string,
  input: { unit: string; name: string; contract_version: string; files: { path: string; text: string }[] },
): Outcome {
  const truth = versionTruth()
  const path = join(artifactDir(dir), PACKAGE_METADATA_FILE)
  const doc: PackageMetadata = {
    name: input.name,
    version: truth.version,
    unit: input.unit,
    version_truth: truth,
    contract_version: input.contract_version,
    generated_at: new Date().toISOString(),
    files: input.files.map((f) => ({ path: f.path, sha256: sha256Hex(f.text) })),
    path,
  }
  writeJsonArtifact(dir, PACKAGE_METADATA_FILE, doc)
  return {
    exit: EXIT_OK,
    human: `wrote ${path}\n${input.name} ${truth.version} (${truth.source === 'tag' ? `tag ${truth.tag}` : `commit ${truth.commit}`})\n`,
    json: doc,
  }
}

/** One comparable fact of a drift check: its value, or why it could not be read. */
export type Fact = { value: unknown } | { unknown: string }

/**
 * One check per fact `expected` holds: passed when `observed` has the same value, failed with
 * the differences, unknown when either side could not be read.
 */
export function driftChecks(
  expected: Record<string, Fact>,
  observed: Record<string, Fact>,
): { checks: Check[]; differences: (Difference & { check: string })[] } {
  const checks: Check[] = []
  const all: (Difference & { check: string })[] = []
  for (const [key, want] of Object.entries(expected)) {
    const name = `drift.${key}`
    const got = observed[key] ?? { unknown: 'not recorded' }
    if ('unknown' in want || 'unknown' in got) {
      const why = 'unknown' in want ? want.unknown : (got as { unknown: string }).unknown
      checks.push({ name, status: 'unknown', reason: why })
      continue
    }
    const diffs = differences(want.value, got.value)
    all.push(...diffs.map((d) => ({ check: name, ...d })))
    checks.push(
      diffs.length === 0
        ? { name, status: 'passed', reason: 'no drift' }
        : {
            name,
            status: 'failed',
            reason: `${diffs.length} difference(s): ${diffs
              .slice(0, 3)
              .map((d) => `${d.path} ${JSON.stringify(d.expected)} -> ${JSON.stringify(d.observed)}`)
              .join('; ')}`,
            details: diffs,
          },
    )
  }
  return { checks, differences: all }
}

/**
 * The manifest file a command-line unit ships (`units/<unit>/manifest.json`): what it is, its
 * commands and files, the families it produces and consumes, where its version comes from.
 */
export const cliManifestFile = <const U extends string>(unit: U, title: string) => {
  const S = T.String({ minLength: 1 })
  return T.Object(
    {
      $schema: T.Optional(T.String()),
      manifest_schema: T.Literal(`svc.${unit}-manifest/1`),
      unit: T.Literal(unit),
      tool_key: S,
      title: S,
      kind: T.Literal('cli'),
      contract_file: S,
      contract_version: S,
      network_api: T.Literal(false),
      commands: T.Array(S),
      files: T.Object({ stack: S, features: S, package_metadata: S }, { additionalProperties: false }),
      docs_entrypoint: S,
      producer_families: T.Array(FamilyKey),
      consumer_families: T.Array(FamilyKey),
      version_source: S,
    },
    { additionalProperties: false, $id: `svc.${unit}-manifest/1`, title },
  )
}

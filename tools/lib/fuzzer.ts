/**
 * The fuzz runner: for every operation of a unit's OpenAPI document, a fast-check property over
 * valid requests and one over mutated ones, then one over unknown routes; the liveness route
 * must answer 200 after each operation.
 */
import { join } from 'node:path'
import fc from 'fast-check'
import { type Operation, operations } from './openapi.ts'
import { type CheckContext, checkResponse, knownIssue } from './properties.ts'
import {
  type Credentials,
  describeRequest,
  type FuzzRequest,
  mutatedRequest,
  type OperationContext,
  toRequest,
  unknownRouteRequest,
  validRequest,
} from './requests.ts'
import type { SchemaRoot } from './schema.ts'

/** Anything the fuzzer can send requests to: a booted unit, or a fake app in the tests. */
export interface FuzzTarget {
  unit: string
  liveness: string
  openapiPath: string
  maxBodyBytes: number
  credentials: Credentials
  /** Strings that must never appear in a body (repository root, data directory). */
  internalPaths: string[]
  handle(req: Request): Promise<Response>
  close(): Promise<void>
}

export type Mode = 'valid' | 'mutated' | 'unknown'

export interface FuzzOptions {
  runs: number
  seed: number
  /** Only these operation keys (`POST /api/contact`); all when empty. */
  only?: string[]
  /** Only this mode. */
  mode?: Mode
  /** Replay a fast-check counterexample path (with `only` and `mode`). */
  replay?: string
  /** With `only`: first run the operations a full run runs before them, quietly (same state). */
  rebuild?: boolean
  /** Progress lines; silent when absent. */
  log?: (line: string) => void
  /** Per request. */
  timeoutMs?: number
}

export interface FuzzFailure {
  unit: string
  operation: string
  mode: Mode
  /** The run's seed, and the seed of this operation and mode derived from it. */
  seed: number
  opSeed: number
  path: string
  request: string
  problems: string[]
  reproduce: string
}

export interface OperationStats {
  operation: string
  mode: Mode
  runs: number
  statuses: Record<number, number>
}

export interface FuzzReport {
  unit: string
  seed: number
  operations: number
  requests: number
  stats: OperationStats[]
  failures: FuzzFailure[]
  /** Observations that are not failures (an operation that never accepted a valid request …). */
  notes: string[]
  /** Known issues (properties.ts) seen in this run: id → times. */
  known: Record<string, number>
}

/** An answer slower than this is noted (not failed): a cheap request that costs seconds is a DoS. */
export const SLOW_MS = 1_000

export const REPO_ROOT = join(import.meta.dir, '..', '..')

/** FNV-1a: per operation and mode, a seed independent of which other operations run. */
export function deriveSeed(seed: number, key: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0)
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h | 0
}

class Violation extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '))
    this.name = 'Violation'
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Violation([`no answer within ${ms} ms (${what})`])), ms)
  })
  try {
    return await Promise.race([p, timeout])
  } finally {
    clearTimeout(timer)
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export async function fuzzTarget(target: FuzzTarget, opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log ?? (() => {})
  const timeoutMs = opts.timeoutMs ?? 15_000
  const report: FuzzReport = {
    unit: target.unit,
    seed: opts.seed,
    operations: 0,
    requests: 0,
    stats: [],
    failures: [],
    notes: [],
    known: {},
  }

  const docRes = await target.handle(new Request(`http://localhost${target.openapiPath}`))
  if (docRes.status !== 200) {
    report.failures.push({
      unit: target.unit,
      operation: `GET ${target.openapiPath}`,
      mode: 'valid',
      seed: opts.seed,
      opSeed: opts.seed,
      path: '',
      request: `GET ${target.openapiPath}`,
      problems: [`the OpenAPI document answered ${docRes.status}`],
      reproduce: '',
    })
    return report
  }
  const doc = (await docRes.json()) as SchemaRoot & { paths?: Record<string, Record<string, unknown>> }
  const all = operations(doc)
  // Routes without path parameters first (lists, creates): their answers feed `seen`.
  const byKey = (op: Operation) => (op.parameters.some((p) => p.in === 'path') ? 1 : 0)
  const ordered = all
    .map((op, i) => ({ op, i }))
    .sort((a, b) => byKey(a.op) - byKey(b.op) || a.i - b.i)
    .map(({ op }) => op)
  const only = new Set(opts.only ?? [])
  const isSelected = (op: Operation) => only.size === 0 || only.has(op.key)
  // With --rebuild, the operations that ran before the selected ones in the full run run again
  // quietly (same seeds, no checks), so the unit's state and the seen values are
  // what they were and the replayed request is the one that failed.
  const rebuild = only.size > 0 && opts.rebuild === true
  // A failure found in a full (or rebuilt) run is reproduced with the same prefix.
  const again = `bun tools/fuzz.ts ${target.unit} --seed ${opts.seed} --runs ${opts.runs}${only.size === 0 || rebuild ? ' --rebuild' : ''}`
  const last = ordered.reduce((n, op, i) => (isSelected(op) ? i : n), -1)
  const seen = new Map<string, string[]>()
  report.operations = ordered.filter(isSelected).length

  const send = async (check: CheckContext, req: FuzzRequest, stats: OperationStats, quiet: boolean) => {
    let request: Request
    try {
      request = toRequest(req, undefined, target.credentials.sign)
    } catch (err) {
      // The generator made something no HTTP client can send: skip, and say so once.
      const note = `unsendable request skipped (${req.kind}): ${(err as Error).message}`
      if (!report.notes.includes(note)) report.notes.push(note)
      return
    }
    report.requests++
    const started = performance.now()
    const res = await withTimeout(target.handle(request), timeoutMs, `${req.method} ${req.path}`)
    const text = await res.text()
    const ms = performance.now() - started
    if (ms > SLOW_MS) {
      const note = `slow answer: ${req.method} ${req.path.slice(0, 60)} [${req.kind}] took ${Math.round(ms)} ms (${res.status})`
      if (!report.notes.some((n) => n.startsWith(note.slice(0, note.indexOf(' took ')))))
        report.notes.push(note)
    }
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1
    // A mutation may have moved the request to another route (`/a/%2e%2e` is `/`): judge the
    // answer by the operation the URL really names, or as an unknown route.
    const op = routeOf(new URL(request.url).pathname, req.method)
    if (res.status >= 200 && res.status < 300) harvest(text, seen)
    if (quiet) return
    const problems = checkResponse({ ...check, op }, req, res.status, res, text).filter((p) => {
      const known = knownIssue(target.unit, req, p)
      if (known) report.known[known.id] = (report.known[known.id] ?? 0) + 1
      return !known
    })
    if (problems.length > 0) throw new Violation(problems)
  }

  const liveness = async (): Promise<string | undefined> => {
    try {
      const res = await withTimeout(
        target.handle(new Request(`http://localhost${target.liveness}`)),
        timeoutMs,
        'liveness',
      )
      return res.status === 200 ? undefined : `liveness ${target.liveness} answered ${res.status}`
    } catch (err) {
      return `liveness ${target.liveness} failed: ${(err as Error).message}`
    }
  }

  const run = async (
    name: string,
    mode: Mode,
    arb: fc.Arbitrary<FuzzRequest>,
    check: CheckContext,
    runs: number,
    quiet = false,
  ) => {
    if (opts.mode && opts.mode !== mode && !quiet) return
    const opSeed = deriveSeed(opts.seed, `${name}|${mode}`)
    const stats: OperationStats = { operation: name, mode, runs, statuses: {} }
    if (!quiet) report.stats.push(stats)
    const result = await fc.check(
      fc.asyncProperty(arb, (req) => send(check, req, stats, quiet)),
      { seed: opSeed, numRuns: runs, ...(opts.replay && !quiet ? { path: opts.replay } : {}) },
    )
    if (result.failed && !quiet) {
      const req = result.counterexample?.[0]
      const err = result.errorInstance
      const problems = err instanceof Violation ? err.problems : [`harness error: ${String(err)}`]
      const path = result.counterexamplePath ?? ''
      report.failures.push({
        unit: target.unit,
        operation: name,
        mode,
        seed: opts.seed,
        opSeed,
        path,
        request: req ? describeRequest(req) : '(none)',
        problems,
        reproduce: `${again} --op ${shellQuote(name)} --mode ${mode} --replay ${shellQuote(path)}`,
      })
    }
  }

  const routeOf = operationResolver(all)

  const methodsByPath = new Map<string, string[]>()
  for (const op of all) methodsByPath.set(op.path, [...(methodsByPath.get(op.path) ?? []), op.method])

  for (const [index, op] of ordered.entries()) {
    if (index > last) break
    const quiet = !isSelected(op)
    if (quiet && !rebuild) continue
    const ctx: OperationContext = {
      doc,
      op,
      credentials: target.credentials,
      maxBodyBytes: target.maxBodyBytes,
      pathMethods: methodsByPath.get(op.path) ?? [],
      seen: new Map([...seen].map(([k, v]) => [k, [...v]])),
    }
    const check: CheckContext = { unit: target.unit, doc, op, internalPaths: target.internalPaths }
    // A route with nothing to vary needs few valid runs; the mutations still get the full budget.
    const trivial = op.parameters.length === 0 && op.body === undefined
    await run(op.key, 'valid', validRequest(ctx), check, trivial ? Math.min(opts.runs, 3) : opts.runs, quiet)
    await run(op.key, 'mutated', mutatedRequest(ctx), check, opts.runs, quiet)
    if (quiet) continue
    const down = await liveness()
    if (down) {
      report.failures.push({
        unit: target.unit,
        operation: op.key,
        mode: 'mutated',
        seed: opts.seed,
        opSeed: deriveSeed(opts.seed, `${op.key}|mutated`),
        path: '',
        request: `GET ${target.liveness}`,
        problems: [`${down} after fuzzing ${op.key}`],
        reproduce: `${again} --op ${shellQuote(op.key)}`,
      })
    }
    noteCoverage(report, op)
    log(statsLine(report, op.key))
  }
  if (only.size === 0) {
    const known = all.map((op) => `${op.method} ${op.path}`)
    const check: CheckContext = { unit: target.unit, doc, op: undefined, internalPaths: target.internalPaths }
    await run('unknown routes', 'unknown', unknownRouteRequest(known), check, opts.runs)
    log(statsLine(report, 'unknown routes'))
  }
  const down = await liveness()
  if (down) report.notes.push(`${down} at the end of the run`)
  return report
}

const SEEN_PER_KEY = 25
const SEEN_MAX_LENGTH = 200

/** Remember the scalar values of a 2xx JSON answer by property name (bounded). */
function harvest(text: string, seen: Map<string, string[]>) {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return
  }
  const walk = (v: unknown, key: string | undefined, depth: number) => {
    if (depth > 8 || v === null) return
    if (Array.isArray(v)) for (const item of v) walk(item, key, depth + 1)
    else if (typeof v === 'object') for (const [k, inner] of Object.entries(v)) walk(inner, k, depth + 1)
    else if (key !== undefined && (typeof v === 'string' || typeof v === 'number')) {
      const s = String(v)
      if (s === '' || s.length > SEEN_MAX_LENGTH) return
      const list = seen.get(key) ?? []
      if (list.length < SEEN_PER_KEY && !list.includes(s)) seen.set(key, [...list, s])
    }
  }
  walk(value, undefined, 0)
}

function templateRegex(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${parts.join('[^/]+')}$`)
}

function noteCoverage(report: FuzzReport, op: Operation) {
  const valid = report.stats.find((s) => s.operation === op.key && s.mode === 'valid')
  if (!valid || !(op.body || op.parameters.length > 0)) return
  const ok = Object.entries(valid.statuses).some(([s, n]) => Number(s) < 300 && n > 0)
  if (!ok) {
    report.notes.push(
      `${op.key}: no generated valid request was accepted (${formatStatuses(valid.statuses)}); deeper code was not reached`,
    )
  }
}

export function formatStatuses(statuses: Record<number, number>): string {
  const parts = Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}×${n}`)
  return parts.length ? parts.join(' ') : 'none'
}

function statsLine(report: FuzzReport, key: string): string {
  const rows = report.stats.filter((s) => s.operation === key)
  const failed = report.failures.some((f) => f.operation === key)
  return `  ${failed ? 'FAIL' : 'ok  '} ${key.padEnd(48)} ${rows.map((r) => `${r.mode} ${formatStatuses(r.statuses)}`).join(' | ')}`
}

export function formatFailure(f: FuzzFailure): string {
  return [
    `FAIL ${f.unit} ${f.operation} (${f.mode})`,
    ...f.problems.map((p) => `  - ${p}`),
    `  seed ${f.seed} (operation seed ${f.opSeed}), counterexample path ${JSON.stringify(f.path)}`,
    '  shrunk request:',
    ...f.request.split('\n').map((l) => `    ${l}`),
    `  reproduce: ${f.reproduce}`,
  ].join('\n')
}

/**
 * The operation a request path reaches, as Elysia routes (not strictPath): one trailing slash
 * reaches the same route, so a path that normalizes to it (`/x/.` is `/x/`) is checked against
 * that route's declared answers.
 */
export function operationResolver(ops: readonly Operation[]) {
  const templates = ops.map((op) => ({ op, re: templateRegex(op.path) }))
  return (pathname: string, method: string): Operation | undefined => {
    const path = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname
    return templates.find((t) => t.op.method === method && t.re.test(path))?.op
  }
}

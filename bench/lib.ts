/**
 * Benchmark building blocks: start a unit (or the compiled executable) and a bare `Bun.serve`
 * baseline as separate processes on 127.0.0.1, drive both with the same load generator for a
 * bounded time, and report requests/s, p50/p99 latency, RSS after load and the ratio.
 *
 * Load generator: wrk (Debian package `wrk`) when installed, else `bench/load.ts` (Bun fetch,
 * keep-alive) in its own process. The report names the one used.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntilUp } from '../common/peer.ts'
import { freePort, tempDir } from '../test/harness.ts'

export const ROOT = join(import.meta.dir, '..')

export interface Target {
  label: string
  url: string
  pid: number
  stop(): Promise<void>
}

export interface LoadSpec {
  method?: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  body?: string
  /**
   * A body whose `{n}` placeholders wrk replaces per request with a value unique in the run
   * (`<thread>-<counter>`), so each request is a new write. The Bun fallback sends `body`.
   */
  uniqueBody?: string
}

export interface Result {
  label: string
  scenario: string
  requests: number
  rps: number
  p50_ms: number
  p99_ms: number
  non2xx: number
  rss_mb: number
  /** Server CPU time (user + system) per request, in microseconds. */
  cpu_us: number
}

export interface LoadOptions {
  seconds: number
  connections: number
}

export const DEFAULT_LOAD: LoadOptions = {
  seconds: Number(process.env.BENCH_SECONDS ?? 8),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
}

/** Rounds of `compare`: baseline and unit alternate, so a noisy moment hits both. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/**
 * CPU time (user + system) a process has used, in microseconds. Per request it is much less
 * sensitive than requests/s to what else the 2 shared cores are doing.
 */
export function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const ticks = Number(fields[11]) + Number(fields[12])
    return (ticks / 100) * 1e6
  } catch {
    return Number.NaN
  }
}

/** Until `url` answers below 500; else stop `proc` and throw. */
export async function waitUntilUp(
  url: string,
  proc: ReturnType<typeof Bun.spawn>,
  label: string,
  deadlineMs = 15_000,
): Promise<void> {
  try {
    await pollUntilUp(url, {
      deadlineMs,
      everyMs: 20,
      accept: (status) => status < 500,
      failed: () => (proc.exitCode === null ? undefined : `exit ${proc.exitCode}`),
    })
  } catch (err) {
    proc.kill()
    throw new Error(`${label} did not start: ${(err as Error).message}`)
  }
}

function spawnTarget(
  label: string,
  command: string[],
  env: Record<string, string | undefined>,
  probe: string,
) {
  const port = freePort()
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: { ...process.env, SVC_ENV: 'production', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  return {
    proc,
    target: {
      label,
      url,
      pid: proc.pid,
      async stop() {
        proc.kill('SIGTERM')
        await proc.exited
      },
    } satisfies Target,
    ready: waitUntilUp(url + probe, proc, label),
  }
}

/** A unit as an operator runs it (production posture, logs on, stdout discarded). */
export async function startUnit(
  name: string,
  probe: string,
  env: Record<string, string | undefined>,
  command: string[] = [process.execPath, 'bin/svc.ts', 'unit', name],
): Promise<Target> {
  const { target, ready } = spawnTarget(
    name,
    command,
    { SVC_DATA_DIR: tempDir(`bench-${name}-`), ...env },
    probe,
  )
  await ready
  return target
}

/** A bare `Bun.serve` baseline from bench/baselines/<name>.ts. */
export async function startBaseline(
  name: string,
  probe: string,
  env: Record<string, string> = {},
): Promise<Target> {
  const { target, ready } = spawnTarget(
    `baseline:${name}`,
    [process.execPath, join('bench', 'baselines', `${name}.ts`)],
    { BASELINE_DATA_DIR: tempDir('bench-baseline-'), ...env },
    probe,
  )
  await ready
  return target
}

export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
    return Math.round((kb / 1024) * 10) / 10
  } catch {
    return Number.NaN
  }
}

const hasWrk = Bun.which('wrk') !== null
export const generator = hasWrk ? 'wrk 4.1 (Debian)' : 'bench/load.ts (Bun fetch)'

function wrkScript(spec: LoadSpec): string {
  const lines = [`wrk.method = "${spec.method ?? 'GET'}"`]
  for (const [k, v] of Object.entries(spec.headers ?? {}))
    lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
  if (spec.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(spec.body)}`)
  if (spec.uniqueBody !== undefined) {
    lines.push(`local template = ${JSON.stringify(spec.uniqueBody)}
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local counter = 0
function request()
  counter = counter + 1
  local n = tid .. "-" .. counter
  return wrk.format(nil, nil, nil, (string.gsub(template, "{n}", n)))
end`)
  }
  lines.push(`
done = function(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %d %f %f %f %d\\n", summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end`)
  return lines.join('\n')
}

function parseWrk(out: string) {
  const m = /RESULT (\d+) ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(out)
  if (!m) throw new Error(`wrk output not understood:\n${out}`)
  const [, requests, seconds, p50, p99, errors] = m.map(Number) as number[]
  return { requests: requests ?? 0, seconds: seconds ?? 1, p50: p50 ?? 0, p99: p99 ?? 0, errors: errors ?? 0 }
}

/** Drive one target with one scenario; the generator runs in its own process. */
export async function drive(
  target: Target,
  scenario: string,
  spec: LoadSpec,
  load = DEFAULT_LOAD,
): Promise<Result> {
  let r: { requests: number; seconds: number; p50: number; p99: number; errors: number }
  const cpuBefore = cpuMicros(target.pid)
  if (hasWrk) {
    const script = join(tmpdir(), `wrk-${process.pid}-${Date.now()}.lua`)
    writeFileSync(script, wrkScript(spec))
    const threads = Math.min(2, load.connections)
    const proc = Bun.spawn(
      [
        'wrk',
        `-t${threads}`,
        `-c${load.connections}`,
        `-d${load.seconds}s`,
        '-s',
        script,
        target.url + spec.path,
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    r = parseWrk(await new Response(proc.stdout).text())
    await proc.exited
  } else {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'bench', 'load.ts')], {
      env: { ...process.env, LOAD: JSON.stringify({ url: target.url, spec, ...load }) },
      stdout: 'pipe',
    })
    r = JSON.parse(await new Response(proc.stdout).text())
    await proc.exited
  }
  return {
    label: target.label,
    scenario,
    requests: r.requests,
    rps: Math.round(r.requests / r.seconds),
    p50_ms: Math.round(r.p50 * 100) / 100,
    p99_ms: Math.round(r.p99 * 100) / 100,
    non2xx: r.errors,
    rss_mb: rssMb(target.pid),
    cpu_us: Math.round((cpuMicros(target.pid) - cpuBefore) / Math.max(1, r.requests)),
  }
}

export const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/**
 * Drive a baseline and a unit with the same scenario, alternating for `rounds` rounds, and
 * return each side's median round (by requests/s) with the median of the per-round ratios.
 */
export interface ComparedResult extends Result {
  /** Requests/s of every round. */
  rounds?: number[]
  /** Median of the per-round ratios to the baseline. */
  ratio?: number
}

export async function compare(
  base: Target,
  unit: Target,
  scenario: string,
  spec: LoadSpec,
  rounds = ROUNDS,
): Promise<ComparedResult[]> {
  const b: Result[] = []
  const u: Result[] = []
  for (let i = 0; i < rounds; i++) {
    b.push(await drive(base, scenario, spec))
    u.push(await drive(unit, scenario, spec))
  }
  return summarize(b, u)
}

/**
 * Alternating rounds of a baseline and a unit, as the report shows them: each side's median
 * round (by requests/s, CPU per request the median of the rounds), and the unit's median ratio.
 */
export function summarize<R extends Result>(base: R[], unit: R[]): [R & ComparedResult, R & ComparedResult] {
  const pick = (rs: R[]) => {
    const m = median(rs.map((r) => r.rps))
    const row = rs.find((r) => r.rps === m) ?? (rs[0] as R)
    return { ...row, cpu_us: median(rs.map((r) => r.cpu_us)), rounds: rs.map((r) => r.rps) }
  }
  const ratio = median(unit.map((r, i) => r.rps / (base[i]?.rps ?? Number.NaN)))
  return [pick(base), { ...pick(unit), ratio }]
}

/** A result from the latencies of a bench's own client loop (for scenarios wrk cannot drive). */
export function resultOf(
  target: Target,
  scenario: string,
  run: { latencies: number[]; seconds: number; non2xx: number; cpuBefore: number },
): Result {
  const latencies = [...run.latencies].sort((a, b) => a - b)
  const pct = (q: number) =>
    Math.round((latencies[Math.floor(latencies.length * q)] ?? Number.NaN) * 100) / 100
  return {
    label: target.label,
    scenario,
    requests: latencies.length,
    rps: Math.round(latencies.length / run.seconds),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    non2xx: run.non2xx,
    rss_mb: rssMb(target.pid),
    cpu_us: Math.round((cpuMicros(target.pid) - run.cpuBefore) / Math.max(1, latencies.length)),
  }
}

/** Markdown table rows, each unit row followed by its ratio to the baseline of the same scenario. */
export function report(title: string, rows: Result[], notes: string[] = []): string {
  const lines = [
    `### ${title}`,
    '',
    `Generator: ${generator}; ${DEFAULT_LOAD.connections} connections, ${DEFAULT_LOAD.seconds} s per run; 127.0.0.1; ${new Date().toISOString()}.`,
    '',
    '| scenario | target | requests/s | p50 ms | p99 ms | non-2xx | RSS after MB | CPU µs/req | ratio to baseline (req/s) | CPU ratio |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows as ComparedResult[]) {
    const base = rows.find((b) => b.scenario === row.scenario && b.label.startsWith('baseline'))
    const isUnit = base !== undefined && !row.label.startsWith('baseline')
    const ratio = isUnit ? (row.ratio ?? row.rps / base.rps).toFixed(2) : '–'
    const cpuRatio = isUnit ? (row.cpu_us / base.cpu_us).toFixed(2) : '–'
    const rps =
      row.rounds && row.rounds.length > 1 ? `${row.rps} (${row.rounds.join(', ')})` : String(row.rps)
    lines.push(
      `| ${row.scenario} | ${row.label} | ${rps} | ${row.p50_ms} | ${row.p99_ms} | ${row.non2xx} | ${row.rss_mb} | ${row.cpu_us} | ${ratio} | ${cpuRatio} |`,
    )
  }
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`))
  return lines.join('\n')
}

/**
 * CPU time the main thread of a process has run, in milliseconds, from the scheduler's nanosecond
 * counter. Start-up runs on that thread; unlike wall time, it barely moves with what else the
 * shared cores do (the JIT and GC threads beside it are left out for the same reason).
 */
export function mainThreadCpuMs(pid: number): number {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0])
    return Math.round(ns / 1e5) / 10
  } catch {
    return Number.NaN
  }
}

/** A process started by `timedStart`, answering 200 on its probe (or not, within the deadline). */
export interface TimedStart {
  /** Milliseconds from spawn to the first 200 on the probe; NaN when it never answered 200. */
  ms: number
  /** CPU milliseconds its main thread had run when it answered that 200 (`mainThreadCpuMs`). */
  cpuMs: number
  pid: number
  stop(): Promise<void>
}

const COLD_START_DEADLINE_MS = 10_000

/**
 * Spawn `command` from a scratch folder on a free port (SVC_ENV test and a fresh SVC_DATA_DIR
 * unless `env` names one) and time it to the first 200 on `probe`; the caller stops it.
 */
export async function timedStart(
  command: string[],
  probe: string,
  env: Record<string, string> = {},
): Promise<TimedStart> {
  const port = freePort()
  const started = performance.now()
  const proc = Bun.spawn(command, {
    cwd: tmpdir(),
    env: {
      ...process.env,
      SVC_ENV: 'test',
      SVC_DATA_DIR: tempDir('bench-cold-'),
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  let elapsed = Number.NaN
  let cpuMs = Number.NaN
  const deadline = started + COLD_START_DEADLINE_MS
  while (performance.now() < deadline && proc.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${probe}`)
      if (res.status === 200) {
        elapsed = performance.now() - started
        cpuMs = mainThreadCpuMs(proc.pid)
        break
      }
    } catch {
      // not listening yet
    }
    await Bun.sleep(1)
  }
  return {
    ms: Math.round(elapsed),
    cpuMs,
    pid: proc.pid,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

/** Milliseconds from spawn to the first 200 on `probe`. */
export async function coldStartMs(
  command: string[],
  probe: string,
  env: Record<string, string> = {},
): Promise<number> {
  const run = await timedStart(command, probe, env)
  await run.stop()
  return run.ms
}

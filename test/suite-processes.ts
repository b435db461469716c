/**
 * Real unit processes wired exactly as `svc suite` wires them (bin/suite.ts `suiteEnv`: peer URLs,
 * shared secrets, ALS's RMS token), each its own `bun bin/svc.ts unit <name>` on 127.0.0.1, ports
 * shifted by a random free offset, one temporary data directory. Unlike `svc suite`, one unit can
 * be stopped and started again on its port and data, so a flow can take a peer away and back.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { suiteEnv, suitePort } from '../bin/suite.ts'
import { pollUntilUp } from '../common/peer.ts'
import type { Env } from '../runtime/run.ts'
import { httpUnits } from '../units/registry.ts'
import { type Json, type RunningUnit, runUnitProcess, tempDir } from './harness.ts'

const ROOT = join(import.meta.dir, '..')
const START_DEADLINE_MS = 20_000

type UnitName = keyof typeof httpUnits

interface Child {
  proc: ReturnType<typeof Bun.spawn>
  stderr: string[]
}

export interface SuiteProcesses {
  dataDir: string
  /** The environment the suite's own command gets (offset, data directory, extras). */
  env: Env
  url(name: UnitName): string
  /** The environment `name` was started with (its secrets and tokens included). */
  envOf(name: UnitName): Env
  /** SIGTERM one unit; resolves with its exit code. */
  stop(name: UnitName): Promise<number>
  /**
   * Start one unit again on its port and data directory, with `extra` over its suite environment
   * for this start only (as an operator adds a variable); resolves once it is live.
   */
  start(name: UnitName, extra?: Env): Promise<void>
  /** Stop every unit still running and delete the data directory. */
  close(): Promise<void>
}

/** Ports of `names` shifted by `offset`, all free a moment ago. */
function offsetIsFree(names: readonly string[], offset: number): boolean {
  for (const name of names) {
    try {
      const server = Bun.serve({
        hostname: '127.0.0.1',
        port: suitePort(name, { SVC_SUITE_PORT_OFFSET: String(offset) }),
        fetch: () => new Response(),
      })
      server.stop(true)
    } catch {
      return false
    }
  }
  return true
}

/**
 * A random offset whose ports are all free, kept below Linux's ephemeral range (32768 and up), so
 * a client socket cannot take a unit's port while the unit is stopped and started again.
 */
function freeOffset(names: readonly string[]): number {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 3200 + Math.floor(Math.random() * 11_000)
    if (offsetIsFree(names, offset)) return offset
  }
  throw new Error('no free port offset for the suite')
}

async function drain(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder()
  for await (const chunk of stream) into.push(decoder.decode(chunk))
}

/**
 * How the suite runs: `processes` (one process per unit, `svc suite`'s default) or `one-process`
 * (every unit in one process, `svc suite --one-process`, through test/one-process-runner.ts).
 */
export type SuiteMode = 'processes' | 'one-process'

/** Start `names` as the suite does; `extra` goes to every unit (as an operator's environment would). */
export async function startSuite(
  names: UnitName[],
  extra: Env = {},
  mode: SuiteMode = 'processes',
): Promise<SuiteProcesses> {
  if (mode === 'one-process') return startOneProcessSuite(names, extra)
  const { dataDir, env, envs, url } = plan(names, extra)
  const children = new Map<UnitName, Child>()

  const start = async (name: UnitName, extra: Env = {}) => {
    const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'unit', name], {
      cwd: ROOT,
      env: { ...process.env, ...envs[name], ...extra },
      stdout: 'ignore',
      stderr: 'pipe',
      stdin: 'ignore',
    })
    const child: Child = { proc, stderr: [] }
    children.set(name, child)
    void drain(proc.stderr, child.stderr)
    try {
      await untilLive(`${url(name)}${httpUnits[name].liveness}`, () =>
        proc.exitCode === null ? undefined : `exit ${proc.exitCode}: ${child.stderr.join('')}`,
      )
    } catch (err) {
      proc.kill()
      throw new Error(`${name} did not come up: ${(err as Error).message} ${child.stderr.join('')}`)
    }
  }

  const stop = async (name: UnitName) => {
    const child = children.get(name)
    if (!child) return 0
    children.delete(name)
    child.proc.kill('SIGTERM')
    return child.proc.exited
  }

  const suite: SuiteProcesses = {
    dataDir,
    env,
    url,
    envOf: (name) => envs[name] ?? {},
    stop,
    start,
    async close() {
      await Promise.all([...children.keys()].map(stop))
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
  try {
    await Promise.all(names.map((name) => start(name)))
  } catch (err) {
    await suite.close()
    throw err
  }
  return suite
}

/** The common part of both modes: data directory, free port offset, each unit's environment. */
function plan(names: UnitName[], extra: Env) {
  const dataDir = tempDir('svc-flows-')
  const offset = freeOffset(names)
  const env: Env = {
    SVC_ENV: 'test',
    LOG_LEVEL: 'warn',
    ...extra,
    SVC_SUITE_PORT_OFFSET: String(offset),
    SVC_DATA_DIR: dataDir,
  }
  const envs = suiteEnv(names, env)
  const url = (name: UnitName) => `http://127.0.0.1:${suitePort(name, env)}`
  return { dataDir, env, envs, url }
}

const untilLive = (url: string, failed: () => string | undefined): Promise<void> =>
  pollUntilUp(url, { deadlineMs: START_DEADLINE_MS, everyMs: 50, failed })

const CONTROL = '@control '

/** The one-process suite: one child running every unit, with a stdin control channel. */
async function startOneProcessSuite(names: UnitName[], extra: Env): Promise<SuiteProcesses> {
  const { dataDir, env, envs, url } = plan(names, extra)
  const proc = Bun.spawn([process.execPath, 'test/one-process-runner.ts'], {
    cwd: ROOT,
    env: { ...process.env, SVC_ONE_PROCESS_PLAN: JSON.stringify({ names, envs }) },
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'pipe',
  })
  const stderr: string[] = []
  void drain(proc.stderr, stderr)
  const lines: string[] = []
  const waiters: (() => void)[] = []
  void (async () => {
    let buffered = ''
    const decoder = new TextDecoder()
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk)
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl)
        if (line.startsWith(CONTROL)) lines.push(line.slice(CONTROL.length))
        buffered = buffered.slice(nl + 1)
      }
      for (const wake of waiters.splice(0)) wake()
    }
    for (const wake of waiters.splice(0)) wake()
  })()
  const nextLine = async (deadlineMs: number): Promise<string> => {
    const deadline = Date.now() + deadlineMs
    while (lines.length === 0) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`the one-process suite stopped answering (exit ${proc.exitCode}): ${stderr.join('')}`)
      await Promise.race([new Promise<void>((r) => waiters.push(r)), Bun.sleep(100)])
    }
    return lines.shift() as string
  }
  const command = async (line: string) => {
    proc.stdin.write(`${line}\n`)
    proc.stdin.flush()
    const answer = await nextLine(START_DEADLINE_MS)
    if (!answer.startsWith('ok ')) throw new Error(`one-process suite: ${line}: ${answer}`)
  }
  const first = await nextLine(START_DEADLINE_MS * 2)
  if (first !== 'ready') {
    proc.kill()
    throw new Error(`the one-process suite did not start: ${first} ${stderr.join('')}`)
  }
  const stopped = new Set<UnitName>()
  let closed = false
  return {
    dataDir,
    env,
    url,
    envOf: (name) => envs[name] ?? {},
    async stop(name) {
      await command(`stop ${name}`)
      stopped.add(name)
      return 0
    },
    async start(name, more = {}) {
      await command(`start ${name} ${JSON.stringify(more)}`)
      stopped.delete(name)
      await untilLive(`${url(name)}${httpUnits[name].liveness}`, () =>
        proc.exitCode === null ? undefined : `the suite exited ${proc.exitCode}`,
      )
    },
    async close() {
      if (closed) return
      closed = true
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * A PRS of its own observing `unitUrls` (`name=url,…`) every second, as a real process; resolves
 * with it and its drift report once something is blocking (or the polling deadline passed). The
 * caller stops it.
 */
export async function prsDrift(unitUrls: string): Promise<{ prs: RunningUnit; drift: Json }> {
  const prs = await runUnitProcess('prs', '/health', {
    SVC_DATA_DIR: tempDir(),
    LOG_LEVEL: 'warn',
    PRS_OBSERVE_INTERVAL_MS: '1000',
    SVC_UNIT_URLS: unitUrls,
  })
  const drift = await eventually(
    async () => (await (await fetch(`${prs.url}/api/v1/contracts/drift`)).json()) as Json,
    (d) => d.blocking_count > 0,
  )
  return { prs, drift }
}

/** Poll `read` until `done` holds of its value (or the deadline passes); the last value either way. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await Bun.sleep(100)
  }
}

/**
 * Crash safety: the real unit process under concurrent writes, SIGKILLed at a random moment,
 * restarted on the same data directory; every acknowledged write must be there, and SQLite's
 * integrity check must pass.
 */
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../runtime/run.ts'
import { freePort, tempDir } from '../../test/harness.ts'
import type { CrashTarget } from '../crash-targets.ts'
import { REPO_ROOT } from './fuzzer.ts'

export interface CrashOptions {
  rounds: number
  seed: number
  /** Concurrent writers. */
  concurrency: number
  /** The kill lands uniformly in [minKillMs, maxKillMs] after the load starts. */
  minKillMs: number
  maxKillMs: number
  log?: (line: string) => void
}

export interface CrashReport {
  unit: string
  rounds: number
  attempted: number
  acknowledged: number
  lost: string[]
  integrity: string[]
  /** Problems that stopped the run (the unit did not come up …). */
  errors: string[]
  dataDir: string
}

/** mulberry32: a small seeded PRNG, so kill moments repeat with the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Running {
  url: string
  proc: ReturnType<typeof Bun.spawn>
}

async function start(unit: string, liveness: string, env: Env): Promise<Running> {
  const port = freePort()
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'unit', unit], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SVC_ENV: 'test',
      LOG_LEVEL: 'error',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      if ((await fetch(url + liveness)).ok) return { url, proc }
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL')
      const err = await new Response(proc.stderr).text()
      throw new Error(`unit ${unit} did not come up (exit ${proc.exitCode}): ${err.slice(0, 500)}`)
    }
    await Bun.sleep(25)
  }
}

/** Writers that send until told to stop; each 2xx answer's id is an acknowledged write. */
function load(
  target: CrashTarget,
  extraHeaders: Record<string, string>,
  url: string,
  concurrency: number,
  counter: { next: number; attempted: number },
) {
  const acked: string[] = []
  /** 2xx answers that name no id: the crash target's ackId is wrong, and nothing can be checked. */
  const unnamed: string[] = []
  let stopped = false
  const writer = async () => {
    while (!stopped) {
      const i = counter.next++
      counter.attempted++
      try {
        const raw = JSON.stringify(target.body(i))
        const res = await fetch(url + target.path, {
          method: target.method,
          headers: { ...target.headers, ...extraHeaders, ...target.sign?.(raw) },
          body: raw,
        })
        const text = await res.text()
        if (res.status >= 200 && res.status < 300) {
          const id = target.ackId(JSON.parse(text))
          if (id) acked.push(id)
          else unnamed.push(text.slice(0, 200))
        }
      } catch {
        // The process died under us: this write was never acknowledged.
        if (!stopped) await Bun.sleep(5)
      }
    }
  }
  const writers = Array.from({ length: concurrency }, writer)
  return {
    acked,
    unnamed,
    async stop() {
      stopped = true
      await Promise.all(writers)
    },
  }
}

function verify(
  dbPath: string,
  target: CrashTarget,
  acked: string[],
): { lost: string[]; integrity: string[] } {
  const db = new Database(dbPath, { readonly: true })
  try {
    const lost = acked.filter((id) => !target.exists(db, id))
    const rows = db.query('PRAGMA integrity_check').all() as { integrity_check: string }[]
    const integrity = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok')
    return { lost, integrity }
  } finally {
    db.close()
  }
}

export async function crashTest(
  unit: string,
  liveness: string,
  target: CrashTarget,
  opts: CrashOptions,
): Promise<CrashReport> {
  const log = opts.log ?? (() => {})
  const random = prng(opts.seed)
  const dataDir = tempDir(`svc-crash-${unit}-`)
  const dbPath = join(dataDir, `${unit}.sqlite`)
  const peers = await target.setup(dataDir)
  const env = { ...peers.env, SVC_DATA_DIR: dataDir }
  const report: CrashReport = {
    unit,
    rounds: 0,
    attempted: 0,
    acknowledged: 0,
    lost: [],
    integrity: [],
    errors: [],
    dataDir,
  }
  const allAcked: string[] = []
  const counter = { next: 0, attempted: 0 }
  let running: Running | undefined
  try {
    running = await start(unit, liveness, env)
    for (let round = 1; round <= opts.rounds; round++) {
      const killAfter = Math.round(opts.minKillMs + random() * (opts.maxKillMs - opts.minKillMs))
      const writers = load(target, peers.headers ?? {}, running.url, opts.concurrency, counter)
      await Bun.sleep(killAfter)
      running.proc.kill('SIGKILL')
      await running.proc.exited
      await writers.stop()
      allAcked.push(...writers.acked)
      if (writers.unnamed.length > 0) {
        throw new Error(`${writers.unnamed.length} 2xx answers name no id, e.g. ${writers.unnamed[0]}`)
      }
      // Restart on the same data directory, then look for every write acknowledged so far.
      running = await start(unit, liveness, env)
      const { lost, integrity } = verify(dbPath, target, allAcked)
      report.rounds = round
      report.lost = lost
      report.integrity = integrity
      log(
        `  round ${String(round).padStart(2)}: killed after ${killAfter} ms, ${writers.acked.length} acknowledged, ${lost.length} lost so far, integrity ${integrity.length === 0 ? 'ok' : integrity.join('; ')}`,
      )
    }
  } catch (err) {
    report.errors.push((err as Error).message)
  } finally {
    if (running && running.proc.exitCode === null) {
      running.proc.kill('SIGTERM')
      await running.proc.exited
    }
    peers.stop()
    report.attempted = counter.attempted
    report.acknowledged = allAcked.length
  }
  return report
}

export function removeDataDir(report: CrashReport) {
  rmSync(report.dataDir, { recursive: true, force: true })
}

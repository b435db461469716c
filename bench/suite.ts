/**
 * `npm run bench -- suite`: the whole suite's memory and start-up, in both modes.
 *
 * For each mode (one process per unit, the default; `--one-process`) and each form (the compiled
 * executable when `dist/svc` exists, and from source): start `svc suite` on free ports, time it to
 * every unit live, read memory idle, drive the standard load (every unit's hot read routes of
 * bench/tax.ts, BENCH_SUITE_SECONDS each with wrk or bench/load.ts), read memory again. Memory is
 * RSS summed over the suite's processes, and PSS (proportional set size: pages shared between
 * processes, such as one executable's code, counted once in total), which is what the host
 * actually spends. Then each unit's compiled cold start to its first 200, alone.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suitePort } from '../bin/suite.ts'
import { freePort, tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { coldStartMs, drive, generator, ROOT } from './lib.ts'
import { TAX_ROUTES } from './tax.ts'

const LOAD_SECONDS = Number(process.env.BENCH_SUITE_SECONDS ?? 2)
const EXE = join(ROOT, 'dist', 'svc')

/** Every variable the standard load needs (tokens the tax routes present), for the whole suite. */
const LOAD_ENV: Record<string, string> = Object.assign(
  {},
  ...Object.values(TAX_ROUTES).map((r) => r.env ?? {}),
)

function kb(pid: number, file: string, field: string): number {
  try {
    const text = readFileSync(`/proc/${pid}/${file}`, 'utf8')
    return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** The pid and its descendants. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone
    }
  }
  const out: number[] = []
  const walk = (pid: number) => {
    out.push(pid)
    for (const c of children.get(pid) ?? []) walk(c)
  }
  walk(root)
  return out
}

function memory(root: number) {
  const pids = tree(root)
  const mb = (n: number) => Math.round(n / 102.4) / 10
  return {
    processes: pids.length,
    rss: mb(pids.reduce((s, p) => s + kb(p, 'status', 'VmRSS'), 0)),
    pss: mb(pids.reduce((s, p) => s + kb(p, 'smaps_rollup', 'Pss'), 0)),
  }
}

interface Row {
  mode: string
  form: string
  readyMs: number
  processes: number
  idleRss: number
  idlePss: number
  loadRss: number
  loadPss: number
  requests: number
}

async function measureSuite(form: 'compiled' | 'source', oneProcess: boolean): Promise<Row> {
  const command =
    form === 'compiled' ? [EXE, 'suite'] : [process.execPath, join(ROOT, 'bin', 'svc.ts'), 'suite']
  if (oneProcess) command.push('--one-process')
  const offset = 20_000 + (freePort() % 10_000)
  const env = { SVC_SUITE_PORT_OFFSET: String(offset) }
  const proc = Bun.spawn(command, {
    cwd: tempDir('bench-suite-cwd-'),
    env: { ...process.env, ...LOAD_ENV, ...env, SVC_DATA_DIR: tempDir('bench-suite-'), LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  let err = ''
  const reader = proc.stderr.getReader()
  const decoder = new TextDecoder()
  let readyMs = Number.NaN
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const { done, value } = await reader.read()
    if (done) break
    err += decoder.decode(value)
    const m = /(\d+) units live in (\d+) ms/.exec(err)
    if (m) {
      readyMs = Number(m[2])
      break
    }
  }
  if (Number.isNaN(readyMs)) {
    proc.kill()
    throw new Error(`svc suite did not come up:\n${err}`)
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break
  })()
  try {
    await Bun.sleep(1000)
    const idle = memory(proc.pid)
    let requests = 0
    for (const [name, routes] of Object.entries(TAX_ROUTES)) {
      const url = `http://127.0.0.1:${suitePort(name, env)}`
      for (const path of routes.paths) {
        const r = await drive(
          { label: name, url, pid: proc.pid, stop: async () => {} },
          `GET ${path}`,
          { path, headers: routes.headers },
          { seconds: LOAD_SECONDS, connections: 16 },
        )
        requests += r.requests
      }
    }
    const loaded = memory(proc.pid)
    return {
      mode: oneProcess ? 'one process' : 'one process per unit',
      form,
      readyMs,
      processes: loaded.processes,
      idleRss: idle.rss,
      idlePss: idle.pss,
      loadRss: loaded.rss,
      loadPss: loaded.pss,
      requests,
    }
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
}

export default async function main(): Promise<string> {
  const forms: ('compiled' | 'source')[] = existsSync(EXE) ? ['compiled', 'source'] : ['source']
  const rows: Row[] = []
  for (const form of forms) {
    for (const oneProcess of [true, false]) rows.push(await measureSuite(form, oneProcess))
  }
  const lines = [
    '### The whole suite: memory and start-up',
    '',
    `Load: every unit's hot read routes (bench/tax.ts), ${LOAD_SECONDS} s each, 16 connections, ${generator}; ${new Date().toISOString()}.`,
    '',
    '| mode | form | processes | all live (ms from start) | RSS idle MB | PSS idle MB | RSS after load MB | PSS after load MB | requests |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.form} | ${r.processes} | ${r.readyMs} | ${r.idleRss} | ${r.idlePss} | ${r.loadRss} | ${r.loadPss} | ${r.requests} |`,
    ),
  ]
  if (existsSync(EXE)) {
    lines.push(
      '',
      '| unit | compiled cold start to first 200, median of 5 (ms) | runs |',
      '| --- | ---: | --- |',
    )
    for (const [name, entry] of Object.entries(httpUnits)) {
      const runs: number[] = []
      for (let i = 0; i < 5; i++)
        runs.push(await coldStartMs([EXE, 'unit', name], entry.liveness, TAX_ROUTES[name]?.env))
      runs.sort((a, b) => a - b)
      lines.push(`| ${name} | ${runs[2]} | ${runs.join(', ')} |`)
    }
  } else {
    lines.push('', 'dist/svc is not built (`npm run build`): no compiled figures.')
  }
  lines.push(
    '',
    "- RSS sums each process's resident pages; PSS divides pages shared between processes (the executable's code, shared libraries) among them, so the PSS total is what the host spends.",
    '- The suite runs in its default posture (development: generated secrets, local RMS tokens), logs at warn, from a scratch folder.',
  )
  return lines.join('\n')
}

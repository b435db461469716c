/**
 * `npm run bench -- startup [unit…]`: each HTTP unit alone (all of them when none is named), its
 * cold start to the first 200 on its liveness route and its resident memory at idle.
 *
 * Per unit and target (the compiled executable dist/svc when built, and the source run):
 * BENCH_STARTS starts (5) on fresh data directories, each timed from spawn to the first 200 and
 * left idle BENCH_IDLE_MS (1000) before its VmRSS is read; then as many restarts on a data
 * directory the unit has already initialised (what a host does after the first deployment). The
 * targets' starts alternate, so a noisy moment of the shared cores hits each of them. Medians, with
 * every run and the load average beside them.
 *
 * BENCH_EXE names the executable, or several separated by commas (an earlier build beside this
 * one, to compare back to back); BENCH_FORMS (`compiled,source`) picks the forms.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { coldStartMs, median, ROOT, rssMb, type TimedStart, timedStart } from './lib.ts'
import { TAX_ROUTES } from './tax.ts'

const STARTS = Number(process.env.BENCH_STARTS ?? 5)
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 1000)
const EXES = (process.env.BENCH_EXE ?? join(ROOT, 'dist', 'svc')).split(',').map((e) => resolve(e))
const FORMS = (process.env.BENCH_FORMS ?? 'compiled,source').split(',')

interface Target {
  label: string
  command(unit: string): string[]
}

function targets(): Target[] {
  const out: Target[] = []
  if (FORMS.includes('compiled'))
    for (const exe of EXES.filter((e) => existsSync(e)))
      out.push({ label: `compiled ${exe}`, command: (unit) => [exe, 'unit', unit] })
  if (FORMS.includes('source'))
    out.push({
      label: 'source',
      command: (unit) => [process.execPath, join(ROOT, 'bin', 'svc.ts'), 'unit', unit],
    })
  return out
}

const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

interface Row {
  unit: string
  target: string
  first: number[]
  firstCpu: number[]
  restart: number[]
  restartCpu: number[]
  idleRss: number[]
  load: string
}

/** Every target of one unit, their starts alternating. */
async function measure(unit: string, all: Target[]): Promise<Row[]> {
  const entry = httpUnits[unit as keyof typeof httpUnits]
  const env = TAX_ROUTES[unit]?.env ?? {}
  const load = loadAverage()
  const rows = all.map(
    (t): Row => ({
      unit,
      target: t.label,
      first: [],
      firstCpu: [],
      restart: [],
      restartCpu: [],
      idleRss: [],
      load,
    }),
  )
  const record = (row: Row, run: TimedStart, kind: 'first' | 'restart') => {
    row[kind].push(run.ms)
    row[kind === 'first' ? 'firstCpu' : 'restartCpu'].push(run.cpuMs)
  }
  for (let i = 0; i < STARTS; i++) {
    for (const [t, target] of all.entries()) {
      const run = await timedStart(target.command(unit), entry.liveness, env)
      await Bun.sleep(IDLE_MS)
      rows[t]?.idleRss.push(rssMb(run.pid))
      await run.stop()
      if (rows[t]) record(rows[t], run, 'first')
    }
  }
  const dataDirs = all.map(() => tempDir(`bench-restart-${unit}-`))
  for (const [t, target] of all.entries())
    await coldStartMs(target.command(unit), entry.liveness, { ...env, SVC_DATA_DIR: dataDirs[t] as string })
  for (let i = 0; i < STARTS; i++) {
    for (const [t, target] of all.entries()) {
      const run = await timedStart(target.command(unit), entry.liveness, {
        ...env,
        SVC_DATA_DIR: dataDirs[t] as string,
      })
      await run.stop()
      if (rows[t]) record(rows[t], run, 'restart')
    }
  }
  return rows
}

const runs = (xs: number[]) => [...xs].sort((a, b) => a - b).join(', ')

export default async function main(units: string[] = []): Promise<string> {
  const unknown = units.filter((u) => !Object.hasOwn(httpUnits, u))
  if (unknown.length > 0) throw new Error(`startup: not an HTTP unit: ${unknown.join(', ')}`)
  const names = units.length > 0 ? units : Object.keys(httpUnits)
  const all = targets()
  const rows: Row[] = []
  for (const unit of names) rows.push(...(await measure(unit, all)))
  const lines = [
    '### Start-up and idle memory, one unit alone',
    '',
    `${STARTS} starts per unit and target on fresh data directories, then ${STARTS} restarts on an initialised data directory, the targets alternating; RSS read ${IDLE_MS} ms after the first 200; ${new Date().toISOString()}.`,
    '',
    '| unit | target | first start ms | its CPU ms | restart ms | its CPU ms | idle RSS MB | first starts (ms) | restarts (ms) | idle RSS (MB) | load average |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.unit} | ${r.target} | ${median(r.first)} | ${median(r.firstCpu)} | ${median(r.restart)} | ${median(r.restartCpu)} | ${median(r.idleRss)} | ${runs(r.first)} | ${runs(r.restart)} | ${runs(r.idleRss)} | ${r.load} |`,
    ),
    '',
    '- Medians of the runs. Wall time is from spawn to the first 200 on the liveness route; CPU is what its main thread (where start-up runs) had used by then, less sensitive than wall time to the load of the shared cores.',
  ]
  if (FORMS.includes('compiled') && !EXES.some((e) => existsSync(e)))
    lines.push('', 'dist/svc is not built (`npm run build`): no compiled figures.')
  return lines.join('\n')
}

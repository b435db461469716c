/**
 * `npm run bench -- startup [unit…]`: each HTTP unit alone (all of them when none is named), its
 * cold start to the first 200 on its liveness route and its resident memory at idle.
 *
 * Per unit and form (the compiled executable dist/svc when built, and from source): BENCH_STARTS
 * starts (5) on fresh data directories, each timed from spawn to the first 200 and left idle
 * BENCH_IDLE_MS (1000) before its VmRSS is read; then as many restarts on one data directory the
 * unit has already initialised (what a host does after the first deployment). Medians, with every
 * run and the load average beside them: the machine is shared, so read figures against the load.
 * BENCH_EXE names another executable (an earlier build, to compare back to back); BENCH_FORMS
 * (`compiled,source`) picks the forms.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { coldStartMs, median, ROOT, rssMb, timedStart } from './lib.ts'
import { TAX_ROUTES } from './tax.ts'

const STARTS = Number(process.env.BENCH_STARTS ?? 5)
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 1000)
const EXE = resolve(process.env.BENCH_EXE ?? join(ROOT, 'dist', 'svc'))
const FORMS = (process.env.BENCH_FORMS ?? 'compiled,source').split(',')

type Form = 'compiled' | 'source'

const commandOf = (form: Form, unit: string): string[] =>
  form === 'compiled' ? [EXE, 'unit', unit] : [process.execPath, join(ROOT, 'bin', 'svc.ts'), 'unit', unit]

const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

interface Row {
  unit: string
  form: Form
  first: number[]
  firstCpu: number[]
  restart: number[]
  restartCpu: number[]
  idleRss: number[]
  load: string
}

async function measure(unit: string, form: Form): Promise<Row> {
  const entry = httpUnits[unit as keyof typeof httpUnits]
  const env = TAX_ROUTES[unit]?.env ?? {}
  const command = commandOf(form, unit)
  const load = loadAverage()
  const row: Row = { unit, form, first: [], firstCpu: [], restart: [], restartCpu: [], idleRss: [], load }
  for (let i = 0; i < STARTS; i++) {
    const run = await timedStart(command, entry.liveness, env)
    await Bun.sleep(IDLE_MS)
    row.idleRss.push(rssMb(run.pid))
    await run.stop()
    row.first.push(run.ms)
    row.firstCpu.push(run.cpuMs)
  }
  const dataDir = tempDir(`bench-restart-${unit}-`)
  await coldStartMs(command, entry.liveness, { ...env, SVC_DATA_DIR: dataDir })
  for (let i = 0; i < STARTS; i++) {
    const run = await timedStart(command, entry.liveness, { ...env, SVC_DATA_DIR: dataDir })
    await run.stop()
    row.restart.push(run.ms)
    row.restartCpu.push(run.cpuMs)
  }
  return row
}

const runs = (xs: number[]) => [...xs].sort((a, b) => a - b).join(', ')

export default async function main(units: string[] = []): Promise<string> {
  const unknown = units.filter((u) => !Object.hasOwn(httpUnits, u))
  if (unknown.length > 0) throw new Error(`startup: not an HTTP unit: ${unknown.join(', ')}`)
  const names = units.length > 0 ? units : Object.keys(httpUnits)
  const forms = (['compiled', 'source'] as const).filter(
    (f) => FORMS.includes(f) && (f === 'source' || existsSync(EXE)),
  )
  const rows: Row[] = []
  for (const form of forms) for (const unit of names) rows.push(await measure(unit, form))
  const lines = [
    '### Start-up and idle memory, one unit alone',
    '',
    `${forms.includes('compiled') ? `Executable: ${EXE}. ` : ''}${STARTS} starts per unit and form on fresh data directories, then ${STARTS} restarts on one initialised data directory; RSS read ${IDLE_MS} ms after the first 200; ${new Date().toISOString()}.`,
    '',
    '| unit | form | first start ms | its CPU ms | restart ms | its CPU ms | idle RSS MB | first starts (ms) | restarts (ms) | idle RSS (MB) | load average |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.unit} | ${r.form} | ${median(r.first)} | ${median(r.firstCpu)} | ${median(r.restart)} | ${median(r.restartCpu)} | ${median(r.idleRss)} | ${runs(r.first)} | ${runs(r.restart)} | ${runs(r.idleRss)} | ${r.load} |`,
    ),
    '',
    '- Medians of the runs. Wall time is from spawn to the first 200 on the liveness route; CPU is what its main thread (where start-up runs) had used by then, less sensitive than wall time to the load of the shared cores.',
  ]
  if (!existsSync(EXE)) lines.push('', 'dist/svc is not built (`npm run build`): no compiled figures.')
  return lines.join('\n')
}

/**
 * `svc suite`: every HTTP unit as its own process on 127.0.0.1, each reading its peers'
 * addresses from the variables CONTRACTS.md §4 names. Secrets shared by two units (the contact
 * webhook between WEB and EIS, the support handoff between EIS and PWS, ALS's read token for
 * RMS) are generated once per start unless the operator set them.
 */
import { randomBytes } from 'node:crypto'
import { ConfigError } from '../common/config.ts'
import { httpStatus } from '../common/peer.ts'
import { type Env, ListenError, type ListeningUnit, startUnit } from '../runtime/run.ts'
import { httpUnits } from '../units/registry.ts'

type UnitName = keyof typeof httpUnits

const LOOPBACK = '127.0.0.1'

const MAX_PORT = 65535

/** SVC_SUITE_PORT_OFFSET as an integer; empty or unset is 0. */
function portOffset(env: Env): number {
  const raw = env.SVC_SUITE_PORT_OFFSET?.trim() ?? ''
  return raw === '' ? 0 : Number(raw)
}

/** A unit's port in the suite: its default, shifted by SVC_SUITE_PORT_OFFSET (two suites on one host). */
export function suitePort(name: string, env: Env): number {
  return (httpUnits[name as UnitName]?.port ?? 0) + portOffset(env)
}

/** The offset's problem, as one line naming the variable, or undefined when every port is valid. */
export function portOffsetProblem(names: readonly string[], env: Env): string | undefined {
  const offset = portOffset(env)
  const ports = names.map((n) => suitePort(n, env))
  if (Number.isInteger(offset) && ports.every((p) => p >= 1 && p <= MAX_PORT)) return undefined
  const given = JSON.stringify(env.SVC_SUITE_PORT_OFFSET)
  return `SVC_SUITE_PORT_OFFSET: expected an integer that keeps every unit's port within 1-${MAX_PORT}, got ${given}`
}

/** The peer wiring: which variable of which consumer points at which producer route. */
export function suiteEnv(names: readonly string[], env: Env): Record<string, Env> {
  const url = (name: string) => `http://${LOOPBACK}:${suitePort(name, env)}`
  const has = (name: string) => names.includes(name)
  const secret = () => randomBytes(24).toString('hex')
  const contactSecret = env.CONTACT_WEBHOOK_SECRET ?? env.ERP_API_SHARED_SECRET ?? secret()
  const handoffToken = env.SVC_SUPPORT_HANDOFF_TOKEN ?? env.PWS_SUPPORT_HANDOFF_TOKEN ?? secret()
  // ALS reads RMS's approval lane. Unless the operator gave ALS a token (and so configured RMS
  // for it), RMS gets a generated read-only local token for subject svc:als, added to any the
  // operator set.
  const alsRmsToken = env.SVC_RMS_TOKEN ?? secret()
  // EIS dispatches approval packets to RMS (a write): its own read-write token, subject svc:eis.
  const eisRmsToken = env.EIS_RMS_TOKEN ?? secret()
  const rmsLocalTokens = [
    env.RMS_LOCAL_TOKENS,
    env.SVC_RMS_TOKEN ? undefined : `${alsRmsToken}:svc:als:r`,
    env.EIS_RMS_TOKEN || !has('eis') ? undefined : `${eisRmsToken}:svc:eis:rw`,
  ]
    .filter((part) => part !== undefined && part.trim() !== '')
    .join(',')
  const shared: Env = {
    SVC_UNIT_URLS: names.map((n) => `${n}=${url(n)}`).join(','),
    ...(has('prs') && { SVC_REGISTRY_URL: url('prs') }),
    ...(has('rms') && { SVC_RMS_URL: url('rms') }),
  }
  const perUnit: Record<string, Env> = {
    web: has('eis')
      ? {
          CONTACT_WEBHOOK_URL: `${url('eis')}/api/method/svc_erp_core.api.webhooks.website_contact_intake`,
          CONTACT_WEBHOOK_SECRET: contactSecret,
        }
      : {},
    eis: {
      ERP_API_SHARED_SECRET: contactSecret,
      ...(has('rms') && { SVC_RMS_TOKEN: eisRmsToken }),
      ...(has('pws') && {
        SVC_SUPPORT_HANDOFF_URL: `${url('pws')}/api/v1/support/handoff`,
        SVC_SUPPORT_HANDOFF_TOKEN: handoffToken,
      }),
    },
    pws: { PWS_SUPPORT_HANDOFF_TOKEN: handoffToken },
    als: has('rms') ? { SVC_RMS_TOKEN: alsRmsToken } : {},
    rms: rmsLocalTokens === '' ? {} : { RMS_LOCAL_TOKENS: rmsLocalTokens },
  }
  const out: Record<string, Env> = {}
  for (const name of names) {
    out[name] = {
      ...env,
      HOST: env.HOST ?? LOOPBACK,
      ...shared,
      ...perUnit[name],
      PORT: String(suitePort(name, env)),
    }
  }
  return out
}

/** The command that runs one unit, from source (`bun bin/svc.ts`) or from the compiled executable. */
function unitCommand(name: string): string[] {
  const compiled = Bun.main.startsWith('/$bunfs/') || !Bun.main.endsWith('.ts')
  return compiled ? [process.execPath, 'unit', name] : [process.execPath, Bun.main, 'unit', name]
}

const ONE_PROCESS = '--one-process'

/**
 * `svc suite [--one-process] [name…]`: the named units (all by default), each on its port, wired.
 * By default each unit is its own process (a crash takes one unit down, and the suite with it);
 * `--one-process` runs them all in this process, each its own Elysia app, port, database and
 * configuration, still calling each other over HTTP: one runtime's memory instead of nine, for
 * small hosts.
 */
export async function runSuite(args: string[], env: Env): Promise<void> {
  const oneProcess = args.includes(ONE_PROCESS)
  const requested = args.filter((a) => a !== ONE_PROCESS)
  const unknown = requested.filter((n) => !Object.hasOwn(httpUnits, n))
  if (unknown.length > 0) {
    process.stderr.write(`svc suite: unknown unit(s) ${unknown.join(', ')}\n`)
    process.exit(2)
  }
  const names = requested.length > 0 ? requested : Object.keys(httpUnits)
  const offsetProblem = portOffsetProblem(names, env)
  if (offsetProblem) {
    process.stderr.write(`svc suite: bad configuration: ${offsetProblem}\n`)
    process.exit(2)
  }
  const envs = suiteEnv(names, env)
  if (oneProcess) return runInOneProcess(names, envs, env)
  const children = names.map((name) =>
    Bun.spawn(unitCommand(name), { env: envs[name], stdout: 'inherit', stderr: 'inherit', stdin: 'ignore' }),
  )
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    stopping = true
    for (const child of children) child.kill(signal)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  void announceWhenLive(names, env, () => stopping).then((late) => {
    if (late === undefined || stopping) return
    process.stderr.write(
      `svc suite: ${late} did not answer ${httpUnits[late as UnitName].liveness} within ${START_DEADLINE_MS / 1000} s; stopping the suite\n`,
    )
    stop('SIGTERM')
  })
  const codes = await Promise.all(
    children.map(async (child, i) => {
      const code = await child.exited
      // A unit the stop signal reached before it installed its handler had nothing to drain.
      if (stopping && child.signalCode !== null) return 0
      if (!stopping) {
        process.stderr.write(`svc suite: ${names[i]} exited with ${code}; stopping the suite\n`)
        stop('SIGTERM')
      }
      return code
    }),
  )
  process.exit(codes.every((c) => c === 0) && stopping ? 0 : 1)
}

/** Why a unit could not start, as one line. */
function startProblem(err: unknown): string {
  if (err instanceof ConfigError) return `bad configuration: ${err.problems.join('; ')}`
  if (err instanceof ListenError) return err.message
  return (err as Error)?.message ?? String(err)
}

/**
 * Every unit in this process. All start together; if one cannot (bad configuration, a taken
 * port), the others are stopped and the suite exits 2 with that unit's reason. SIGTERM/SIGINT
 * drains every unit and exits 0.
 */
async function runInOneProcess(names: string[], envs: Record<string, Env>, env: Env): Promise<void> {
  let running: ListeningUnit[]
  try {
    running = await startInOneProcess(names, envs)
  } catch (err) {
    process.stderr.write(`svc suite: ${(err as Error).message}; stopping the suite\n`)
    process.exit(2)
  }
  let stopping = false
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    await Promise.all(running.map((u) => u.stop(signal)))
    setTimeout(() => process.exit(0), 50)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  await announceWhenLive(names, env, () => stopping, 'in one process')
}

/**
 * Start `names` in this process, each with its environment from `suiteEnv`, all at once. If one
 * cannot start, the others are stopped and the error names that unit and its reason.
 */
export async function startInOneProcess(
  names: string[],
  envs: Record<string, Env>,
): Promise<ListeningUnit[]> {
  const results = await Promise.allSettled(names.map((name) => startOne(name, envs[name] ?? {})))
  const running = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failed = results.findIndex((r) => r.status === 'rejected')
  if (failed === -1) return running
  await Promise.all(running.map((u) => u.stop('startup failure')))
  throw (results[failed] as PromiseRejectedResult).reason
}

/** One unit of the one-process suite; a failure says which unit and why, in one line. */
export async function startOne(name: string, env: Env): Promise<ListeningUnit> {
  try {
    return await startUnit(await httpUnits[name as UnitName].load(), env)
  } catch (err) {
    throw new Error(`${name} cannot start: ${startProblem(err)}`)
  }
}

/** How long every unit has to answer its liveness route before the suite gives up. */
export const START_DEADLINE_MS = 15_000
const PROBE_TIMEOUT_MS = 2_000
const POLL_MS = 50

const unitUrl = (name: string, env: Env) => `http://${LOOPBACK}:${suitePort(name, env)}`

const answers = (url: string) => httpStatus(url, PROBE_TIMEOUT_MS)

/**
 * Wait until every unit answers its liveness route with 200, then print the table of units, URLs
 * and API pages. Resolves with the first unit still silent at the deadline, else undefined.
 */
async function announceWhenLive(
  names: string[],
  env: Env,
  stopped: () => boolean,
  how = '',
): Promise<string | undefined> {
  const waiting = new Set(names)
  while (waiting.size > 0 && !stopped()) {
    // Measured from this process's start (performance.now() counts from it), not from the wait.
    if (performance.now() > START_DEADLINE_MS) return [...waiting][0]
    await Promise.all(
      [...waiting].map(async (name) => {
        const entry = httpUnits[name as UnitName]
        if ((await answers(`${unitUrl(name, env)}${entry.liveness}`)) === 200) waiting.delete(name)
      }),
    )
    if (waiting.size > 0) await Bun.sleep(POLL_MS)
  }
  if (stopped()) return undefined
  const ms = Math.round(performance.now())
  process.stderr.write(
    `${suiteTable(names, env)}svc suite: ${names.length} units live in ${ms} ms${how ? ` ${how}` : ''} (Ctrl-C stops them all)\n`,
  )
  return undefined
}

/** The table `svc suite` prints once every unit is live. */
export function suiteTable(names: readonly string[], env: Env): string {
  const rows = names.map((name) => {
    const entry = httpUnits[name as UnitName]
    const url = unitUrl(name, env)
    return [name, url, `${url}${entry.liveness}`, `${url}/docs`]
  })
  return table([['unit', 'url', 'liveness', 'API docs'], ...rows])
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  return rows
    .map(
      (r) =>
        `${r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('')
}

/**
 * `svc suite status [name…]`: each unit's liveness and readiness on this host (ports shifted by
 * SVC_SUITE_PORT_OFFSET as the suite shifts them), one line each. Exit 0 when every unit is
 * ready, 1 when any is not, 2 on bad usage.
 */
export async function suiteStatus(
  requested: string[],
  env: Env,
  out: (text: string) => void,
): Promise<number> {
  const unknown = requested.filter((n) => !Object.hasOwn(httpUnits, n))
  if (unknown.length > 0) {
    process.stderr.write(`svc suite status: unknown unit(s) ${unknown.join(', ')}\n`)
    return 2
  }
  const names = requested.length > 0 ? requested : Object.keys(httpUnits)
  const offsetProblem = portOffsetProblem(names, env)
  if (offsetProblem) {
    process.stderr.write(`svc suite status: bad configuration: ${offsetProblem}\n`)
    return 2
  }
  const rows = await Promise.all(
    names.map(async (name) => {
      const entry: { liveness: string; readiness?: string } = httpUnits[name as UnitName]
      const url = unitUrl(name, env)
      const readiness = entry.readiness ?? entry.liveness
      const [live, ready] = await Promise.all([
        answers(`${url}${entry.liveness}`),
        answers(`${url}${readiness}`),
      ])
      const ok = ready !== undefined && ready >= 200 && ready < 300
      const show = (status: number | undefined) => (status === undefined ? 'down' : String(status))
      return {
        ok,
        cells: [
          name,
          url,
          `live ${show(live)}`,
          `ready ${show(ready)} (${readiness})`,
          ok ? 'ready' : 'NOT READY',
        ],
      }
    }),
  )
  out(table(rows.map((r) => r.cells)))
  return rows.every((r) => r.ok) ? 0 : 1
}

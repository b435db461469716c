/**
 * `svc suite`: every HTTP unit as its own process on 127.0.0.1, each reading its peers'
 * addresses from the variables CONTRACTS.md §4 names. Secrets shared by two units (the contact
 * webhook between WEB and EIS, the support handoff between EIS and PWS, ALS's read token for
 * RMS) are generated once per start unless the operator set them.
 */
import { randomBytes } from 'node:crypto'
import type { Env } from '../runtime/run.ts'
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
  const rmsLocalTokens = [env.RMS_LOCAL_TOKENS, env.SVC_RMS_TOKEN ? undefined : `${alsRmsToken}:svc:als:r`]
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

export async function runSuite(requested: string[], env: Env): Promise<void> {
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
  const children = names.map((name) =>
    Bun.spawn(unitCommand(name), { env: envs[name], stdout: 'inherit', stderr: 'inherit', stdin: 'ignore' }),
  )
  process.stderr.write(
    `svc suite: ${names.map((n) => `${n} on http://${LOOPBACK}:${suitePort(n, env)}`).join(', ')}\n`,
  )
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    stopping = true
    for (const child of children) child.kill(signal)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
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

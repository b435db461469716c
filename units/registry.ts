/**
 * The unit registry: adding a unit is adding its folder and one entry here.
 * HTTP units run with `svc unit <name>`; command-line units with `svc <name> <command>`.
 *
 * Entries carry the unit's metadata and load its code on demand, so `svc unit web` evaluates
 * WEB's modules only: each unit's code costs start-up time and resident memory in every process
 * that loads it (docs/benchmarks.md).
 */
import type { CliUnit } from '../common/cli.ts'
import type { UnitMeta } from '../common/unit-meta.ts'
import type { HttpUnit } from '../runtime/unit.ts'
import { meta as als } from './als/meta.ts'
import { meta as eis } from './eis/meta.ts'
import { meta as mailbox } from './mailbox/meta.ts'
import { meta as nds } from './nds/meta.ts'
import { meta as prs } from './prs/meta.ts'
import { meta as pws } from './pws/meta.ts'
import { meta as rms } from './rms/meta.ts'
import { meta as web } from './web/meta.ts'
import { meta as wta } from './wta/meta.ts'

export interface RegisteredUnit extends UnitMeta {
  load(): Promise<HttpUnit>
}

export const httpUnits = {
  rms: { ...rms, load: async () => (await import('./rms/index.ts')).rms },
  als: { ...als, load: async () => (await import('./als/index.ts')).als },
  pws: { ...pws, load: async () => (await import('./pws/index.ts')).pws },
  web: { ...web, load: async () => (await import('./web/index.ts')).web },
  nds: { ...nds, load: async () => (await import('./nds/index.ts')).nds },
  eis: { ...eis, load: async () => (await import('./eis/index.ts')).eis },
  wta: { ...wta, load: async () => (await import('./wta/index.ts')).wta },
  mailbox: { ...mailbox, load: async () => (await import('./mailbox/index.ts')).mailbox },
  prs: { ...prs, load: async () => (await import('./prs/index.ts')).prs },
} satisfies Record<string, RegisteredUnit>

type HttpUnitName = keyof typeof httpUnits

/** A command-line unit, or an HTTP unit's subcommands (`svc nds keys …`), loaded on demand. */
export interface RegisteredCli {
  title: string
  load(): Promise<CliUnit>
}

export const cliUnits: Record<string, RegisteredCli> = {
  eis: {
    title: 'ERP integration service: identity facts import',
    load: async () => (await import('./eis/cli.ts')).eisCli,
  },
  tel: { title: 'telephony-stack repository', load: async () => (await import('./tel/index.ts')).tel },
  mem: { title: 'memory-stack repository', load: async () => (await import('./mem/index.ts')).mem },
  wta: { title: wta.title, load: async () => (await import('./wta/cli.ts')).wtaCli },
  nds: { title: 'news data service API keys', load: async () => (await import('./nds/cli.ts')).ndsCli },
}

export const unitNames: string[] = [...new Set([...Object.keys(httpUnits), ...Object.keys(cliUnits)])]

/** The registered HTTP unit of this name, or undefined. */
export function registeredUnit(name: string | undefined): RegisteredUnit | undefined {
  return name !== undefined && Object.hasOwn(httpUnits, name) ? httpUnits[name as HttpUnitName] : undefined
}

/** Every HTTP unit's definition, loaded (tests and tools that walk all units). */
export async function loadHttpUnits(): Promise<Record<string, HttpUnit>> {
  const entries = await Promise.all(
    Object.entries(httpUnits).map(async ([name, entry]) => [name, await entry.load()] as const),
  )
  return Object.fromEntries(entries)
}

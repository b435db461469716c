/**
 * The unit registry: adding a unit is adding its folder and one line here.
 * HTTP units run with `svc unit <name>`; command-line units with `svc <name> <command>`.
 */
import type { CliUnit } from '../common/cli.ts'
import { als } from './als/index.ts'
import { prs } from './prs/index.ts'
import { rms } from './rms/index.ts'
import { web } from './web/index.ts'

export const httpUnits = { web, als, prs, rms } as const

export const cliUnits: Record<string, CliUnit> = {}

export const unitNames: string[] = [...Object.keys(httpUnits), ...Object.keys(cliUnits)]

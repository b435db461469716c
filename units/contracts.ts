/**
 * Every unit's shipped contract, validated. The repository owns contract truth: PRS derives its
 * registry from this list, and `units/contracts.test.ts` refuses a broken file.
 */
import { type ContractProblem, contractProblems, type UnitContract } from '../common/contract.ts'
import als from './als/contract.json' with { type: 'json' }
import eis from './eis/contract.json' with { type: 'json' }
import mailbox from './mailbox/contract.json' with { type: 'json' }
import mem from './mem/contract.json' with { type: 'json' }
import nds from './nds/contract.json' with { type: 'json' }
import prs from './prs/contract.json' with { type: 'json' }
import pws from './pws/contract.json' with { type: 'json' }
import rms from './rms/contract.json' with { type: 'json' }
import tel from './tel/contract.json' with { type: 'json' }
import web from './web/contract.json' with { type: 'json' }
import wta from './wta/contract.json' with { type: 'json' }

/** In the order of docs/conventions.md §1. */
export const rawContracts: Record<string, unknown> = {
  rms,
  als,
  pws,
  web,
  nds,
  eis,
  wta,
  mailbox,
  prs,
  tel,
  mem,
}

export class ContractFileError extends Error {
  constructor(readonly problems: { unit: string; problems: ContractProblem[] }[]) {
    super(
      problems
        .map(
          (p) =>
            `units/${p.unit}/contract.json: ${p.problems.map((x) => `${x.path} ${x.message}`).join('; ')}`,
        )
        .join('\n'),
    )
    this.name = 'ContractFileError'
  }
}

/** Validate a set of raw contracts; the key must equal the contract's `unit`. Throws on any problem. */
export function validateContracts(raw: Record<string, unknown>): UnitContract[] {
  const failures: { unit: string; problems: ContractProblem[] }[] = []
  const out: UnitContract[] = []
  for (const [unit, value] of Object.entries(raw)) {
    const problems = contractProblems(value)
    if (problems.length === 0 && (value as UnitContract).unit !== unit) {
      problems.push({ path: '/unit', message: `expected "${unit}" (the folder name)` })
    }
    if (problems.length > 0) failures.push({ unit, problems })
    else out.push(value as UnitContract)
  }
  if (failures.length > 0) throw new ContractFileError(failures)
  return out
}

export const unitContracts: readonly UnitContract[] = Object.freeze(validateContracts(rawContracts))

export const contractOf = (unit: string): UnitContract | undefined =>
  unitContracts.find((c) => c.unit === unit)

/** Test fixtures: a mutable copy of the repository's contracts and a throwaway owner repository. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { UnitContract } from '../../common/contract.ts'
import { tempDir } from '../../test/harness.ts'
import { unitContracts } from '../contracts.ts'

export const fixtureContracts = (): UnitContract[] => structuredClone(unitContracts) as UnitContract[]

export const contractIn = (contracts: UnitContract[], unit: string): UnitContract => {
  const c = contracts.find((x) => x.unit === unit)
  if (!c) throw new Error(`no contract for ${unit}`)
  return c
}

/** A document with a heading for every docs section. */
export const FULL_DOC = [
  '# Tool',
  '## What it does',
  '## Capabilities',
  '## Routes',
  '## Configuration',
  '## Integrations',
  '## Decisions where the spec is silent',
  '## Not done',
  '## Open-source inventory',
  '## Benchmarks',
  '',
].join('\n')

/** A repository directory holding complete docs for the given units, and migrations for sqlite units. */
export function fixtureRepo(
  contracts: readonly UnitContract[],
  withDocs: string[] = contracts.map((c) => c.unit),
): string {
  const dir = tempDir('svc-prs-repo-')
  for (const c of contracts) {
    if (withDocs.includes(c.unit)) {
      mkdirSync(join(dir, 'docs', 'units'), { recursive: true })
      writeFileSync(join(dir, c.docs.entrypoint), FULL_DOC)
    }
    if (c.operations.storage === 'sqlite') {
      mkdirSync(join(dir, 'db', 'migrations', c.unit), { recursive: true })
      writeFileSync(join(dir, 'db', 'migrations', c.unit, 'index.ts'), 'export const migrations = []\n')
    }
  }
  return dir
}

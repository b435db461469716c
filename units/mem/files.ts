/** MEM's repository files, compiled in. */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { UnitContract } from '../../common/contract.ts'
import { contractOf } from '../contracts.ts'
import features from './features.json' with { type: 'json' }
import manifest from './manifest.json' with { type: 'json' }
import { FeaturesFile, ManifestFile, StackFile } from './model.ts'
import stack from './stack.json' with { type: 'json' }

export const FILE_PATHS = {
  stack: 'units/mem/stack.json',
  manifest: 'units/mem/manifest.json',
  features: 'units/mem/features.json',
} as const
export const FILE_SCHEMAS: Record<keyof typeof FILE_PATHS, TSchema> = {
  stack: StackFile,
  manifest: ManifestFile,
  features: FeaturesFile,
}

export interface MemFiles {
  stack: StackFile
  manifest: ManifestFile
  features: FeaturesFile
}

export function fileProblems(files: MemFiles): string[] {
  return (Object.keys(FILE_PATHS) as (keyof typeof FILE_PATHS)[]).flatMap((k) =>
    [...Value.Errors(FILE_SCHEMAS[k], files[k])].map((e) => `${FILE_PATHS[k]}${e.path || '/'}: ${e.message}`),
  )
}

const found = contractOf('mem')
if (!found) throw new Error('units/mem/contract.json is not registered in units/contracts.ts')
export const contract: UnitContract = found
export const shippedFiles: MemFiles = {
  stack: stack as StackFile,
  manifest: manifest as ManifestFile,
  features: features as FeaturesFile,
}

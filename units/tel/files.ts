/** TEL's repository files, compiled in: the build ships the files of the commit it was made from. */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { UnitContract } from '../../common/contract.ts'
import doc from '../../docs/units/tel.md' with { type: 'text' }
import { contractOf } from '../contracts.ts'
import features from './features.json' with { type: 'json' }
import manifest from './manifest.json' with { type: 'json' }
import { FeaturesFile, ManifestFile, StackFile } from './model.ts'
import stack from './stack.json' with { type: 'json' }

export interface TelFiles {
  stack: StackFile
  manifest: ManifestFile
  features: FeaturesFile
  contract: UnitContract
  doc: string
}

export const FILE_PATHS = {
  stack: 'units/tel/stack.json',
  manifest: 'units/tel/manifest.json',
  features: 'units/tel/features.json',
  contract: 'units/tel/contract.json',
} as const

export const FILE_SCHEMAS: Record<'stack' | 'manifest' | 'features', TSchema> = {
  stack: StackFile,
  manifest: ManifestFile,
  features: FeaturesFile,
}

/** Every schema problem of the three files, as `<path><pointer>: <message>`. */
export function fileProblems(files: Pick<TelFiles, 'stack' | 'manifest' | 'features'>): string[] {
  return (['stack', 'manifest', 'features'] as const).flatMap((k) =>
    [...Value.Errors(FILE_SCHEMAS[k], files[k])].map((e) => `${FILE_PATHS[k]}${e.path || '/'}: ${e.message}`),
  )
}

const contract = contractOf('tel')
if (!contract) throw new Error('units/tel/contract.json is not registered in units/contracts.ts')

export const shippedFiles: TelFiles = {
  stack: stack as StackFile,
  manifest: manifest as ManifestFile,
  features: features as FeaturesFile,
  contract,
  doc,
}

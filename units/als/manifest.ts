import { t } from 'elysia'
import { contractProblems, platformManifest, type UnitContract } from '../../common/contract.ts'
import contractFile from './contract.json' with { type: 'json' }
import { meta } from './meta.ts'

export const ALS_PORT = meta.port

/**
 * The shipped manifest, built from the unit's own contract file (units/als/contract.json) with
 * the suite's `platformManifest()`: service metadata, not governance truth (spec). A broken
 * contract file stops the unit at start-up rather than publishing a wrong manifest.
 */
export function shippedManifest() {
  const problems = contractProblems(contractFile)
  if (problems.length > 0) {
    throw new Error(`units/als/contract.json: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`)
  }
  return platformManifest(contractFile as unknown as UnitContract)
}

export const PlatformManifest = t.Object(
  {
    manifest_version: t.String(),
    unit: t.String(),
    contract_version: t.String(),
    producer_families: t.Array(t.String()),
    consumer_families: t.Array(t.String()),
    runtime_contract: t.Object({}, { additionalProperties: true }),
  },
  {
    additionalProperties: true,
    description: 'The shipped manifest (service metadata, not governance truth)',
  },
)

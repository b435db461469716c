/**
 * What /platform-manifest.json publishes: the suite's manifest derived from units/pws/contract.json
 * (so the two cannot drift), plus the admitted operator-console surface and the sync posture.
 */
import { contractProblems, platformManifest, type UnitContract } from '../../common/contract.ts'
import contractFile from './contract.json' with { type: 'json' }
import { GIT_POLL_FALLBACK_MINUTES } from './rules/summary.ts'

export const pwsContract = (): UnitContract => {
  const problems = contractProblems(contractFile)
  if (problems.length > 0) {
    throw new Error(`units/pws/contract.json: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`)
  }
  return contractFile as unknown as UnitContract
}

export function shippedManifest(contract: UnitContract) {
  const base = platformManifest(contract)
  return {
    ...base,
    service: { name: 'pws', title: contract.identity.title, api_anchor: '/api/v1' },
    identity_surfaces: contract.identity_surfaces,
    sync: { git_inbound: 'webhook_first', git_poll_fallback_minutes: GIT_POLL_FALLBACK_MINUTES },
    optional_slices: contract.optional_slices.map((s) => ({ slice_key: s.slice_key, toggle: s.toggle })),
  }
}

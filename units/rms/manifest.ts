/**
 * What /platform-manifest.json publishes: the suite's manifest derived from units/rms/contract.json
 * (so the two cannot drift), plus the two compatibility claims and the port policy detail the
 * spec names for RMS.
 */
import { contractProblems, platformManifest, type UnitContract } from '../../common/contract.ts'
import contractFile from './contract.json' with { type: 'json' }
import { meta } from './meta.ts'
import { FEDERATION_CONTRACT_VERSION } from './rules/federation.ts'

export const RMS_PORT = meta.port
export const RMS_CONTAINER_PORT = 8080

export function shippedManifest() {
  const problems = contractProblems(contractFile)
  if (problems.length > 0) {
    throw new Error(`units/rms/contract.json: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`)
  }
  const base = platformManifest(contractFile as unknown as UnitContract)
  return {
    ...base,
    service: {
      name: 'rms',
      title: 'runtime management service',
      api_anchor: '/api/v1',
      identity_authority: false,
      governance_authority: false,
    },
    compatibility: {
      ...base.compatibility,
      manifest_v2_claim_owner_projection: {
        claim: 'manifest_v2',
        owner: 'repository',
        projection:
          'identity and authority context are projected by the projection layer; RMS only consumes them',
        authority_resolution: 'POST {SVC_CONTEXT_BASE_URL}/api/v1/authority/resolve',
        fail_closed: ['write and control routes without projected write authorization'],
      },
      agent_tool_policy_projection: {
        claim: 'agent_tool_policy_projection',
        source: 'GET {SVC_CONTEXT_BASE_URL}/api/v1/tool-policy-projection',
        agent_lane_headers: [
          'X-SVC-Acting-Agent-Id',
          'X-SVC-Actor-Subject-Ref',
          'X-SVC-Policy-Projection-Version',
        ],
        admits: 'internal reads only, when the presented projection version equals the held one',
        missing_or_stale_projection: 'fail_closed',
        federation_contract_version: FEDERATION_CONTRACT_VERSION,
      },
    },
    runtime_contract: {
      ...base.runtime_contract,
      // The spec's consumers read the port from this one field: the policy and both ports.
      port_policy: {
        policy: 'static-required' as const,
        published_host_port: RMS_PORT,
        container_port: RMS_CONTAINER_PORT,
        discovery:
          'read runtime_contract.port_policy; never infer the port from the container runtime or host scans',
      },
      published_host_port: RMS_PORT,
      container_port: RMS_CONTAINER_PORT,
      healthcheck: { interval_s: 120, minimum_interval_s: 20, low_cpu_interval_s: 180 },
      watchdog_minimum_cadence_s: 60,
    },
  }
}

import { Elysia } from 'elysia'
import type { UnitContract } from '../../../common/contract.ts'
import { jsonView, timedView } from '../../../common/json-view.ts'
import type { Registry } from '../../../common/metrics.ts'
import { metricsRoute } from '../../../common/routes.ts'
import { buildCommit } from '../../../common/version.ts'
import { shippedManifest } from '../manifest.ts'
import {
  Compatibility,
  ContractView,
  Health,
  MembershipFacts,
  PlatformManifest,
  Presence,
  Ready,
  Version,
  WorkspaceFacts,
} from '../model/status.ts'
import type { PwsDeps } from '../service/deps.ts'
import { iso } from '../service/deps.ts'
import { membershipFacts, readiness, VERIFY_PATHS, workspaceFacts } from '../service/status.ts'

export interface StatusDeps {
  deps: PwsDeps
  registry: Registry
  version: string
  startedAt: string
}

const API_PREFIX = '/api/v1'

function contractView(c: UnitContract) {
  return {
    unit: c.unit,
    contract_version: c.version,
    read_only: true as const,
    compatibility_mode: c.compatibility_mode,
    identity: c.identity,
    produces: c.produces.map((f) => ({
      family: f.family,
      version: f.version,
      kind: f.kind,
      surfaces: f.surfaces,
    })),
    consumes: c.consumes,
    readiness_surfaces: c.readiness_surfaces,
    identity_surfaces: c.identity_surfaces,
    optional_slices: c.optional_slices,
    events: c.events,
    operations: c.operations,
  }
}

/** The open runtime entry surfaces (spec: no auth, stable). */
export const statusRoutes = (s: StatusDeps) => {
  const { deps } = s
  const contract = deps.contract
  const manifest = shippedManifest(contract)
  const view = contractView(contract)
  // Fixed for the life of the process: served as bytes checked and serialized once.
  const version = {
    service: 'pws' as const,
    version: s.version,
    commit: buildCommit(),
    api_version: 'v1' as const,
    contract_version: contract.version,
    identity: {
      tool_key: contract.identity.tool_key,
      title: contract.identity.title,
      capability_class: contract.identity.capability_class,
    },
    started_at: s.startedAt,
  }
  return new Elysia({ name: 'pws:status' })
    .get(
      '/healthz',
      timedView(
        Health,
        (now) => ({ status: 'ok' as const, service: 'pws' as const, version: s.version, checked_at: now }),
        { now: () => iso(deps.now()) },
      ),
      { response: { 200: Health }, detail: { summary: 'Liveness' } },
    )
    .get(
      '/readyz',
      async ({ set }) => {
        const body = await readiness(deps)
        if (body.status === 'not_ready') set.status = 503
        return body
      },
      {
        response: { 200: Ready, 503: Ready },
        detail: {
          summary: 'Readiness: 503 only when the database does not answer; missing settings degrade',
        },
      },
    )
    .get(
      '/versionz',
      jsonView(Version, () => version),
      {
        response: { 200: Version },
        detail: { summary: 'Version and identity' },
      },
    )
    .get(
      '/contractz',
      jsonView(ContractView, () => view),
      {
        response: { 200: ContractView },
        detail: { summary: 'Read-only view of the shipped contract' },
      },
    )
    .get(
      '/platform-presencez',
      () => ({
        unit: contract.unit,
        present: true,
        tool_key: contract.identity.tool_key,
        lifecycle_posture: contract.identity.lifecycle_posture,
        api_prefix: API_PREFIX,
        discovery: {
          manifest: contract.manifest_path,
          openapi: '/openapi.json',
          workspace_facts: '/platform-workspace-facts',
          membership_facts: '/platform-membership-facts',
          verify_paths: VERIFY_PATHS,
        },
        observed_at: iso(deps.now()),
      }),
      { response: { 200: Presence }, detail: { summary: 'Discovery presence' } },
    )
    .get(
      '/platform-compatibilityz',
      () => ({
        unit: contract.unit,
        compatibility_mode: contract.compatibility_mode,
        api_prefix: API_PREFIX,
        contract_version: contract.version,
        family_versions: manifest.family_versions,
        policy_hints: {
          writeback_requires_expected_version: true,
          version_token: 'task updated_at timestamp',
          conflict_status: 409,
          session_cookie: 'pm_session',
          roles: ['viewer', 'operator', 'admin'],
          sandbox_writes_enabled: deps.settings.sandbox.enabled,
          sandbox_project_prefix: deps.settings.sandbox.projectPrefix,
          list_pagination: { limit: '1-500, default 100', cursor: 'next_cursor of the previous page' },
        },
      }),
      { response: { 200: Compatibility }, detail: { summary: 'Compatibility and policy hints' } },
    )
    .get('/platform-manifest.json', () => manifest, {
      response: { 200: PlatformManifest },
      detail: { summary: 'The shipped manifest (service metadata, not governance truth)' },
    })
    .get('/platform-workspace-facts', () => workspaceFacts(deps), {
      response: { 200: WorkspaceFacts },
      detail: { summary: 'Workspace, planning binding, sync mode and webhook posture (polled by PRS)' },
    })
    .get('/platform-membership-facts', () => membershipFacts(deps), {
      response: { 200: MembershipFacts },
      detail: { summary: 'OIDC client, role mapping and the operator-console surface (polled by PRS)' },
    })
    .use(metricsRoute(s.registry))
}

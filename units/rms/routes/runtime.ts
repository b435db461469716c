import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { rejectUnknownFields } from '../../../common/schema.ts'
import { nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import type { AgentDoc, DelegationDoc } from '../model/host.ts'
import {
  DriftSummary,
  Inventory,
  PatchApplied,
  PatchApplyRequest,
  PatchPlan,
  PatchPlanRequest,
  Topology,
  TopologyDiff,
} from '../model.ts'
import { topologyDiff, topologyOf } from '../rules/topology.ts'
import { ofKind } from '../service/host.ts'
import type { Catalog, Change, RuntimeService } from '../service/runtime.ts'
import * as store from '../store.ts'

export interface RuntimeDeps {
  storage: Storage
  auth: AuthorityPlugin
  runtime: RuntimeService
  ephemeral: boolean
}

const READ_ERRORS = errorResponses(400, 401, 403, 404, 503)
const WRITE_ERRORS = errorResponses(400, 401, 403, 404, 409, 415, 422, 503)

export { READ_ERRORS, WRITE_ERRORS }

/** Inventory, topology, drift, and the patch plan → apply path. */
export const runtimeRoutes = (deps: RuntimeDeps) =>
  new Elysia({ name: 'rms:runtime' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .get(
          '/api/v1/runtime/inventory',
          async ({ authority }) => {
            const c = await deps.runtime.catalog()
            const s = c.snapshot
            const counts: Record<string, number> = {}
            for (const r of s.resources.values()) counts[r.kind] = (counts[r.kind] ?? 0) + 1
            return {
              host_id: c.host?.host_id ?? null,
              federation_id: c.host?.federation_id ?? null,
              runtime_mode: c.host?.runtime_mode ?? null,
              persistence_mode: c.host?.persistence_mode ?? null,
              desired_state_persistence: deps.ephemeral ? ('ephemeral' as const) : ('durable' as const),
              host_dir: s.dir,
              readable: s.readable,
              error: s.error,
              scanned_at: s.scanned_at,
              host_hash: s.host_hash,
              counts,
              agents: c.agents.map((a) => ({
                agent_id: a.agent_id,
                agent_slug: a.agent_slug,
                agent_class: a.agent_class,
                lifecycle_state: a.lifecycle_state,
                persistent: a.persistent,
                team_id: a.team_id,
                domain_id: a.domain_id,
                tool_profile: a.tool_profile,
                voice_target: a.voice_target,
              })),
              tool_profile_ids: c.profiles.map((p) => p.profile_id),
              voice_target_ids: c.voices.map((v) => v.target_id),
              domain_ids: c.domains.map((d) => d.domain_id),
              team_ids: c.teams.map((d) => d.team_id),
              delegation_ids: c.delegations.map((d) => d.delegation_id),
              invalid_files: s.invalid,
              ...mark(authority),
            }
          },
          {
            response: { 200: Inventory, ...READ_ERRORS },
            detail: { summary: 'Runtime inventory (persistence and runtime mode)' },
          },
        )
        .get(
          '/api/v1/topology/current',
          async ({ authority }) => {
            const c = await deps.runtime.catalog()
            return {
              source: c.fallbackReason ? ('desired_state_fallback' as const) : ('runtime_host' as const),
              ...topologyOf(c.agents, c.delegations),
              ...mark(authority),
            }
          },
          {
            response: { 200: Topology, ...READ_ERRORS },
            detail: { summary: 'Current topology of the runtime host' },
          },
        )
        .get(
          '/api/v1/topology/diff',
          async ({ authority }) => {
            const c = await deps.runtime.catalog()
            const desired = topologyOf(
              ofKind<AgentDoc>(desiredSource(c.desired), 'agent'),
              ofKind<DelegationDoc>(desiredSource(c.desired), 'delegation'),
            )
            return { ...topologyDiff(desired, topologyOf(c.agents, c.delegations)), ...mark(authority) }
          },
          {
            response: { 200: TopologyDiff, ...READ_ERRORS },
            detail: { summary: 'Desired topology against the host' },
          },
        )
        .get(
          '/api/v1/drift/summary',
          async ({ authority }) => {
            const d = await deps.runtime.drift()
            const last = await store.lastFinishedRun(deps.storage.db)
            return {
              ...d.summary,
              items: d.entries,
              host_hash: d.snapshot.host_hash,
              checked_at: nowIso(),
              last_reconcile: last
                ? { run_id: last.runId, finished_at: last.finishedAt, outcome: last.outcome }
                : null,
              ...mark(authority),
            }
          },
          {
            response: { 200: DriftSummary, ...READ_ERRORS },
            detail: { summary: 'Drift summary with severity' },
          },
        ),
    )
    .guard({ access: 'write' }, (app) =>
      app
        .post(
          '/api/v1/runtime-host/patch/plan',
          async ({ authority, body }) => ({
            ...(await deps.runtime.plan((body.changes ?? []) as Change[], body.prune_unmanaged ?? false, {
              subject: authority.subject,
              authority_source: authority.authority_source,
            })),
            ...mark(authority),
          }),
          {
            body: PatchPlanRequest,
            ...rejectUnknownFields(PatchPlanRequest),
            response: { 200: PatchPlan, ...WRITE_ERRORS },
            detail: {
              summary: 'Plan a runtime-host patch (desired state + optional changes against the host)',
            },
          },
        )
        .post(
          '/api/v1/runtime-host/patch/apply',
          async ({ authority, body }) => ({
            ...(await deps.runtime.apply(body.plan_id, body.plan_hash, {
              subject: authority.subject,
              authority_source: authority.authority_source,
            })),
            ...mark(authority),
          }),
          {
            body: PatchApplyRequest,
            ...rejectUnknownFields(PatchApplyRequest),
            response: { 200: PatchApplied, ...WRITE_ERRORS },
            detail: { summary: 'Apply a patch plan to the runtime host (atomic file writes, audited)' },
          },
        ),
    )

function desiredSource(desired: Catalog['desired']) {
  return { resources: new Map([...desired].map(([k, r]) => [k, { ...r, file: '' }])) }
}

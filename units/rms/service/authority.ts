/**
 * RMS consumes authority; it is not an authority. Bearer tokens are resolved by the projection
 * layer and cached with a bounded age (`resolution.ts`); the agent lane is checked against the
 * tool-policy projection RMS holds (`projection.ts`). Every refusal is explicit, and nothing
 * unknown is admitted: when the projection layer is down, reads continue only for tokens already
 * resolved (marked degraded) and writes fail closed. The access macro that applies this to routes
 * is `../authority.ts`.
 */
import { forbidden, unauthorized, unavailable } from '../../../common/errors.ts'
import { Gauge, Counter as PromCounter } from '../../../common/metrics.ts'
import { newId } from '../../../common/time.ts'
import {
  type Authority,
  type AuthorityCore,
  type AuthorityOptions,
  degradedNow,
  type Level,
  newLayerState,
  refuse,
} from './authority-core.ts'
import {
  agentLane,
  currentProjection,
  newProjectionHolder,
  type ProjectionHolder,
  projectionState,
  refreshProjection,
} from './projection.ts'
import { newResolutionCache, type ResolutionCache, resolveBearer } from './resolution.ts'

export type { Authority, AuthorityOptions, AuthoritySource, Level } from './authority-core.ts'

const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/i

/** Decide one request. Throws the refusal as an AppError; returns the authority used. */
export async function authorize(
  core: AuthorityCore,
  cache: ResolutionCache,
  holder: ProjectionHolder,
  h: Headers,
  level: Level,
): Promise<Authority> {
  const header = h.get('authorization')
  if (header === null) {
    if (h.has('x-svc-acting-agent-id') || h.has('x-svc-actor-subject-ref')) {
      const a = await agentLane(core, holder, h, level)
      core.decisions.inc({ lane: 'agent', outcome: 'admitted' })
      return a
    }
    return refuse(
      core,
      'none',
      unauthorized('authentication_required', 'This route needs Authorization: Bearer <token>.'),
    )
  }
  const match = BEARER.exec(header.trim())
  if (!match)
    return refuse(
      core,
      'bearer',
      unauthorized('malformed_authorization', 'The Authorization header must be Bearer <token>.'),
    )
  const a = await resolveBearer(core, cache, match[1]!, level)
  if (level === 'write' && a.degraded) {
    return refuse(
      core,
      'bearer',
      unavailable('authority_unavailable', 'Authority is degraded; write and control routes fail closed.'),
    )
  }
  if (level === 'write' && !a.write) {
    return refuse(
      core,
      'bearer',
      forbidden('write_not_authorized', 'The projected authority for this token does not include writes.'),
    )
  }
  if (level === 'read' && !a.read) {
    return refuse(
      core,
      'bearer',
      forbidden('read_not_authorized', 'The projected authority for this token does not include reads.'),
    )
  }
  core.decisions.inc({ lane: 'bearer', outcome: a.degraded ? 'admitted_degraded' : 'admitted' })
  return a
}

/** What `/api/v1/status` and `/ready` report about authority. */
export function authorityStatus(core: AuthorityCore, cache: ResolutionCache, holder: ProjectionHolder) {
  const { opts, layer } = core
  const held = holder.held
  return {
    mode: opts.baseUrl ? ('projection' as const) : ('local' as const),
    authority_source: opts.baseUrl ? ('projection' as const) : ('local' as const),
    projection_layer_configured: Boolean(opts.baseUrl),
    projection_layer_reachable: opts.baseUrl ? layer.reachable : null,
    last_success_at: layer.lastSuccessAt,
    last_failure_at: layer.lastFailureAt,
    last_error: layer.lastError,
    tool_policy_projection: {
      state: projectionState(core, holder),
      version: held?.version ?? null,
      fetched_at: held ? new Date(held.fetchedAt).toISOString() : null,
      agents: held?.agents.length ?? 0,
    },
    last_resolved_projection_version: layer.lastResolvedVersion,
    cache: {
      entries: cache.entries.size,
      max_age_s: opts.cacheTtlS,
      degraded_max_age_s: opts.degradedMaxAgeS,
    },
    degraded: degradedNow(core),
    writes: degradedNow(core) ? ('fail_closed' as const) : ('available' as const),
  }
}

function registerAuthorityMetrics(core: AuthorityCore, cache: ResolutionCache): void {
  const registers = [core.opts.registry]
  new Gauge({
    name: 'svc_rms_authority_degraded',
    help: '1 when the projection layer is unreachable or not configured (reads degraded, writes closed).',
    registers,
    collect() {
      this.set(degradedNow(core) ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_authority_cache_entries',
    help: 'Token resolutions held in the bounded-age cache.',
    registers,
    collect() {
      this.set(cache.entries.size)
    },
  })
}

/** The authority service of one RMS instance: its state, bound to the functions above. */
export function createAuthority(opts: AuthorityOptions) {
  const core: AuthorityCore = {
    opts,
    layer: newLayerState(),
    decisions: new PromCounter({
      name: 'svc_rms_authority_decisions_total',
      help: 'Authority decisions on internal routes, by lane and outcome.',
      labelNames: ['lane', 'outcome'] as const,
      registers: [opts.registry],
    }),
  }
  const cache = newResolutionCache()
  const holder = newProjectionHolder()
  registerAuthorityMetrics(core, cache)
  return {
    id: newId(),
    authorize: (h: Headers, level: Level) => authorize(core, cache, holder, h, level),
    currentProjection: () => currentProjection(core, holder),
    projectionState: () => projectionState(core, holder),
    refreshProjection: () => refreshProjection(core, holder),
    degraded: () => degradedNow(core),
    status: () => authorityStatus(core, cache, holder),
  }
}

export type AuthorityService = ReturnType<typeof createAuthority>

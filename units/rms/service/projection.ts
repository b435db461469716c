/**
 * The tool-policy projection RMS holds (refreshed when older than the bounded age) and the agent
 * lane checked against it: reads only, the presented projection version must be the held one.
 */
import { type Static, t } from 'elysia'
import { forbidden, unauthorized, unavailable } from '../../../common/errors.ts'
import {
  type Authority,
  type AuthorityCore,
  askLayer,
  type Level,
  layerHeaders,
  markDown,
  markUp,
  refuse,
} from './authority-core.ts'

export const ToolPolicyProjection = t.Object({
  projection_version: t.String({ minLength: 1 }),
  agents: t.Array(
    t.Object({
      agent_id: t.String({ minLength: 1 }),
      agent_slug: t.String(),
      subject_ref: t.String(),
      read: t.Boolean(),
    }),
  ),
})
type ToolPolicyProjection = Static<typeof ToolPolicyProjection>

export interface HeldProjection {
  version: string
  agents: ToolPolicyProjection['agents']
  fetchedAt: number
}

export type ProjectionState = 'current' | 'stale' | 'missing' | 'local'

export interface ProjectionHolder {
  held: HeldProjection | undefined
  fetch: Promise<void> | undefined
  lastMismatchRefresh: number
}

/** A version mismatch may trigger at most one refresh of the held projection per this interval. */
const MISMATCH_REFRESH_MS = 1000

export const newProjectionHolder = (): ProjectionHolder => ({
  held: undefined,
  fetch: undefined,
  lastMismatchRefresh: 0,
})

/** Fetch the projection once, shared by concurrent callers. */
export async function refreshProjection(core: AuthorityCore, holder: ProjectionHolder): Promise<void> {
  const { opts, layer } = core
  if (!opts.baseUrl) return
  holder.fetch ??= (async () => {
    const answer = await askLayer(layer, {
      url: `${opts.baseUrl}/api/v1/tool-policy-projection`,
      headers: layerHeaders(opts),
      timeoutMs: opts.timeoutMs,
      schema: ToolPolicyProjection,
    })
    if (answer.ok) {
      markUp(layer)
      holder.held = {
        version: answer.body.projection_version,
        agents: answer.body.agents,
        fetchedAt: Date.now(),
      }
    } else {
      markDown(core, `${answer.reason}: ${answer.message}`)
    }
  })().finally(() => {
    holder.fetch = undefined
  })
  return holder.fetch
}

export function projectionState(core: AuthorityCore, holder: ProjectionHolder): ProjectionState {
  if (!core.opts.baseUrl) return 'local'
  if (!holder.held) return 'missing'
  return Date.now() - holder.held.fetchedAt < core.opts.cacheTtlS * 1000 ? 'current' : 'stale'
}

/** The held tool-policy projection, refreshed when older than the bounded age. */
export async function currentProjection(core: AuthorityCore, holder: ProjectionHolder) {
  if (core.opts.baseUrl && projectionState(core, holder) !== 'current') await refreshProjection(core, holder)
  return { state: projectionState(core, holder), held: holder.held }
}

/** Decide a request on the agent lane (`X-SVC-Acting-Agent-Id` / `X-SVC-Actor-Subject-Ref`). */
export async function agentLane(
  core: AuthorityCore,
  holder: ProjectionHolder,
  h: Headers,
  level: Level,
): Promise<Authority> {
  const agentId = h.get('x-svc-acting-agent-id')?.trim() || null
  const subjectRef = h.get('x-svc-actor-subject-ref')?.trim() || null
  const version = h.get('x-svc-policy-projection-version')?.trim() || null
  if (level === 'write') {
    return refuse(
      core,
      'agent',
      unauthorized(
        'bearer_required',
        'Write and control routes need a bearer token; the agent lane admits reads only.',
      ),
    )
  }
  if (!version) {
    return refuse(
      core,
      'agent',
      unauthorized('projection_version_required', 'The agent lane needs X-SVC-Policy-Projection-Version.'),
    )
  }
  if (!core.opts.baseUrl) {
    return refuse(
      core,
      'agent',
      unavailable(
        'policy_projection_missing',
        'No tool-policy projection is held (no projection layer configured); the agent lane fails closed.',
      ),
    )
  }
  let { state, held: p } = await currentProjection(core, holder)
  if (
    state === 'current' &&
    p &&
    p.version !== version &&
    Date.now() - holder.lastMismatchRefresh > MISMATCH_REFRESH_MS
  ) {
    holder.lastMismatchRefresh = Date.now()
    await refreshProjection(core, holder)
    ;({ state, held: p } = { state: projectionState(core, holder), held: holder.held })
  }
  if (state !== 'current' || !p) {
    return refuse(
      core,
      'agent',
      unavailable(
        state === 'missing' ? 'policy_projection_missing' : 'policy_projection_stale',
        'RMS holds no current tool-policy projection; the agent lane fails closed.',
        { projection_state: state },
      ),
    )
  }
  if (p.version !== version) {
    return refuse(
      core,
      'agent',
      unauthorized(
        'policy_projection_mismatch',
        'The presented policy projection version is not the one RMS holds.',
        {
          held_projection_version: p.version,
        },
      ),
    )
  }
  const agent = p.agents.find((a) => (agentId ? a.agent_id === agentId : a.subject_ref === subjectRef))
  if (!agent)
    return refuse(
      core,
      'agent',
      unauthorized('agent_not_projected', 'The acting agent is not in the tool-policy projection.'),
    )
  if (agentId && subjectRef && agent.subject_ref !== subjectRef) {
    return refuse(
      core,
      'agent',
      unauthorized(
        'agent_identity_conflict',
        'The acting agent id and subject ref name different projected agents.',
      ),
    )
  }
  if (!agent.read)
    return refuse(
      core,
      'agent',
      forbidden('agent_read_not_granted', 'The tool-policy projection grants this agent no reads.'),
    )
  return {
    lane: 'agent',
    subject: agent.subject_ref || agent.agent_id,
    read: true,
    write: false,
    authority_source: 'projection',
    projection_version: p.version,
    cached: true,
    degraded: false,
    degraded_reason: null,
  }
}

/**
 * RMS consumes authority; it is not an authority. Bearer tokens are resolved by the projection
 * layer (CONTRACTS.md §4) and cached with a bounded age; the agent lane is checked against the
 * tool-policy projection RMS holds. Every refusal is explicit, and nothing unknown is admitted:
 * when the projection layer is down, reads continue only for tokens already resolved (marked
 * degraded) and writes fail closed.
 */
import type { TSchema } from '@sinclair/typebox'
import { Elysia, type Static, t } from 'elysia'
import { type AppError, forbidden, unauthorized, unavailable } from '../../common/errors.ts'
import { sha256Hex } from '../../common/hash.ts'
import { type Counter, Gauge, Counter as PromCounter, type Registry } from '../../common/metrics.ts'
import { callPeer, type PeerRequest } from '../../common/peer.ts'
import { newId, nowIso } from '../../common/time.ts'

export type Level = 'read' | 'write'
export type AuthoritySource = 'projection' | 'local'

export interface Authority {
  lane: 'bearer' | 'agent'
  subject: string
  read: boolean
  write: boolean
  authority_source: AuthoritySource
  projection_version: string | null
  cached: boolean
  degraded: boolean
  degraded_reason: string | null
}

export const Resolution = t.Object({
  subject: t.String({ minLength: 1 }),
  read: t.Boolean(),
  write: t.Boolean(),
  projection_version: t.String({ minLength: 1 }),
  expires_at: t.String({ minLength: 1 }),
})
type Resolution = Static<typeof Resolution>

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

export interface LocalToken {
  subject: string
  read: boolean
  write: boolean
}

/** `RMS_LOCAL_TOKENS=token:subject:rw,token:subject:r` (development and test only, or read-only break-glass in production). */
export function parseLocalTokens(raw: string | undefined): {
  tokens: Map<string, LocalToken>
  problems: string[]
} {
  const tokens = new Map<string, LocalToken>()
  const problems: string[] = []
  for (const [i, part] of (raw ?? '').split(',').entries()) {
    if (part.trim() === '') continue
    // token:subject:mode, where the subject itself may contain colons (user:alice).
    const fields = part.trim().split(':')
    const token = fields[0]
    const mode = fields.length >= 3 ? fields[fields.length - 1] : undefined
    const subject = fields.slice(1, -1).join(':')
    if (!token || !subject || !mode || !/^(r|rw|w)$/.test(mode) || token.length < 8) {
      problems.push(
        `RMS_LOCAL_TOKENS: entry ${i + 1} must be token:subject:r|rw with a token of 8+ characters`,
      )
      continue
    }
    tokens.set(sha256Hex(token), { subject, read: mode.includes('r'), write: mode.includes('w') })
  }
  return { tokens, problems }
}

export interface AuthorityOptions {
  baseUrl: string | undefined
  authToken: string | undefined
  production: boolean
  localTokens: Map<string, LocalToken>
  cacheTtlS: number
  degradedMaxAgeS: number
  timeoutMs: number
  /** After a failed call, the layer is not asked again for this long (answers fail fast instead). */
  retryAfterMs: number
  registry: Registry
}

interface Cached {
  res: Resolution
  fetchedAt: number
}

interface HeldProjection {
  version: string
  agents: ToolPolicyProjection['agents']
  fetchedAt: number
}

const MAX_CACHE_ENTRIES = 10_000
/** A version mismatch may trigger at most one refresh of the held projection per this interval. */
const MISMATCH_REFRESH_MS = 1000

export type AuthorityService = ReturnType<typeof createAuthority>

export function createAuthority(opts: AuthorityOptions) {
  const ttlMs = opts.cacheTtlS * 1000
  const cache = new Map<string, Cached>()
  const inflight = new Map<string, Promise<Authority>>()
  let held: HeldProjection | undefined
  let projectionFetch: Promise<void> | undefined
  let lastMismatchRefresh = 0
  const layer = {
    reachable: null as boolean | null,
    lastSuccessAt: null as string | null,
    lastFailureAt: null as string | null,
    lastError: null as string | null,
    retryAt: 0,
    /** The projection version of the last token resolution the layer answered. */
    lastResolvedVersion: null as string | null,
  }
  const decisions: Counter<'lane' | 'outcome'> = new PromCounter({
    name: 'svc_rms_authority_decisions_total',
    help: 'Authority decisions on internal routes, by lane and outcome.',
    labelNames: ['lane', 'outcome'] as const,
    registers: [opts.registry],
  })
  new Gauge({
    name: 'svc_rms_authority_degraded',
    help: '1 when the projection layer is unreachable or not configured (reads degraded, writes closed).',
    registers: [opts.registry],
    collect() {
      this.set(degradedNow() ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_authority_cache_entries',
    help: 'Token resolutions held in the bounded-age cache.',
    registers: [opts.registry],
    collect() {
      this.set(cache.size)
    },
  })

  const headers = (): Record<string, string> =>
    opts.authToken ? { authorization: `Bearer ${opts.authToken}` } : {}
  const markUp = () => {
    layer.reachable = true
    layer.lastSuccessAt = nowIso()
    layer.retryAt = 0
  }
  const markDown = (message: string) => {
    layer.reachable = false
    layer.lastFailureAt = nowIso()
    layer.lastError = message
    layer.retryAt = Date.now() + opts.retryAfterMs
  }
  /** One call to the projection layer, unless it failed moments ago: a hung layer costs one timeout, not one per request. */
  async function askLayer<S extends TSchema>(req: PeerRequest<S>) {
    if (Date.now() < layer.retryAt) {
      return {
        ok: false as const,
        reason: 'unreachable' as const,
        message: `not retried before ${new Date(layer.retryAt).toISOString()} (failed recently)`,
      }
    }
    return callPeer(req)
  }
  function degradedNow(): boolean {
    if (!opts.baseUrl) return opts.production
    return layer.reachable === false
  }

  const refuse = (lane: string, err: AppError): never => {
    decisions.inc({ lane, outcome: err.errorCode })
    throw err
  }

  async function fetchResolution(token: string, key: string, level: Level): Promise<Authority> {
    const cached = cache.get(key)
    const now = Date.now()
    const answer = await askLayer({
      url: `${opts.baseUrl}/api/v1/authority/resolve`,
      method: 'POST',
      json: { token },
      headers: headers(),
      timeoutMs: opts.timeoutMs,
      schema: Resolution,
      acceptStatus: [404],
    })
    if (answer.ok && answer.status === 404) {
      markUp()
      cache.delete(key)
      return refuse(
        'bearer',
        unauthorized('unknown_token', 'The bearer token is not known to the projection layer.'),
      )
    }
    if (answer.ok) {
      markUp()
      const res = answer.body
      const expires = Date.parse(res.expires_at)
      if (Number.isNaN(expires) || expires <= now) {
        cache.delete(key)
        return refuse(
          'bearer',
          unauthorized('token_expired', 'The projected authority for this token has expired.'),
        )
      }
      layer.lastResolvedVersion = res.projection_version
      cache.delete(key)
      cache.set(key, { res, fetchedAt: now })
      if (cache.size > MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!)
      return fromResolution(res, false, null)
    }
    markDown(`${answer.reason}: ${answer.message}`)
    if (level === 'write') {
      return refuse(
        'bearer',
        unavailable(
          'authority_unavailable',
          'The projection layer is unavailable; write and control routes fail closed.',
          {
            reason: answer.reason,
          },
        ),
      )
    }
    if (
      cached &&
      now < Date.parse(cached.res.expires_at) &&
      now - cached.fetchedAt < opts.degradedMaxAgeS * 1000
    ) {
      return fromResolution(cached.res, true, 'projection_layer_unreachable')
    }
    return refuse(
      'bearer',
      unavailable(
        'authority_unavailable',
        'The projection layer is unavailable and this token has no cached resolution.',
        {
          reason: answer.reason,
        },
      ),
    )
  }

  function fromResolution(res: Resolution, cached: boolean, degradedReason: string | null): Authority {
    return {
      lane: 'bearer',
      subject: res.subject,
      read: res.read,
      write: res.write,
      authority_source: 'projection',
      projection_version: res.projection_version,
      cached,
      degraded: degradedReason !== null,
      degraded_reason: degradedReason,
    }
  }

  async function resolveBearer(token: string, level: Level): Promise<Authority> {
    if (!opts.baseUrl) {
      const local = opts.localTokens.get(sha256Hex(token))
      if (!local)
        return refuse(
          'bearer',
          unauthorized('unknown_token', 'The bearer token is not in the local token list.'),
        )
      if (opts.production && level === 'write') {
        return refuse(
          'bearer',
          unavailable(
            'authority_unavailable',
            'No projection layer is configured; write and control routes fail closed in production.',
          ),
        )
      }
      return {
        lane: 'bearer',
        subject: local.subject,
        read: local.read,
        write: local.write,
        authority_source: 'local',
        projection_version: null,
        cached: false,
        degraded: opts.production,
        degraded_reason: opts.production ? 'projection_layer_not_configured' : null,
      }
    }
    const key = sha256Hex(token)
    const cached = cache.get(key)
    const now = Date.now()
    const fresh = cached && now - cached.fetchedAt < ttlMs && now < Date.parse(cached.res.expires_at)
    if (cached && fresh && layer.reachable !== false) return fromResolution(cached.res, true, null)
    // Once the layer is known down, writes re-check it (and fail closed); reads say they are degraded.
    if (cached && fresh && level === 'read')
      return fromResolution(cached.res, true, 'projection_layer_unreachable')
    // Shared per token and level: a read's degraded answer must never serve a concurrent write.
    const flight = `${level}:${key}`
    const pending = inflight.get(flight)
    if (pending) return pending
    const p = fetchResolution(token, key, level).finally(() => inflight.delete(flight))
    inflight.set(flight, p)
    return p
  }

  async function refreshProjection(): Promise<void> {
    if (!opts.baseUrl) return
    projectionFetch ??= (async () => {
      const answer = await askLayer({
        url: `${opts.baseUrl}/api/v1/tool-policy-projection`,
        headers: headers(),
        timeoutMs: opts.timeoutMs,
        schema: ToolPolicyProjection,
      })
      if (answer.ok) {
        markUp()
        held = { version: answer.body.projection_version, agents: answer.body.agents, fetchedAt: Date.now() }
      } else {
        markDown(`${answer.reason}: ${answer.message}`)
      }
    })().finally(() => {
      projectionFetch = undefined
    })
    return projectionFetch
  }

  function projectionState(): 'current' | 'stale' | 'missing' | 'local' {
    if (!opts.baseUrl) return 'local'
    if (!held) return 'missing'
    return Date.now() - held.fetchedAt < ttlMs ? 'current' : 'stale'
  }

  /** The held tool-policy projection, refreshed when older than the bounded age. */
  async function currentProjection() {
    if (opts.baseUrl && projectionState() !== 'current') await refreshProjection()
    return { state: projectionState(), held }
  }

  async function agentLane(h: Headers, level: Level): Promise<Authority> {
    const agentId = h.get('x-svc-acting-agent-id')?.trim() || null
    const subjectRef = h.get('x-svc-actor-subject-ref')?.trim() || null
    const version = h.get('x-svc-policy-projection-version')?.trim() || null
    if (level === 'write') {
      return refuse(
        'agent',
        unauthorized(
          'bearer_required',
          'Write and control routes need a bearer token; the agent lane admits reads only.',
        ),
      )
    }
    if (!version) {
      return refuse(
        'agent',
        unauthorized('projection_version_required', 'The agent lane needs X-SVC-Policy-Projection-Version.'),
      )
    }
    if (!opts.baseUrl) {
      return refuse(
        'agent',
        unavailable(
          'policy_projection_missing',
          'No tool-policy projection is held (no projection layer configured); the agent lane fails closed.',
        ),
      )
    }
    let { state, held: p } = await currentProjection()
    if (
      state === 'current' &&
      p &&
      p.version !== version &&
      Date.now() - lastMismatchRefresh > MISMATCH_REFRESH_MS
    ) {
      lastMismatchRefresh = Date.now()
      await refreshProjection()
      ;({ state, held: p } = { state: projectionState(), held })
    }
    if (state !== 'current' || !p) {
      return refuse(
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
        'agent',
        unauthorized('agent_not_projected', 'The acting agent is not in the tool-policy projection.'),
      )
    if (agentId && subjectRef && agent.subject_ref !== subjectRef) {
      return refuse(
        'agent',
        unauthorized(
          'agent_identity_conflict',
          'The acting agent id and subject ref name different projected agents.',
        ),
      )
    }
    if (!agent.read)
      return refuse(
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

  /** Decide one request. Throws the refusal as an AppError; returns the authority used. */
  async function authorize(h: Headers, level: Level): Promise<Authority> {
    const header = h.get('authorization')
    if (header === null) {
      if (h.has('x-svc-acting-agent-id') || h.has('x-svc-actor-subject-ref')) {
        const a = await agentLane(h, level)
        decisions.inc({ lane: 'agent', outcome: 'admitted' })
        return a
      }
      return refuse(
        'none',
        unauthorized('authentication_required', 'This route needs Authorization: Bearer <token>.'),
      )
    }
    const match = /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(header.trim())
    if (!match)
      return refuse(
        'bearer',
        unauthorized('malformed_authorization', 'The Authorization header must be Bearer <token>.'),
      )
    const a = await resolveBearer(match[1]!, level)
    if (level === 'write' && a.degraded) {
      return refuse(
        'bearer',
        unavailable('authority_unavailable', 'Authority is degraded; write and control routes fail closed.'),
      )
    }
    if (level === 'write' && !a.write) {
      return refuse(
        'bearer',
        forbidden('write_not_authorized', 'The projected authority for this token does not include writes.'),
      )
    }
    if (level === 'read' && !a.read) {
      return refuse(
        'bearer',
        forbidden('read_not_authorized', 'The projected authority for this token does not include reads.'),
      )
    }
    decisions.inc({ lane: 'bearer', outcome: a.degraded ? 'admitted_degraded' : 'admitted' })
    return a
  }

  return {
    id: newId(),
    authorize,
    currentProjection,
    projectionState,
    refreshProjection,
    degraded: degradedNow,
    status() {
      return {
        mode: opts.baseUrl ? ('projection' as const) : ('local' as const),
        authority_source: opts.baseUrl ? ('projection' as const) : ('local' as const),
        projection_layer_configured: Boolean(opts.baseUrl),
        projection_layer_reachable: opts.baseUrl ? layer.reachable : null,
        last_success_at: layer.lastSuccessAt,
        last_failure_at: layer.lastFailureAt,
        last_error: layer.lastError,
        tool_policy_projection: {
          state: projectionState(),
          version: held?.version ?? null,
          fetched_at: held ? new Date(held.fetchedAt).toISOString() : null,
          agents: held?.agents.length ?? 0,
        },
        last_resolved_projection_version: layer.lastResolvedVersion,
        cache: { entries: cache.size, max_age_s: opts.cacheTtlS, degraded_max_age_s: opts.degradedMaxAgeS },
        degraded: degradedNow(),
        writes: degradedNow() ? ('fail_closed' as const) : ('available' as const),
      }
    },
  }
}

export const AuthorityMark = {
  authority_source: t.Union([t.Literal('projection'), t.Literal('local')]),
  authority: t.Object({
    lane: t.Union([t.Literal('bearer'), t.Literal('agent')]),
    subject: t.String(),
    projection_version: t.Union([t.String(), t.Null()]),
    cached: t.Boolean(),
    degraded: t.Boolean(),
    degraded_reason: t.Union([t.String(), t.Null()]),
  }),
}

/** What every internal JSON answer carries about the authority it was decided with. */
export function mark(a: Authority) {
  return {
    authority_source: a.authority_source,
    authority: {
      lane: a.lane,
      subject: a.subject,
      projection_version: a.projection_version,
      cached: a.cached,
      degraded: a.degraded,
      degraded_reason: a.degraded_reason,
    },
  }
}

/** The credentials RMS accepts, as OpenAPI security schemes (spec, Authentication 2-3). */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A token resolved by the projection layer (SVC_CONTEXT_BASE_URL), or an RMS_LOCAL_TOKENS entry.',
  },
  actingAgent: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Acting-Agent-Id',
    description: 'Agent lane: the acting agent id.',
  },
  actorSubject: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Actor-Subject-Ref',
    description: 'Agent lane: the actor subject.',
  },
  projectionVersion: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Policy-Projection-Version',
    description: 'Agent lane: must equal the tool-policy projection version RMS holds.',
  },
}

/** What each access level accepts: bearer everywhere, the agent lane on reads only. */
const SECURITY: Record<Level, Record<string, string[]>[]> = {
  read: [
    { bearerAuth: [] },
    { actingAgent: [], projectionVersion: [] },
    { actorSubject: [], projectionVersion: [] },
  ],
  write: [{ bearerAuth: [] }],
}

/**
 * The auth plugin: `access: 'read' | 'write'` on a route or guard decides authority before the
 * body is validated (an unauthenticated caller learns nothing about the schema), hands the
 * decision to the handler as `authority`, and declares the route's credentials in the OpenAPI
 * document (`detail.security`), so the document cannot disagree with what is enforced.
 */
export const authorityPlugin = (svc: AuthorityService) => {
  const decided = new WeakMap<Request, Authority>()
  return new Elysia({ name: 'rms:authority', seed: svc.id }).macro({
    access: (level: Level) => ({
      detail: { security: SECURITY[level] },
      async transform({ request, set }) {
        const authority = await svc.authorize(request.headers, level)
        decided.set(request, authority)
        set.headers['x-svc-authority-source'] = authority.authority_source
        set.headers['x-svc-authority-lane'] = authority.lane
        if (authority.projection_version)
          set.headers['x-svc-projection-version'] = authority.projection_version
        if (authority.degraded) set.headers['x-svc-authority-degraded'] = authority.degraded_reason ?? 'true'
      },
      resolve({ request }) {
        const authority = decided.get(request)
        if (!authority)
          throw unauthorized('authentication_required', 'This route needs Authorization: Bearer <token>.')
        return { authority }
      },
    }),
  })
}

export type AuthorityPlugin = ReturnType<typeof authorityPlugin>

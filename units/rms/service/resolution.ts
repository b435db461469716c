/**
 * Bearer tokens: resolved by the projection layer and cached with a bounded age, or looked up in
 * the local token list when no layer is configured. When the layer is down, reads continue only
 * for tokens already resolved (marked degraded) and writes fail closed.
 */
import { type Static, t } from 'elysia'
import { unauthorized, unavailable } from '../../../common/errors.ts'
import { sha256Hex } from '../../../common/hash.ts'
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

export const Resolution = t.Object({
  subject: t.String({ minLength: 1 }),
  read: t.Boolean(),
  write: t.Boolean(),
  projection_version: t.String({ minLength: 1 }),
  expires_at: t.String({ minLength: 1 }),
})
type Resolution = Static<typeof Resolution>

interface Cached {
  res: Resolution
  fetchedAt: number
}

/** Resolutions by token hash (insertion order = age), and the calls in flight per level and token. */
export interface ResolutionCache {
  entries: Map<string, Cached>
  inflight: Map<string, Promise<Authority>>
}

const MAX_CACHE_ENTRIES = 10_000

export const newResolutionCache = (): ResolutionCache => ({ entries: new Map(), inflight: new Map() })

/**
 * Authorities are values, never changed once made: the same decision is the same object, so what
 * is derived from it per request (the answer's authority mark, the cached view of it) is derived
 * once. Keyed by the resolution (or local token entry) they come from.
 */
const decided = new WeakMap<object, Map<string, Authority>>()
function once(from: object, key: string, make: () => Authority): Authority {
  let byKey = decided.get(from)
  if (byKey === undefined) {
    byKey = new Map()
    decided.set(from, byKey)
  }
  let a = byKey.get(key)
  if (a === undefined) {
    a = make()
    byKey.set(key, a)
  }
  return a
}

function fromResolution(res: Resolution, cached: boolean, degradedReason: string | null): Authority {
  return once(res, `${cached}:${degradedReason}`, () => ({
    lane: 'bearer',
    subject: res.subject,
    read: res.read,
    write: res.write,
    authority_source: 'projection',
    projection_version: res.projection_version,
    cached,
    degraded: degradedReason !== null,
    degraded_reason: degradedReason,
  }))
}

async function fetchResolution(
  core: AuthorityCore,
  cache: ResolutionCache,
  token: string,
  key: string,
  level: Level,
): Promise<Authority> {
  const { opts, layer } = core
  const cached = cache.entries.get(key)
  const now = Date.now()
  const answer = await askLayer(layer, {
    url: `${opts.baseUrl}/api/v1/authority/resolve`,
    method: 'POST',
    json: { token },
    headers: layerHeaders(opts),
    timeoutMs: opts.timeoutMs,
    schema: Resolution,
    acceptStatus: [404],
  })
  if (answer.ok && answer.status === 404) {
    markUp(layer)
    cache.entries.delete(key)
    return refuse(
      core,
      'bearer',
      unauthorized('unknown_token', 'The bearer token is not known to the projection layer.'),
    )
  }
  if (answer.ok) {
    markUp(layer)
    const res = answer.body
    const expires = Date.parse(res.expires_at)
    if (Number.isNaN(expires) || expires <= now) {
      cache.entries.delete(key)
      return refuse(
        core,
        'bearer',
        unauthorized('token_expired', 'The projected authority for this token has expired.'),
      )
    }
    layer.lastResolvedVersion = res.projection_version
    cache.entries.delete(key)
    cache.entries.set(key, { res, fetchedAt: now })
    if (cache.entries.size > MAX_CACHE_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!)
    return fromResolution(res, false, null)
  }
  markDown(core, `${answer.reason}: ${answer.message}`)
  if (level === 'write') {
    return refuse(
      core,
      'bearer',
      unavailable(
        'authority_unavailable',
        'The projection layer is unavailable; write and control routes fail closed.',
        { reason: answer.reason },
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
    core,
    'bearer',
    unavailable(
      'authority_unavailable',
      'The projection layer is unavailable and this token has no cached resolution.',
      { reason: answer.reason },
    ),
  )
}

function localAuthority(core: AuthorityCore, token: string, level: Level): Authority {
  const { opts } = core
  const local = opts.localTokens.get(sha256Hex(token))
  if (!local)
    return refuse(
      core,
      'bearer',
      unauthorized('unknown_token', 'The bearer token is not in the local token list.'),
    )
  if (opts.production && level === 'write') {
    return refuse(
      core,
      'bearer',
      unavailable(
        'authority_unavailable',
        'No projection layer is configured; write and control routes fail closed in production.',
      ),
    )
  }
  return once(local, String(opts.production), () => ({
    lane: 'bearer',
    subject: local.subject,
    read: local.read,
    write: local.write,
    authority_source: 'local',
    projection_version: null,
    cached: false,
    degraded: opts.production,
    degraded_reason: opts.production ? 'projection_layer_not_configured' : null,
  }))
}

/** The authority of a bearer token at a level: local list, fresh cache, or one shared layer call. */
export async function resolveBearer(
  core: AuthorityCore,
  cache: ResolutionCache,
  token: string,
  level: Level,
): Promise<Authority> {
  if (!core.opts.baseUrl) return localAuthority(core, token, level)
  const key = sha256Hex(token)
  const cached = cache.entries.get(key)
  const now = Date.now()
  const fresh =
    cached && now - cached.fetchedAt < core.opts.cacheTtlS * 1000 && now < Date.parse(cached.res.expires_at)
  if (cached && fresh && core.layer.reachable !== false) return fromResolution(cached.res, true, null)
  // Once the layer is known down, writes re-check it (and fail closed); reads say they are degraded.
  if (cached && fresh && level === 'read')
    return fromResolution(cached.res, true, 'projection_layer_unreachable')
  // Shared per token and level: a read's degraded answer must never serve a concurrent write.
  const flight = `${level}:${key}`
  const pending = cache.inflight.get(flight)
  if (pending) return pending
  const p = fetchResolution(core, cache, token, key, level).finally(() => cache.inflight.delete(flight))
  cache.inflight.set(flight, p)
  return p
}

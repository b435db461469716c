/**
 * The access plugin: applies the authority service (`service/authority.ts`) to routes, marks every
 * internal answer with the authority it was decided with, and declares the credentials in OpenAPI.
 */
import { Elysia, t } from 'elysia'
import { unauthorized } from '../../common/errors.ts'
import type { Authority, AuthorityService, Level } from './service/authority.ts'

export type { Authority, AuthorityService, Level } from './service/authority.ts'

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

const markKeys = new WeakMap<Authority, string>()

/**
 * The authority mark as text: what a cached view built with it varies by. Computed once per
 * authority (authorities are values, one object per decision: service/resolution.ts).
 */
export function markKey(a: Authority): string {
  let key = markKeys.get(a)
  if (key === undefined) {
    key = JSON.stringify(mark(a))
    markKeys.set(a, key)
  }
  return key
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

/** Where the decision waits for the route: on the request's `set`, which both hooks receive. */
const DECIDED = Symbol('rms.authority')
type Carrier = { [DECIDED]?: Authority }

/**
 * The auth plugin: `access: 'read' | 'write'` on a route or guard decides authority before the
 * body is validated (an unauthenticated caller learns nothing about the schema), hands the
 * decision to the handler as `authority`, and declares the route's credentials in the OpenAPI
 * document (`detail.security`), so the document cannot disagree with what is enforced.
 */
export const authorityPlugin = (svc: AuthorityService) => {
  return new Elysia({ name: 'rms:authority', seed: svc.id }).macro({
    access: (level: Level) => ({
      detail: { security: SECURITY[level] },
      async transform({ request, set }) {
        const authority = await svc.authorize(request.headers, level)
        ;(set as Carrier)[DECIDED] = authority
        set.headers['x-svc-authority-source'] = authority.authority_source
        set.headers['x-svc-authority-lane'] = authority.lane
        if (authority.projection_version)
          set.headers['x-svc-projection-version'] = authority.projection_version
        if (authority.degraded) set.headers['x-svc-authority-degraded'] = authority.degraded_reason ?? 'true'
      },
      resolve({ set }) {
        const authority = (set as Carrier)[DECIDED]
        if (!authority)
          throw unauthorized('authentication_required', 'This route needs Authorization: Bearer <token>.')
        return { authority }
      },
    }),
  })
}

export type AuthorityPlugin = ReturnType<typeof authorityPlugin>

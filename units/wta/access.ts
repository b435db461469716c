/**
 * The optional bearer token of WTA and its mailbox adapter (CONTRACTS.md §3): with
 * `SVC_API_TOKEN` set, a route marked `guarded: true` needs `Authorization: Bearer <token>`
 * (compared in constant time) and says so in the OpenAPI document; unset, the route is open and
 * the document declares no security. The one place both units check it, until the shared
 * `common/credentials.ts` lands.
 */
import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { unauthorized } from '../../common/errors.ts'
import { safeEqual } from '../../common/hash.ts'

export const API_TOKEN_ENV = {
  SVC_API_TOKEN: T.Optional(
    T.String({ minLength: 16, description: 'a bearer token of 16+ characters (unset: the API is open)' }),
  ),
}

export const BEARER_SCHEME = { bearer: { type: 'http', scheme: 'bearer' } }

/** Whether `header` carries exactly `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return match?.[1] !== undefined && safeEqual(match[1], token)
}

/** The `guarded` macro: open when `token` is undefined. */
export function apiAccess(token: string | undefined) {
  return new Elysia({ name: 'wta:access', seed: token ?? 'open' }).macro({
    guarded: {
      detail: token ? { security: [{ bearer: [] }] } : {},
      transform({ request }) {
        if (token === undefined) return
        if (!bearerMatches(request.headers.get('authorization'), token)) {
          throw unauthorized(
            'authentication_required',
            'This route needs Authorization: Bearer <SVC_API_TOKEN>.',
          )
        }
      },
    },
  })
}

/**
 * The optional bearer token of WTA (CONTRACTS.md §3): with `SVC_API_TOKEN` set, every route but
 * `/api/v1/health` needs `Authorization: Bearer <token>`; unset, the API is open, declares no
 * security, and says so in status. Enforced by the shared credentials block (`auth: 'bearer'`).
 */
import { Type as T } from '@sinclair/typebox'
import { credentials } from '../../common/credentials.ts'
import { safeEqual, sha256Hex } from '../../common/hash.ts'

export const API_TOKEN_ENV = {
  SVC_API_TOKEN: T.Optional(
    T.String({ minLength: 16, description: 'a bearer token of 16+ characters (unset: the API is open)' }),
  ),
}

export const apiCredentials = (token: string | undefined) =>
  credentials({
    bearer: { kind: 'bearer', tokens: [token], openWhenUnset: true, description: 'SVC_API_TOKEN (when set)' },
  })

export type ApiCredentials = ReturnType<typeof apiCredentials>

/**
 * For the one route the block cannot guard, the OpenAPI document the runtime serves: whether
 * `header` carries exactly `Bearer <token>` (digests compared in constant time, as the block does).
 */
export function bearerMatches(header: string | null, token: string): boolean {
  const match = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(header ?? '')
  return match?.[1] !== undefined && safeEqual(sha256Hex(match[1]), sha256Hex(token))
}

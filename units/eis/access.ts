/**
 * Trusted internal callers: `Authorization: Bearer <EIS_INTERNAL_TOKEN>` (CONTRACTS.md §3).
 * The one place EIS checks it, declared in OpenAPI where it is enforced. With the token unset no
 * caller is trusted: the internal routes refuse everything (fail closed).
 *
 * An ERP session cookie (the spec's other way in) only exists when the ERP backend is a real
 * Frappe; it is out of scope here (docs/units/eis.md).
 */
import { Elysia } from 'elysia'
import { unauthorized } from '../../common/errors.ts'
import { safeEqual } from '../../common/hash.ts'

export const INTERNAL_SCHEME = 'internalBearer'

export const securitySchemes = {
  [INTERNAL_SCHEME]: { type: 'http', scheme: 'bearer', description: 'EIS_INTERNAL_TOKEN' },
  mcpKey: { type: 'apiKey', in: 'header', name: 'X-SVC-Key', description: 'EIS_MCP_KEY' },
}

const BEARER = /^Bearer\s+(.+)$/i

export function trustedCaller(authorization: string | null, token: string | undefined): boolean {
  if (!token || !authorization) return false
  const given = BEARER.exec(authorization.trim())?.[1]
  return given !== undefined && safeEqual(given, token)
}

/** `{ internal: true }` on a route or guard: checked before the body's schema, so a stranger learns nothing. */
export const internalAccess = (token: string | undefined) =>
  new Elysia({ name: 'eis:internal-access' }).macro({
    internal: (on: boolean) =>
      on
        ? {
            detail: { security: [{ [INTERNAL_SCHEME]: [] }] },
            transform({ request }) {
              if (!trustedCaller(request.headers.get('authorization'), token)) {
                throw unauthorized(
                  'internal_caller_required',
                  'This route needs Authorization: Bearer <EIS_INTERNAL_TOKEN>.',
                )
              }
            },
          }
        : {},
  })

/**
 * Who may call a project route: the operator session (`pm_session`, CONTRACTS.md §3). This is
 * the one place PWS checks credentials; a route says `role: 'viewer' | 'operator' | 'admin'`
 * and gets `session`. The check itself is a `SessionVerifier`, so the shared session block
 * replaces it in one line.
 */
import { Elysia } from 'elysia'
import { forbidden, unauthorized } from '../../common/errors.ts'

export const ROLES = ['viewer', 'operator', 'admin'] as const
export type Role = (typeof ROLES)[number]
export const SESSION_COOKIE = 'pm_session'

export interface OperatorSession {
  sub: string
  role: Role
}

export type SessionVerdict =
  | { ok: true; session: OperatorSession }
  | { ok: false; reason: 'missing' | 'stale' | 'invalid' }

/** Reads the cookie's value (undefined when absent) and decides. */
export interface SessionVerifier {
  verify(token: string | undefined): Promise<SessionVerdict>
}

export const roleAtLeast = (have: Role, need: Role) => ROLES.indexOf(have) >= ROLES.indexOf(need)

export const SECURITY_SCHEMES = {
  pmSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'Operator session: a compact JWS (HS256) with sub, role, iat, exp, auth_time.',
  },
}

export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined
  }
  return undefined
}

const REFUSAL = {
  missing: ['session_required', 'This route needs an operator session (cookie pm_session).'],
  stale: ['session_stale', 'The operator session has expired; log in again.'],
  invalid: ['session_invalid', 'The operator session is not valid; log in again.'],
} as const

/**
 * The access macro: decided in `transform`, before the body is validated, so a caller without a
 * session learns nothing about the schema; declares the route's security in OpenAPI.
 */
export const accessPlugin = (verifier: SessionVerifier) => {
  const decided = new WeakMap<Request, OperatorSession>()
  return new Elysia({ name: 'pws:access' }).macro({
    role: (need: Role) => ({
      detail: { security: [{ pmSession: [] }] },
      async transform({ request }) {
        const verdict = await verifier.verify(cookieValue(request.headers.get('cookie'), SESSION_COOKIE))
        if (!verdict.ok) {
          const [code, message] = REFUSAL[verdict.reason]
          throw unauthorized(code, message)
        }
        if (!roleAtLeast(verdict.session.role, need)) {
          throw forbidden('insufficient_role', `This route needs the ${need} role.`, {
            required_role: need,
            session_role: verdict.session.role,
          })
        }
        decided.set(request, verdict.session)
      },
      resolve({ request }) {
        const session = decided.get(request)
        if (!session) throw unauthorized(...REFUSAL.missing)
        return { session }
      },
    }),
  })
}

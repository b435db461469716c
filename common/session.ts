/**
 * Operator sessions: the `pm_session` cookie (CONTRACTS.md §3, PWS).
 *
 * The cookie holds a compact JWS, HS256 with `PWS_SESSION_SECRET`, signed and verified by `jose`
 * (only HS256 is accepted: `alg: none` or any other algorithm is refused). Claims: `sub`, `role`
 * (`viewer` < `operator` < `admin`), `iat`, `exp`, `auth_time` (seconds).
 *
 * Freshness. `PWS_SESSION_MAX_AGE_S` (default 28800 = 8 hours, one working day; 60 s to 7 days)
 * bounds both the cookie's lifetime (`exp = iat + max age`) and how long ago the operator signed in
 * (`auth_time`): an expired session, or one whose sign-in is older than the max age (re-issued
 * sessions keep the original `auth_time`), is stale: 401 `session_stale`. No cookie: 401
 * `session_required`; a cookie that does not verify: 401 `session_invalid`; a valid session with
 * too low a role: 403 `insufficient_role`, naming the required role. Checked before the body is
 * parsed into the route's schema.
 *
 * Cookie attributes: HttpOnly, SameSite=Lax, Path=/, Max-Age = the max age (the session's lifetime),
 * Secure except in development (plain http://localhost). Set through Elysia's cookie support.
 *
 * Secret: at least 32 characters; required in production (`sessionConfigProblems`). Unset
 * outside production, a random secret is made per process, so sessions end at restart.
 *
 * Usage:
 *   const sessions = sessionPlugin(sessionOptions(c))
 *   routes.use(sessions).get('/api/v1/owner-facts', ({ session }) => …, { session: 'operator' })
 *   on login: setSessionCookie(cookie, opts, await issueSession(opts, { sub, role }))
 */
import { randomBytes } from 'node:crypto'
import { Type as T } from '@sinclair/typebox'
import { type Cookie, Elysia } from 'elysia'
import { errors, jwtVerify, SignJWT } from 'jose'
import { forbidden, unauthorized, unavailable } from './errors.ts'
import { newId } from './time.ts'

export const SESSION_COOKIE = 'pm_session'
export const ROLES = ['viewer', 'operator', 'admin'] as const
export type Role = (typeof ROLES)[number]

/** One working day: an operator signs in once a day. */
export const DEFAULT_SESSION_MAX_AGE_S = 28_800
export const MIN_SESSION_SECRET_LENGTH = 32
const ALG = 'HS256'
/** Clock skew allowed between the issuing and the verifying process. */
const CLOCK_TOLERANCE_S = 5

/** The variables PWS spreads into its `env` schema. */
export const sessionEnv = {
  PWS_SESSION_SECRET: T.Optional(
    T.String({
      minLength: MIN_SESSION_SECRET_LENGTH,
      description: `HS256 secret of the pm_session cookie, at least ${MIN_SESSION_SECRET_LENGTH} characters (required in production)`,
    }),
  ),
  PWS_SESSION_MAX_AGE_S: T.Integer({
    minimum: 60,
    maximum: 604_800,
    default: DEFAULT_SESSION_MAX_AGE_S,
    description: 'seconds 60-604800 a session and its sign-in stay fresh (default 28800)',
  }),
}

export interface SessionOptions {
  /** Undefined: every session route refuses a cookie with 503 (fail closed). */
  secret: string | undefined
  maxAgeS: number
  /** The cookie's Secure attribute: true except in development. */
  secure: boolean
}

export interface Session {
  sub: string
  role: Role
  iat: number
  exp: number
  auth_time: number
}

interface SessionEnvConfig {
  SVC_ENV: string
  PWS_SESSION_SECRET?: string
  PWS_SESSION_MAX_AGE_S: number
}

/** Start-up problems, one line per variable: production needs the secret. */
export function sessionConfigProblems(c: SessionEnvConfig): string[] {
  return c.SVC_ENV === 'production' && !c.PWS_SESSION_SECRET
    ? ['PWS_SESSION_SECRET: required in production (at least 32 characters)']
    : []
}

/** Options from the validated configuration (see the module comment for the unset secret). */
export function sessionOptions(c: SessionEnvConfig): SessionOptions {
  const secret =
    c.PWS_SESSION_SECRET ?? (c.SVC_ENV === 'production' ? undefined : randomBytes(32).toString('base64url'))
  return { secret, maxAgeS: c.PWS_SESSION_MAX_AGE_S, secure: c.SVC_ENV !== 'development' }
}

const keyOf = (secret: string) => new TextEncoder().encode(secret)
const seconds = (ms: number) => Math.floor(ms / 1000)

/**
 * A signed session for `sub` with `role`, valid for the max age from `now` (ms). `authTime`
 * (seconds) is when the operator signed in; keep the original one when re-issuing.
 */
export async function issueSession(
  opts: SessionOptions,
  claims: { sub: string; role: Role; authTime?: number },
  now: number = Date.now(),
): Promise<string> {
  if (!opts.secret) throw new Error('issueSession: no session secret configured')
  const iat = seconds(now)
  return new SignJWT({ role: claims.role, auth_time: claims.authTime ?? iat })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + opts.maxAgeS)
    .sign(keyOf(opts.secret))
}

export type SessionCheck =
  | { ok: true; session: Session }
  | { ok: false; code: 'session_invalid' | 'session_stale'; message: string }

const isRole = (value: unknown): value is Role => ROLES.includes(value as Role)

/** Verify a cookie value: signature and algorithm, claims, and freshness. `now` in ms. */
export async function readSession(
  opts: SessionOptions & { secret: string },
  token: string,
  now: number = Date.now(),
): Promise<SessionCheck> {
  const invalid = { ok: false, code: 'session_invalid', message: 'The session cookie is not valid.' } as const
  const stale = {
    ok: false,
    code: 'session_stale',
    message: 'The session is stale; sign in again.',
  } as const
  let payload: Record<string, unknown>
  try {
    ;({ payload } = await jwtVerify(token, keyOf(opts.secret), {
      algorithms: [ALG],
      currentDate: new Date(now),
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'iat', 'exp', 'auth_time'],
    }))
  } catch (err) {
    return err instanceof errors.JWTExpired ? stale : invalid
  }
  const { sub, role, iat, exp, auth_time } = payload
  if (typeof sub !== 'string' || !isRole(role) || typeof iat !== 'number' || typeof exp !== 'number')
    return invalid
  if (typeof auth_time !== 'number' || auth_time > seconds(now) + CLOCK_TOLERANCE_S) return invalid
  if (seconds(now) - auth_time > opts.maxAgeS) return stale
  return { ok: true, session: { sub, role, iat, exp, auth_time } }
}

type CookieJar = Record<string, Cookie<unknown>>

/** Set `pm_session` to a token just issued, with the module's attributes; it expires with the session. */
export function setSessionCookie(cookie: CookieJar, opts: SessionOptions, token: string): void {
  cookie[SESSION_COOKIE]?.set({
    value: token,
    httpOnly: true,
    sameSite: 'lax',
    secure: opts.secure,
    path: '/',
    maxAge: opts.maxAgeS,
  })
}

/** Sign out: the browser drops `pm_session`. */
export function clearSessionCookie(cookie: CookieJar, opts: SessionOptions): void {
  cookie[SESSION_COOKIE]?.set({
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    secure: opts.secure,
    path: '/',
    maxAge: 0,
  })
}

/**
 * The `session` macro: `{ session: 'operator' }` admits a fresh session whose role is at least
 * `operator`, hands it to the handler as `session`, and declares `security: [{ pm_session: [] }]`.
 * `securitySchemes` is the cookie apiKey scheme the unit returns beside its routes.
 */
export function sessionPlugin(opts: SessionOptions) {
  const admitted = new WeakMap<Request, Session>()
  const securitySchemes: Record<string, Record<string, unknown>> = {
    [SESSION_COOKIE]: {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
      description: 'Operator session: a compact JWS (HS256) with sub, role, iat, exp, auth_time.',
    },
  }
  const plugin = new Elysia({ name: 'session', seed: newId() }).macro({
    session: (required: Role) => ({
      detail: { security: [{ [SESSION_COOKIE]: [] }] },
      async transform({ request, cookie }) {
        const token = cookie[SESSION_COOKIE]?.value
        if (typeof token !== 'string' || token === '') {
          throw unauthorized(
            'session_required',
            `This route needs an operator session (cookie ${SESSION_COOKIE}).`,
          )
        }
        if (!opts.secret) {
          throw unavailable(
            'session_not_configured',
            'No session secret is configured; sessions fail closed.',
          )
        }
        const check = await readSession({ ...opts, secret: opts.secret }, token)
        if (!check.ok) throw unauthorized(check.code, check.message)
        if (ROLES.indexOf(check.session.role) < ROLES.indexOf(required)) {
          throw forbidden('insufficient_role', `This route needs the ${required} role or higher.`, {
            required_role: required,
            role: check.session.role,
          })
        }
        admitted.set(request, check.session)
      },
      resolve({ request }) {
        const session = admitted.get(request)
        if (!session) throw unauthorized('session_required', 'This route needs an operator session.')
        return { session }
      },
    }),
  })
  return Object.assign(plugin, { securitySchemes })
}

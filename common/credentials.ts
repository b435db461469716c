/**
 * Credentials: one macro that enforces a route's credentials and declares them in OpenAPI.
 *
 * A unit names its schemes once; each is one of
 * - `bearer`: `Authorization: Bearer <token>` equal to one of `tokens` (static tokens such as
 *   `EIS_INTERNAL_TOKEN`; list two during a rotation). With `openWhenUnset: true` and no token
 *   configured, routes using it are open and declare no security (WTA, mailbox `SVC_API_TOKEN`);
 *   without it, no token configured fails closed (503 `credentials_not_configured`).
 * - `apiKey`: `Authorization: Bearer <key>` whose SHA-256 hex (`hashApiKey`) the unit's `lookup`
 *   finds in its store (NDS keys); `lookup` returns the key's subject (for example its id) or
 *   undefined. Only hashes are stored and looked up; the key itself is never kept.
 * - `header`: a header (for example `X-SVC-Key`) equal to one of `keys` (EIS MCP key).
 *
 * `{ auth: 'name' }` (or `['a', 'b']`: any one of them) on a route or guard checks the credential
 * before the body is parsed into the schema (an anonymous caller learns nothing about it), hands
 * `principal` (`{ scheme, subject }`, null on an open route) to the handler, and adds
 * `detail.security` to the route; `securitySchemes` is what the unit returns beside its routes.
 * So the document says a route needs credentials exactly when the route refuses a request
 * without them (test/surfaces.test.ts checks this for every unit).
 *
 * Refusals: 401 `unauthorized` (missing or wrong; bearer schemes add `WWW-Authenticate: Bearer`),
 * never echoing the token. Static tokens are compared in constant time (their SHA-256, so the
 * length does not leak either). The token is read by `@elysiajs/bearer` from the Authorization
 * header only: its RFC 6750 `access_token` query fallback is refused, as query strings end up in
 * proxy logs.
 *
 * Usage:
 *   const creds = credentials({ internal: { kind: 'bearer', tokens: [c.EIS_INTERNAL_TOKEN] }, mcp: { kind: 'header', header: 'X-SVC-Key', keys: [c.EIS_MCP_KEY] } })
 *   const routes = new Elysia().use(creds).post('/internal/x', ({ principal }) => …, { auth: 'internal', body: … })
 *   return { routes, securitySchemes: creds.securitySchemes }
 */
import { randomBytes } from 'node:crypto'
import { bearer } from '@elysiajs/bearer'
import { Elysia } from 'elysia'
import { AppError, unauthorized, unavailable } from './errors.ts'
import { safeEqual, sha256Hex } from './hash.ts'
import { newId } from './time.ts'

interface Described {
  /** Shown in the OpenAPI security scheme. */
  description?: string
}

export type Credential = Described &
  (
    | { kind: 'bearer'; tokens: readonly (string | undefined)[]; openWhenUnset?: boolean }
    | {
        kind: 'apiKey'
        /** The subject of the key whose SHA-256 hex is `keyHash`, or undefined for an unknown key. */
        lookup: (keyHash: string) => Promise<string | undefined> | string | undefined
      }
    | { kind: 'header'; header: string; keys: readonly (string | undefined)[] }
  )

/** Who a request was admitted as: the scheme that admitted it and its subject. */
export interface Principal {
  scheme: string
  subject: string
}

/** Longest token accepted; anything longer is refused unread. */
export const MAX_TOKEN_LENGTH = 4096
const TOKEN = /^[\x21-\x7e]+$/

/** What `apiKey` lookups compare: lowercase hex SHA-256 of the key as presented. */
export const hashApiKey = (key: string): string => sha256Hex(key)

/** A new random API key (256 bits, base64url) with a readable prefix: `<prefix>_<random>`. */
export const generateApiKey = (prefix = 'svc'): string => `${prefix}_${randomBytes(32).toString('base64url')}`

type Outcome = Principal | 'absent' | 'wrong' | 'unconfigured'

/** Where an admitted request's principal waits for `resolve`: on the request's `set` object. */
const ADMITTED = Symbol('svc.principal')
type Settable = { headers: Record<string, unknown> }
type PrincipalCarrier = { [ADMITTED]?: Principal }

const configured = (values: readonly (string | undefined)[]) =>
  values.filter((v): v is string => typeof v === 'string' && v !== '').map(sha256Hex)

/** Constant-time membership: every configured digest is compared, whatever matches first. */
function oneOf(given: string, digests: readonly string[]): boolean {
  const digest = sha256Hex(given)
  let found = false
  for (const d of digests) found = safeEqual(digest, d) || found
  return found
}

function scheme(c: Credential): Record<string, unknown> {
  const description = c.description ? { description: c.description } : {}
  return c.kind === 'header'
    ? { type: 'apiKey', in: 'header', name: c.header, ...description }
    : { type: 'http', scheme: 'bearer', ...description }
}

/**
 * The credentials plugin over the unit's named schemes: the `auth` macro and `securitySchemes`.
 * Build it once per unit instance (from configuration) and `.use` it where routes need it.
 */
export function credentials<const C extends Record<string, Credential>>(schemes: C) {
  type Name = keyof C & string
  const digests = new Map<string, string[]>()
  for (const [name, c] of Object.entries(schemes)) {
    if (c.kind === 'bearer') digests.set(name, configured(c.tokens))
    if (c.kind === 'header') digests.set(name, configured(c.keys))
  }
  const isOpen = (name: string) => {
    const c = schemes[name]
    return c?.kind === 'bearer' && c.openWhenUnset === true && digests.get(name)?.length === 0
  }
  const schemeOf = (name: string): Credential => {
    const c = schemes[name]
    if (!c) throw new AppError(500, 'credential_scheme_unknown', `No credential scheme named ${name}.`)
    return c
  }
  /** What the caller presented for a scheme: its header's value, or the bearer token. */
  const presented = (c: Credential, request: Request, token: string | undefined) =>
    c.kind === 'header' ? (request.headers.get(c.header) ?? undefined) : token
  /** A value no scheme could accept: too long, or not token characters. */
  const malformed = (given: string) => given.length > MAX_TOKEN_LENGTH || !TOKEN.test(given)

  /** A static scheme's outcome (bearer tokens, header keys): decided without waiting. */
  function staticOutcome(name: string, given: string | undefined): Outcome {
    if (!given) return 'absent'
    if (malformed(given)) return 'wrong'
    const known = digests.get(name) ?? []
    if (known.length === 0) return 'unconfigured'
    return oneOf(given, known) ? { scheme: name, subject: name } : 'wrong'
  }

  async function outcome(name: string, request: Request, token: string | undefined): Promise<Outcome> {
    const c = schemeOf(name)
    const given = presented(c, request, token)
    if (c.kind !== 'apiKey') return staticOutcome(name, given)
    if (!given) return 'absent'
    if (malformed(given)) return 'wrong'
    const subject = await c.lookup(hashApiKey(given))
    return subject === undefined ? 'wrong' : { scheme: name, subject }
  }

  /** Admit (the principal kept on the request's `set` for `resolve`) or throw the refusal. */
  function decide(outcomes: Outcome[], set: Settable, wantsBearer: boolean): void {
    const principal = outcomes.find((o): o is Principal => typeof o === 'object')
    if (principal) {
      ;(set as PrincipalCarrier)[ADMITTED] = principal
      return
    }
    const wrong = outcomes.includes('wrong')
    if (!wrong && outcomes.includes('unconfigured')) {
      throw unavailable(
        'credentials_not_configured',
        'No credential is configured for this route; it fails closed.',
      )
    }
    if (wantsBearer) set.headers['www-authenticate'] = wrong ? 'Bearer error="invalid_token"' : 'Bearer'
    throw unauthorized(
      'unauthorized',
      wrong ? 'The presented credential is not valid for this route.' : 'This route needs credentials.',
    )
  }

  /** The token, from the Authorization header only (the plugin also reads `?access_token=`). */
  const headerToken = (request: Request, token: string | undefined) =>
    request.headers.get('authorization')?.startsWith('Bearer ') ? token : undefined

  const securitySchemes: Record<string, Record<string, unknown>> = Object.fromEntries(
    Object.entries(schemes).map(([name, c]) => [name, scheme(c)]),
  )

  const plugin = new Elysia({ name: 'credentials', seed: newId() }).use(bearer()).macro({
    auth: (wanted: Name | readonly Name[]) => {
      const names: readonly string[] = typeof wanted === 'string' ? [wanted] : wanted
      if (names.some(isOpen)) return { resolve: () => ({ principal: null as Principal | null }) }
      const wantsBearer = names.some((n) => schemes[n]?.kind !== 'header')
      const detail = { security: names.map((n) => ({ [n]: [] })) }
      const resolve = ({ set }: { set: Settable }) => {
        const principal = (set as PrincipalCarrier)[ADMITTED]
        if (!principal) throw unauthorized('unauthorized', 'This route needs credentials.')
        return { principal: principal as Principal | null }
      }
      if (names.some((n) => schemes[n]?.kind === 'apiKey')) {
        return {
          detail,
          async transform({ request, bearer: token, set }) {
            const fromHeader = headerToken(request, token)
            const outcomes: Outcome[] = []
            for (const n of names) outcomes.push(await outcome(n, request, fromHeader))
            decide(outcomes, set, wantsBearer)
          },
          resolve,
        }
      }
      // Static schemes only: decided synchronously, so the route's handler need not await it
      // (an asynchronous hook makes Elysia await on every request, docs/benchmarks.md).
      const statics = names.map((name) => ({ name, c: schemeOf(name) }))
      return {
        detail,
        transform({ request, bearer: token, set }) {
          const fromHeader = headerToken(request, token)
          const outcomes: Outcome[] = []
          for (const { name, c } of statics)
            outcomes.push(staticOutcome(name, presented(c, request, fromHeader)))
          decide(outcomes, set, wantsBearer)
        },
        resolve,
      }
    },
  })
  return Object.assign(plugin, { securitySchemes })
}

/**
 * Signed routes: the exact bytes a route was sent, and HMAC-SHA256 signature checks on them.
 *
 * Raw body. A route opts in with the `rawBody: true` macro (or `signed`, which implies it); only
 * those routes keep the bytes. The wire plugin still applies the content-type rule, then leaves the
 * body unread for them (its `rawBodyRoutes` option, filled by `rawBodyRouteKeys(routes)`, which
 * the unit runner does for every unit); the route's own parse hook reads the bytes once, keeps them,
 * and parses JSON with the wire's checks (`parseJsonText`). Every other route is parsed as before.
 *
 * Profiles (`SignatureProfile`):
 * - `hmacHex(header)`: header = hex HMAC-SHA256 of the raw body, optional `sha256=` prefix
 *   (EIS `X-Signature`, GitHub-style `X-Hub-Signature-256`). Carries no timestamp, so no replay
 *   window: pair it with an `Idempotency-Key` where replays matter.
 * - `paddle(toleranceS = 300)`: `Paddle-Signature: ts=<unix>;h1=<hex HMAC-SHA256 of "<ts>:<raw
 *   body>">`; several `h1` are allowed (Paddle sends two while a secret rotates). A timestamp
 *   more than the tolerance in the past or the future is `signature_expired`; a signature already
 *   accepted within the window is `signature_replayed` (bounded in-memory cache per plugin).
 *
 * Every configured secret is tried (rotation: list the new and the old one), comparisons are
 * constant-time. Refusals are 401 envelopes, `signature_missing`, `signature_invalid`,
 * `signature_expired`, `signature_replayed`, checked before the body is parsed or validated; a
 * route whose secrets are all unset answers 503 `signature_not_configured` to a signed request
 * (fail closed). Messages never contain a secret or the expected signature.
 *
 * Usage:
 *   const signatures = signaturePlugin({ paddleSignature: { profile: paddle(), secrets: [c.PADDLE_WEBHOOK_SECRET] } })
 *   routes.use(signatures).post('/v1/webhooks/paddle', ({ body, rawBody }) => …, { signed: 'paddleSignature', body: … })
 *   return { routes, securitySchemes: signatures.securitySchemes }
 * Outbound / tests: `fetch(url, { method: 'POST', body, headers: signBody(hmacHex(), secret, body) })`.
 */
import { type AnyElysia, Elysia } from 'elysia'
import { AppError, unauthorized, unavailable } from './errors.ts'
import { hmacSha256Hex, safeEqual } from './hash.ts'
import { newId } from './time.ts'
import { parseJsonText } from './wire.ts'

export type SignatureProfile =
  | { kind: 'hmac-hex'; header: string }
  | { kind: 'paddle'; header: string; toleranceS: number }

/** Paddle's documented tolerance: five minutes either side of the receiver's clock. */
export const PADDLE_TOLERANCE_S = 300
/** At most this many accepted signatures are remembered per plugin (oldest forgotten first). */
export const REPLAY_CACHE_MAX = 10_000

export const hmacHex = (header = 'X-Signature'): SignatureProfile => ({ kind: 'hmac-hex', header })
export const paddle = (toleranceS = PADDLE_TOLERANCE_S): SignatureProfile => ({
  kind: 'paddle',
  header: 'Paddle-Signature',
  toleranceS,
})

export type SignatureFailure = 'signature_missing' | 'signature_invalid' | 'signature_expired'

export type SignatureResult =
  | {
      ok: true
      /** The signature that matched: the replay cache key. */
      signature: string
      /** Unix seconds of a timestamped profile. */
      timestamp?: number
    }
  | { ok: false; code: SignatureFailure; message: string }

type HeaderSource = Headers | Record<string, string | undefined>

const HEX_SHA256 = /^[0-9a-f]{64}$/
const encoder = new TextEncoder()

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value
  return undefined
}

function bytesOf(body: Uint8Array | string): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body
}

/** The bytes a timestamped profile signs: `<ts>:<raw body>`. */
function timestamped(ts: string, body: Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${ts}:`)
  const out = new Uint8Array(prefix.length + body.length)
  out.set(prefix)
  out.set(body, prefix.length)
  return out
}

/** The first given signature that one of the secrets produced over `data`, compared in constant time. */
function matching(
  secrets: readonly string[],
  data: Uint8Array,
  given: readonly string[],
): string | undefined {
  let found: string | undefined
  for (const secret of secrets) {
    const expected = hmacSha256Hex(secret, data)
    for (const candidate of given) if (safeEqual(candidate, expected)) found ??= candidate
  }
  return found
}

const fail = (code: SignatureFailure, message: string): SignatureResult => ({ ok: false, code, message })

/**
 * Check a request's signature. Pure: the replay cache is the caller's (the plugin keeps one).
 * `secrets` are the active secrets (empty strings and undefined are ignored; none configured is
 * `signature_invalid` here, the plugin answers 503 before calling). `now` is in milliseconds.
 */
export function verifySignature(
  profile: SignatureProfile,
  secrets: readonly (string | undefined)[],
  rawBody: Uint8Array | string,
  headers: HeaderSource,
  now: number = Date.now(),
): SignatureResult {
  const active = activeSecrets(secrets)
  const value = header(headers, profile.header)?.trim()
  if (!value) return fail('signature_missing', `This route needs a ${profile.header} header.`)
  const body = bytesOf(rawBody)
  if (profile.kind === 'hmac-hex') {
    const given = value.replace(/^sha256=/i, '').toLowerCase()
    if (!HEX_SHA256.test(given)) {
      return fail(
        'signature_invalid',
        `${profile.header} must be a hex HMAC-SHA256, optionally prefixed sha256=.`,
      )
    }
    const signature = matching(active, body, [given])
    return signature
      ? { ok: true, signature }
      : fail('signature_invalid', `${profile.header} does not match the request body.`)
  }
  const parts = value.split(';').map((part) => part.trim().split('='))
  const ts = parts.find(([key]) => key === 'ts')?.[1]
  const given = parts
    .filter(([key, v]) => key === 'h1' && v !== undefined)
    .map(([, v]) => (v as string).toLowerCase())
    .filter((v) => HEX_SHA256.test(v))
  if (!ts || !/^\d{1,12}$/.test(ts) || given.length === 0) {
    return fail('signature_invalid', `${profile.header} must read ts=<unix seconds>;h1=<hex HMAC-SHA256>.`)
  }
  const timestamp = Number(ts)
  const skew = now / 1000 - timestamp
  if (Math.abs(skew) > profile.toleranceS) {
    return fail(
      'signature_expired',
      `The signature timestamp is more than ${profile.toleranceS} s in the ${skew > 0 ? 'past' : 'future'}.`,
    )
  }
  const signature = matching(active, timestamped(ts, body), given)
  return signature
    ? { ok: true, signature, timestamp }
    : fail('signature_invalid', `${profile.header} does not match the request body.`)
}

/** The headers that sign `rawBody` for `profile` (tests, and outbound calls such as WEB's webhook). */
export function signBody(
  profile: SignatureProfile,
  secret: string,
  rawBody: Uint8Array | string,
  now: number = Date.now(),
): Record<string, string> {
  const body = bytesOf(rawBody)
  const name = profile.header.toLowerCase()
  if (profile.kind === 'hmac-hex') return { [name]: hmacSha256Hex(secret, body) }
  const ts = String(Math.floor(now / 1000))
  return { [name]: `ts=${ts};h1=${hmacSha256Hex(secret, timestamped(ts, body))}` }
}

/** The configured secrets, unset and empty ones dropped. */
export const activeSecrets = (secrets: readonly (string | undefined)[]): string[] =>
  secrets.filter((s): s is string => typeof s === 'string' && s !== '')

export interface ReplayCache {
  /** True when `key` was already accepted and has not expired; otherwise remembers it. */
  seen(key: string, now?: number): boolean
  readonly size: number
}

/** Accepted signatures, each forgotten after `ttlMs`; at most `max` kept (oldest dropped first). */
export function replayCache(ttlMs: number, max = REPLAY_CACHE_MAX): ReplayCache {
  const expiries = new Map<string, number>()
  return {
    seen(key, now = Date.now()) {
      for (const [k, expiry] of expiries) {
        if (expiry > now) break
        expiries.delete(k)
      }
      const expiry = expiries.get(key)
      if (expiry !== undefined && expiry > now) return true
      if (expiries.size >= max) expiries.delete(expiries.keys().next().value as string)
      expiries.set(key, now + ttlMs)
      return false
    },
    get size() {
      return expiries.size
    },
  }
}

/** The exact body a raw-body route was sent: its bytes and their UTF-8 text (BOM dropped, as `request.text()` does). */
export interface RawBody {
  bytes: Uint8Array
  text: string
}

const RAW_BODY_PARSER = Symbol('rawBodyParser')
const bodies = new WeakMap<Request, RawBody>()
const decoder = new TextDecoder()

async function readRawBody(request: Request): Promise<RawBody> {
  const kept = bodies.get(request)
  if (kept) return kept
  const bytes = new Uint8Array(await request.arrayBuffer())
  const raw = { bytes, text: decoder.decode(bytes) }
  bodies.set(request, raw)
  return raw
}

/** The raw body of a request on a raw-body route, once parsed (undefined on other routes). */
export const rawBodyOf = (request: Request): RawBody | undefined => bodies.get(request)

/**
 * Tags a parse hook so `rawBodyRouteKeys` can find the routes that use it: the wire plugin then
 * leaves their bodies to the hook (a route that bounds or measures its body itself).
 */
export function rawParser<F extends (...args: never[]) => unknown>(fn: F): F {
  Object.defineProperty(fn, RAW_BODY_PARSER, { value: true })
  return fn
}

/**
 * `METHOD /path` of every route in `app` that reads its own raw body: what the wire plugin's
 * `rawBodyRoutes` option needs so it leaves those bodies unread.
 */
export function rawBodyRouteKeys(app: AnyElysia): string[] {
  return app.routes
    .filter((route) => {
      const parse = (route.hooks as { parse?: { fn?: unknown }[] } | undefined)?.parse ?? []
      return parse.some(
        (hook) => (hook.fn as Record<symbol, unknown> | undefined)?.[RAW_BODY_PARSER] === true,
      )
    })
    .map((route) => `${route.method.toUpperCase()} ${route.path}`)
}

/** The body wire would have given, from the bytes: JSON parsed and checked, anything else as text. */
const parsedBody = (request: Request, raw: RawBody): unknown =>
  (request.headers.get('content-type') ?? '').toLowerCase().includes('json')
    ? parseJsonText(raw.text)
    : raw.text

/** Raw body of a route whose parse hook never ran (no body, GET): empty, unless wire consumed it. */
function rawBodyOrEmpty(request: Request): RawBody {
  const kept = bodies.get(request)
  if (kept) return kept
  if (request.bodyUsed) {
    throw new AppError(
      500,
      'raw_body_unavailable',
      'This route reads its raw body, but the body was parsed before (wire rawBodyRoutes not set).',
    )
  }
  return { bytes: new Uint8Array(), text: '' }
}

/** `rawBody: true`: the route gets `rawBody` (bytes and text) beside its parsed, checked `body`. */
export const rawBodyPlugin = new Elysia({ name: 'raw-body' }).macro({
  rawBody: (on: boolean) =>
    on
      ? {
          parse: rawParser(async ({ request }: { request: Request }) =>
            parsedBody(request, await readRawBody(request)),
          ),
          resolve: ({ request }: { request: Request }) => ({ rawBody: rawBodyOrEmpty(request) }),
        }
      : {},
})

export interface SignedRouteConfig {
  profile: SignatureProfile
  /** Active secrets, new and old during a rotation; unset ones are ignored. */
  secrets: readonly (string | undefined)[]
  /** Shown in the OpenAPI security scheme. */
  description?: string
}

/**
 * The `signed` macro over named verifiers: `{ signed: '<name>' }` on a route checks the named
 * profile with its secrets before the body is parsed, answers the refusals listed at the top,
 * gives the handler `rawBody`, and declares `security: [{ <name>: [] }]` in OpenAPI.
 * `securitySchemes` is what the unit lists in its OpenAPI components (one apiKey header each).
 */
export function signaturePlugin<const V extends Record<string, SignedRouteConfig>>(verifiers: V) {
  const caches = new Map<string, ReplayCache>()
  for (const [name, v] of Object.entries(verifiers)) {
    if (v.profile.kind === 'paddle') caches.set(name, replayCache(v.profile.toleranceS * 1000))
  }
  const verified = new WeakSet<Request>()

  const check = (name: string, request: Request, body: RawBody) => {
    const v = verifiers[name]
    if (!v) throw new AppError(500, 'signature_profile_unknown', `No signature profile named ${name}.`)
    const result = verifySignature(v.profile, v.secrets, body.bytes, request.headers)
    if (!result.ok && result.code === 'signature_missing') throw unauthorized(result.code, result.message)
    if (activeSecrets(v.secrets).length === 0) {
      throw unavailable(
        'signature_not_configured',
        'No secret is configured to verify this route; it fails closed.',
      )
    }
    if (!result.ok) throw unauthorized(result.code, result.message)
    if (caches.get(name)?.seen(result.signature)) {
      throw unauthorized('signature_replayed', 'This signature was already accepted; a replay is refused.')
    }
    verified.add(request)
  }

  const securitySchemes = Object.fromEntries(
    Object.entries(verifiers).map(([name, v]) => [
      name,
      {
        type: 'apiKey',
        in: 'header',
        name: v.profile.header,
        description:
          v.description ??
          (v.profile.kind === 'paddle'
            ? 'ts=<unix>;h1=<hex HMAC-SHA256 of "<ts>:<raw body>">'
            : 'hex HMAC-SHA256 of the raw body, optional sha256= prefix'),
      },
    ]),
  ) as Record<string, Record<string, unknown>>

  const plugin = new Elysia({ name: 'signature', seed: newId() }).macro({
    signed: (name: keyof V & string) => ({
      detail: { security: [{ [name]: [] }] },
      parse: rawParser(async ({ request }: { request: Request }) => {
        const raw = await readRawBody(request)
        check(name, request, raw)
        return parsedBody(request, raw)
      }),
      transform({ request }: { request: Request }) {
        if (!verified.has(request)) check(name, request, rawBodyOrEmpty(request))
      },
      resolve: ({ request }: { request: Request }) => ({ rawBody: rawBodyOrEmpty(request) }),
    }),
  })
  return Object.assign(plugin, { securitySchemes })
}

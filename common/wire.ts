import { Elysia } from 'elysia'
import { AppError, appErrorBody, type Envelope, envelope, isStorageUnavailable } from './errors.ts'
import { errorFields, type Logger, requestLineWriter } from './logger.ts'
import type { HttpMetrics } from './metrics.ts'
import { newId } from './time.ts'
import { validationDetails, validationPart } from './validation.ts'

export interface WireOptions {
  unit: string
  log: Logger
  metrics: HttpMetrics
  maxBodyBytes: number
  /** `METHOD /path` patterns that also take HTML form bodies; every other route takes JSON only. */
  formRoutes?: readonly string[]
  /** Routes polled by probes and scrapers (liveness, readiness, metrics): logged at debug, not info. */
  probeRoutes?: readonly string[]
  /**
   * `METHOD /path` patterns whose own parse hook reads the exact bytes (signed routes, see
   * `common/signature.ts`, which also finds them: `rawBodyRouteKeys`). The content-type rule
   * still applies; the body is left unread here.
   */
  rawBodyRoutes?: readonly string[]
  /** Replaces the 413 envelope (the mailbox adapter answers text `payload too large`). */
  payloadTooLarge?: () => Response
}

interface RequestState {
  id: string
  startedAt: number
  done: boolean
  /** The route built its response with the shared headers already (`stampedHeaders`). */
  stamped: boolean
}

/**
 * Where a request's state lives: on the request's `set` object, which every hook receives (a
 * WeakMap keyed by the request cost three lookups per request). Hooks destructure what they use:
 * Elysia reads their parameters to decide what to prepare per request, and a hook that takes the
 * whole context makes every route parse headers, query and cookies up front.
 */
const STATE = Symbol('svc.request')
type Carrier = { [STATE]?: RequestState }
const stateOf = (set: object): RequestState | undefined => (set as Carrier)[STATE]

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/
/** Deeper JSON than this is refused: no route's schema nests near it, and validators recurse. */
export const MAX_JSON_DEPTH = 64
const JSON_TYPES = new Set(['application/json'])
const FORM_TYPES = new Set(['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'])

function mediaType(request: Request): string {
  const raw = request.headers.get('content-type') ?? ''
  const semi = raw.indexOf(';')
  return (semi === -1 ? raw : raw.slice(0, semi)).trim().toLowerCase()
}

/**
 * Everything every unit's HTTP surface shares: request ids, the content-type and body-size
 * rules, the error envelope for every failure, and one log line and metric per request.
 *
 * Hook choice is measured (docs/benchmarks.md): `onAfterHandle` and `onError` cost little, while
 * `onAfterResponse` and a global `onTransform` each cost a fifth of a bare route's throughput.
 * The content-type rule sits in `onParse`, which only runs for requests that carry a body.
 */
export function wire(opts: WireOptions) {
  const formRoutes = new Set(opts.formRoutes ?? [])
  const probes = new Set(opts.probeRoutes ?? [])
  const rawBodyRoutes = new Set(opts.rawBodyRoutes ?? [])
  const { log, metrics } = opts
  const writeLine = requestLineWriter(log)

  const record = (set: object, request: Request, route: string, status: number) => {
    const state = stateOf(set)
    if (!state || state.done) return
    state.done = true
    const seconds = (performance.now() - state.startedAt) / 1000
    metrics.http.observe(request.method, route, status, seconds)
    writeLine(probes.has(route) && status < 400 ? 'debug' : 'info', {
      req_id: state.id,
      method: request.method,
      route,
      status,
      duration_ms: Math.round(seconds * 100_000) / 100,
    })
  }

  return new Elysia({ name: 'wire', seed: opts.unit })
    .onRequest(({ request, set }) => {
      const given = request.headers.get('x-request-id')
      const id = given && SANE_REQUEST_ID.test(given) ? given : newId()
      ;(set as Carrier)[STATE] = { id, startedAt: performance.now(), done: false, stamped: false }
      const length = Number(request.headers.get('content-length') ?? 0)
      if (length > opts.maxBodyBytes) throw payloadTooLarge(opts.maxBodyBytes)
    })
    .onParse({ as: 'global' }, async ({ request, route }) => {
      const type = mediaType(request)
      const key = `${request.method} ${route}`
      const allowed = formRoutes.has(key) ? FORM_TYPES : JSON_TYPES
      if (!allowed.has(type)) {
        throw new AppError(
          415,
          'unsupported_media_type',
          `This route accepts ${[...allowed].join(' or ')} bodies.`,
          {
            received: type || null,
          },
        )
      }
      if (rawBodyRoutes.has(key)) return
      if (type === 'application/json') return parseJsonText(await readBounded(request, opts.maxBodyBytes))
      // Forms are parsed by Elysia; a body without a length is counted on a copy first.
      if (!request.headers.has('content-length'))
        await readBounded(request.clone() as Request, opts.maxBodyBytes)
    })
    .onAfterHandle({ as: 'global' }, ({ request, route, set, responseValue }) => {
      const state = stateOf(set)
      const id = state?.id ?? newId()
      let status: number
      if (responseValue instanceof Response) {
        status = responseValue.status
        if (state?.stamped !== true) stamp(responseValue, set, id)
      } else {
        status = typeof set.status === 'number' ? set.status : 200
        set.headers['x-request-id'] = id
        set.headers['x-content-type-options'] = 'nosniff'
      }
      record(set, request, route, status)
    })
    .onError({ as: 'global' }, ({ code, error, set, request, route }) => {
      const id = stateOf(set)?.id ?? newId()
      set.headers['x-request-id'] = id
      set.headers['x-content-type-options'] = 'nosniff'
      const { status, body } = toEnvelope(code, error)
      set.status = status
      if (status === 413 && opts.payloadTooLarge) {
        record(set, request, route || 'unmatched', status)
        const res = opts.payloadTooLarge()
        return new Response(res.body, { status, headers: mergeHeaders(res.headers, set.headers) })
      }
      if (status >= 500) {
        log.error({ req_id: id, err: errorFields(error), code }, 'request failed')
      }
      record(set, request, route || 'unmatched', status)
      return body
    })
}

/**
 * Headers for a response a route builds itself: a copy of `base` (which must already carry
 * `x-content-type-options: nosniff`) with this request's id; the wire then leaves the response's
 * headers alone. Copying a prepared `Headers` and setting one costs about half of building the
 * response and setting the two afterwards (docs/benchmarks.md). Outside the wire (no request
 * state), the copy has no id and the wire's usual stamping applies. Call it last: headers set on
 * `set.headers` after it would be lost.
 */
export function stampedHeaders(set: object, base: Headers): Headers {
  const headers = new Headers(base)
  const state = stateOf(set)
  if (state !== undefined) {
    headers.set('x-request-id', state.id)
    state.stamped = true
  }
  // Headers a hook put in `set.headers` (RMS's authority marks, say) go on the response here:
  // left there, Elysia merges them into it on the way out, several times the cost.
  const pending = (set as { headers?: Record<string, unknown> }).headers
  if (pending !== undefined) {
    let moved = false
    for (const name in pending) {
      const value = pending[name]
      if (Array.isArray(value)) for (const v of value) headers.append(name, String(v))
      else if (value !== undefined && value !== null) headers.set(name, String(value))
      moved = true
    }
    if (moved) (set as { headers: Record<string, unknown> }).headers = {}
  }
  return headers
}

/**
 * The shared headers on a response a route built itself. Set on the response directly: putting
 * them in `set.headers` makes Elysia merge them into every response, which measured 1.4–3 µs per
 * request (docs/benchmarks.md). A response whose headers are immutable (a peer's answer passed on)
 * gets them through `set.headers` after all.
 */
function stamp(res: Response, set: { headers: Record<string, unknown> }, id: string): void {
  try {
    res.headers.set('x-request-id', id)
    res.headers.set('x-content-type-options', 'nosniff')
  } catch {
    set.headers['x-request-id'] = id
    set.headers['x-content-type-options'] = 'nosniff'
  }
}

function mergeHeaders(own: Headers, shared: Record<string, unknown>): Headers {
  const out = new Headers(own)
  for (const [name, value] of Object.entries(shared)) {
    if (typeof value === 'string' && !out.has(name)) out.set(name, value)
  }
  return out
}

/** The 413 of a body over `max` bytes (answered as text where a unit says so: `payloadTooLarge`). */
export const payloadTooLarge = (max: number) =>
  new AppError(413, 'payload_too_large', `The request body exceeds ${max} bytes.`)

/**
 * The body's bytes, counted as they arrive: a chunked body has no length to check up front, so
 * reading stops at the first byte over the limit (413).
 */
export async function readBoundedBytes(request: Request, max: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel().catch(() => {})
      throw payloadTooLarge(max)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/** The body as text, counted on the bytes actually received (`readBoundedBytes`). */
async function readBounded(request: Request, max: number): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(request, max))
}

/**
 * JSON bodies are parsed here rather than by Elysia so that two shapes no route can use are
 * refused before validation sees them: nesting deeper than MAX_JSON_DEPTH (schema validators
 * recurse and would overflow the stack) and strings with lone surrogates (`"\ud800"`), which
 * I-JSON (RFC 7493) forbids and RFC 8785 hashing cannot encode. An empty body is left to
 * Elysia, so routes with an optional body still see `undefined`.
 */
/** The JSON text of a body, parsed and checked as every route's body is. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new AppError(400, 'malformed_body', 'The request body is not valid JSON.')
  }
  const problem = jsonShapeProblem(value, 0)
  if (problem === 'depth') {
    throw new AppError(400, 'body_too_deep', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`)
  }
  if (problem === 'unicode') {
    throw new AppError(400, 'invalid_unicode', 'The request body contains a string with a lone surrogate.')
  }
  return value
}

/** The first reason a parsed JSON value is refused, or undefined. Stops at the depth limit. */
function jsonShapeProblem(value: unknown, depth: number): 'depth' | 'unicode' | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : 'unicode'
  if (value === null || typeof value !== 'object') return undefined
  if (depth >= MAX_JSON_DEPTH) return 'depth'
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonShapeProblem(item, depth + 1)
      if (problem) return problem
    }
    return undefined
  }
  for (const key in value) {
    if (!key.isWellFormed()) return 'unicode'
    const problem = jsonShapeProblem((value as Record<string, unknown>)[key], depth + 1)
    if (problem) return problem
  }
  return undefined
}

/** Map any failure to (status, envelope). Exported for units that answer outside Elysia's flow. */
export function toEnvelope(code: string | number, error: unknown): { status: number; body: Envelope } {
  const cause = (error as { cause?: unknown })?.cause
  if (error instanceof AppError) return { status: error.status, body: appErrorBody(error) }
  if (cause instanceof AppError) return { status: cause.status, body: appErrorBody(cause) }
  switch (code) {
    case 'VALIDATION': {
      if ((error as { type?: string }).type === 'response') {
        return { status: 500, body: envelope('internal_error', 'The service produced an invalid response.') }
      }
      return {
        status: 400,
        body: envelope(
          'validation_failed',
          `The ${validationPart(error)} does not match the route's schema.`,
          validationDetails(error),
        ),
      }
    }
    case 'PARSE':
      return { status: 400, body: envelope('malformed_body', 'The request body could not be parsed.') }
    case 'NOT_FOUND':
      return { status: 404, body: envelope('not_found', 'No route matches this method and path.') }
    case 'INVALID_COOKIE_SIGNATURE':
      return { status: 401, body: envelope('invalid_cookie', 'A cookie signature is invalid.') }
    case 'INVALID_FILE_TYPE':
      return {
        status: 400,
        body: envelope('invalid_file_type', 'An uploaded file has a type this route refuses.'),
      }
    default: {
      const status = (error as { status?: unknown })?.status
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return { status, body: envelope('bad_request', 'The request was refused.') }
      }
      // A read or write outside a unit's storage guard still answers as the guard does.
      if (isStorageUnavailable(error)) {
        return {
          status: 503,
          body: envelope('persistence_unavailable', 'The store is unavailable; nothing was written.'),
        }
      }
      return { status: 500, body: envelope('internal_error', 'The service failed to handle this request.') }
    }
  }
}

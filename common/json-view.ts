/**
 * Cached views: a read-only document whose content changes only when its source changes is
 * checked against its response schema and serialized once per version, then served as those
 * bytes with a strong `ETag` (a hash of the bytes); a request whose `If-None-Match` names it gets
 * `304 Not Modified` and no body. `Cache-Control: no-cache` lets clients and proxies keep a copy
 * and revalidate it on every use.
 *
 *   .get('/matrix', jsonView(MatrixResponse, views.matrix), { response: { 200: MatrixResponse } })
 *
 * The getter returns the same object until the view's source changes (a new derivation is a new
 * object): the text, its check and its hash are computed once per object. `jsonViews` does the
 * same for documents built from a source and a variant (RMS's catalog, marked with its caller).
 */
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { AppError } from './errors.ts'
import { nowIso } from './time.ts'
import { stampedHeaders } from './wire.ts'

interface Serialized {
  /**
   * The UTF-8 bytes, as a Blob: encoding a large string on every request costs more than the
   * rest of it, and a response over a byte array copies them (about 1 µs for 11 KiB), while a
   * response over a Blob shares them.
   */
  body: Blob
  etag: string
  /** The 200's headers, prepared once: each answer copies them and adds its request id. */
  headers: Headers
  /** The 304's. */
  notModified: Headers
}

/** What a view needs from Elysia's context: the request, and `set` (where the wire keeps its state). */
export interface ViewContext {
  request: Request
  set: object
}

const CONTENT_TYPE = 'application/json; charset=utf-8'
/** What the wire adds to every answer besides the request id (common/wire.ts). */
const SHARED = { 'x-content-type-options': 'nosniff' }

/** Whether an If-None-Match value names this entity tag (weak comparison, as RFC 9110 asks). */
function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false
  const bare = etag.startsWith('W/') ? etag.slice(2) : etag
  for (const raw of header.split(',')) {
    const tag = raw.trim()
    if (tag === '*') return true
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === bare) return true
  }
  return false
}

/** A strong entity tag for these bytes. */
const etagOf = (text: string): string => `"${Bun.hash(text).toString(36)}-${text.length.toString(36)}"`

/** Most variants one source keeps (callers seen while it is current); more clears them. */
const MAX_VARIANTS = 64

/**
 * Views of one schema built from a source object and a variant (a view that also carries who
 * asked, say): the document is built, checked, serialized and tagged once per (source, variant)
 * and served as those bytes while the source is the same object; a new source (the data changed)
 * starts afresh. `variant` must name everything besides the source that the document depends on.
 *
 *   const catalogView = jsonViews(Catalog)
 *   .get('/catalog', async ({ request, set, authority }) =>
 *     catalogView({ request, set }, await catalog(), JSON.stringify(mark(authority)), () => ({ ... })))
 */
export function jsonViews<S extends TSchema>(schema: S) {
  const serialize = serializer(schema)
  const cache = new WeakMap<object, Map<string, Serialized>>()
  return (context: ViewContext, source: object, variant: string, build: () => object): Response => {
    let variants = cache.get(source)
    if (variants === undefined) {
      variants = new Map()
      cache.set(source, variants)
    }
    let s = variants.get(variant)
    if (s === undefined) {
      s = serialize(build())
      if (variants.size >= MAX_VARIANTS) variants.clear()
      variants.set(variant, s)
    }
    return respond(context, s)
  }
}

/** Check a view against `schema` (a 500 when it breaks it) and keep its bytes, tag and headers. */
function serializer<S extends TSchema>(schema: S): (view: object) => Serialized {
  // Compiled on the first view, not at start: a unit with many views (PRS) paid for all of them
  // before its first answer.
  let check: ReturnType<typeof TypeCompiler.Compile<S>> | undefined
  return (view) => {
    check ??= TypeCompiler.Compile(schema)
    if (!check.Check(view)) {
      const first = check.Errors(view).First()
      throw new AppError(500, 'internal_error', 'The service produced an invalid response.', {
        path: first?.path,
      })
    }
    const text = JSON.stringify(view)
    const etag = etagOf(text)
    return {
      body: new Blob([text]),
      etag,
      headers: new Headers({ 'content-type': CONTENT_TYPE, etag, 'cache-control': 'no-cache', ...SHARED }),
      notModified: new Headers({ etag, 'cache-control': 'no-cache', ...SHARED }),
    }
  }
}

/**
 * A document stamped with the time it is served (liveness: `checked_at`): built, checked and
 * serialized at most once per distinct time string, so every request within one millisecond gets
 * the very document it would have got built for itself. `now` is the unit's clock as the
 * document writes it (`nowIso` unless the unit's clock is injectable); `variant` names anything
 * else of the request the document shows.
 *
 *   .get('/health', timedView(Health, (now) => ({ status: 'ok', checked_at: now })), { … })
 */
export function timedView<S extends TSchema>(
  schema: S,
  build: (now: string, context: ViewContext) => object,
  options: { now?: () => string; variant?: (context: ViewContext) => string } = {},
) {
  const serialize = serializer(schema)
  const now = options.now ?? nowIso
  const variantOf = options.variant
  let last: { key: string; s: Serialized } | undefined
  const handler = plainHandler((context: ViewContext): Response => {
    const at = now()
    const key = variantOf === undefined ? at : `${at} ${variantOf(context)}`
    if (last === undefined || last.key !== key) last = { key, s: serialize(build(at, context)) }
    return respond(context, last.s)
  })
  return cachedViewHandler(handler)
}

/** Handlers that serve cached views: the OpenAPI document lists their 304 (common/openapi.ts). */
const viewHandlers = new WeakSet<object>()

/** Mark a route handler as serving a cached view (`jsonView`, `timedView` and snapshot views are). */
export function cachedViewHandler<F extends (...args: never[]) => unknown>(handler: F): F {
  viewHandlers.add(handler)
  return handler
}

/**
 * Route `detail` for a handler that answers through `jsonViews` itself: the OpenAPI document then
 * lists the route's ETag, If-None-Match and 304 as it does for `jsonView` routes.
 */
export const CACHED_VIEW = { 'x-svc-cached-view': true } as const

/** Whether a route serves a cached view (its handler is a `jsonView`, or its detail says so). */
export const isCachedView = (handler: unknown, detail: unknown): boolean =>
  (typeof handler === 'function' && viewHandlers.has(handler)) ||
  (detail as Record<string, unknown> | undefined)?.['x-svc-cached-view'] === true

/** A view that is one object per derivation (the getter returns the same object until it changes). */
export function jsonView<S extends TSchema>(schema: S, get: () => object) {
  const views = jsonViews(schema)
  const handler = plainHandler((context: ViewContext): Response => {
    const view = get()
    return views(context, view, '', () => view)
  })
  return cachedViewHandler(handler)
}

/**
 * A route handler Elysia runs as what it is: synchronous, reading nothing from the context beyond
 * what the handler destructures at run time. Elysia decides both from the handler's source text:
 * a body with `return f(` or `=> f(` counts as asynchronous, so every request awaits it, and the
 * parameters it names decide which parts of the request are parsed up front. A bound function's
 * source is `[native code]`: no await, nothing parsed ahead. Use it for synchronous handlers that
 * read only `request` (or what the context always carries: `set`, `params` of the path, `store`);
 * measured at 1–2 µs per request (docs/benchmarks.md).
 */
export function plainHandler<A extends unknown[], R>(handler: (...args: A) => R): (...args: A) => R {
  return handler.bind(undefined)
}

function respond({ request, set }: ViewContext, s: Serialized): Response {
  if (matchesIfNoneMatch(request.headers.get('if-none-match'), s.etag)) {
    return new Response(null, { status: 304, headers: stampedHeaders(set, s.notModified) })
  }
  return new Response(s.body, { headers: stampedHeaders(set, s.headers) })
}

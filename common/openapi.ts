import { type AnyElysia, t } from 'elysia'
import { DEFAULT_DOCS_PAGES, type DocsPage, serveDocsPages } from './docs-pages.ts'
import { ErrorEnvelope } from './errors.ts'
import { isCachedView } from './json-view.ts'

export interface OpenApiInfo {
  title: string
  version: string
  description: string
  /** `METHOD /path` routes that also take HTML form bodies; all others take JSON only. */
  formRoutes: readonly string[]
  /** `components.securitySchemes`: the credentials the routes' `detail.security` names. */
  securitySchemes?: Record<string, Record<string, unknown>>
  /** The interactive pages that render the document; Swagger UI at `/docs` unless given. */
  docsPages?: readonly DocsPage[]
}

type Operation = { requestBody?: { content?: Record<string, unknown> } }

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

/**
 * The OpenAPI 3.1 document of an app, built from its route schemas. Request bodies list only the
 * content types the wire plugin actually accepts, so a client that trusts the document is never
 * refused with 415.
 */
export async function openApiDocument(app: AnyElysia, info: OpenApiInfo, exclude: string[]) {
  // Loaded on first use: the generator is large and most processes never serve the document.
  const { toOpenAPISchema } = await import('@elysiajs/openapi')
  const { paths, components } = toOpenAPISchema(app, { staticFile: false, paths: exclude })
  const bodies = new Map<string, unknown>()
  for (const route of app.routes) {
    const body = (route.hooks as { body?: unknown } | undefined)?.body
    if (body) bodies.set(`${route.method.toUpperCase()} ${route.path}`, body)
  }
  const forms = new Set(info.formRoutes)
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item ?? {}) as [string, Operation][]) {
      if (!op?.requestBody) continue
      const key = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`
      // The global content-type hook hides the route's parsers from the generator: rebuild the
      // content map from the route's own body schema.
      const schema = { schema: bodies.get(key) ?? Object.values(op.requestBody.content ?? {})[0] }
      const accepted = forms.has(key) ? ['application/json', ...FORM_TYPES] : ['application/json']
      op.requestBody = {
        ...op.requestBody,
        content: Object.fromEntries(accepted.map((type) => [type, schema])),
      }
    }
  }
  describeCachedViews(app, paths as Record<string, Record<string, CachedOperation> | undefined>)
  allowNullInEnums(paths)
  allowNullInEnums(components)
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    paths,
    components: {
      ...components,
      schemas: { ...components.schemas, ErrorEnvelope },
      ...(info.securitySchemes && { securitySchemes: info.securitySchemes }),
    },
  }
}

type CachedOperation = {
  parameters?: unknown[]
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> } | undefined>
  'x-svc-cached-view'?: boolean
}

const ETAG_HEADER = {
  ETag: { description: 'Strong entity tag of this representation.', schema: { type: 'string' } },
}

/**
 * Cached views (common/json-view.ts) answer `If-None-Match` naming their current `ETag` with 304
 * and no body: say so in their operations, so a client generated from the document handles it.
 */
function describeCachedViews(
  app: AnyElysia,
  paths: Record<string, Record<string, CachedOperation> | undefined>,
): void {
  for (const route of app.routes) {
    if (route.method !== 'GET') continue
    const detail = (route.hooks as { detail?: unknown } | undefined)?.detail
    const op = paths[route.path.replace(/:([^/]+)/g, '{$1}')]?.get
    if (op === undefined) continue
    delete op['x-svc-cached-view']
    if (!isCachedView(route.handler, detail)) continue
    op.parameters = [
      ...(op.parameters ?? []),
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'An ETag from an earlier answer: 304 without a body while it is still current.',
        schema: { type: 'string' },
      },
    ]
    const ok = op.responses?.['200']
    if (ok) ok.headers = { ...ok.headers, ...ETAG_HEADER }
    op.responses = {
      ...op.responses,
      '304': {
        description: 'Not Modified: the If-None-Match header names the current ETag.',
        headers: ETAG_HEADER,
      },
    }
  }
}

/**
 * The generator flattens `t.Union([t.Union([t.Literal…]), t.Null()])` into
 * `{type: [..., 'null'], enum: [...]}` and leaves null out of the enum, so the document would
 * forbid the null the route returns. Put it back wherever a schema's type admits null.
 */
function allowNullInEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowNullInEnums(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const schema = node as { type?: unknown; enum?: unknown[] }
  if (
    Array.isArray(schema.type) &&
    schema.type.includes('null') &&
    Array.isArray(schema.enum) &&
    !schema.enum.includes(null)
  ) {
    schema.enum = [...schema.enum, null]
  }
  for (const value of Object.values(node)) allowNullInEnums(value)
}

/**
 * Adds `GET <specPath>` serving the app's document, built once on first request, and the
 * interactive pages that render it (`/docs`).
 */
export function serveOpenApi(app: AnyElysia, specPath: string, info: OpenApiInfo): AnyElysia {
  let document: ReturnType<typeof openApiDocument> | undefined
  serveDocsPages(app, specPath, info.title, info.docsPages ?? DEFAULT_DOCS_PAGES)
  return app.get(specPath, async () => (document ??= openApiDocument(app, info, [specPath])), {
    response: {
      200: t.Object(
        { openapi: t.String(), info: t.Unknown(), paths: t.Unknown() },
        { additionalProperties: true },
      ),
    },
    detail: { hide: true },
  })
}

import { toOpenAPISchema } from '@elysiajs/openapi'
import { type AnyElysia, t } from 'elysia'
import { ErrorEnvelope } from './errors.ts'

export interface OpenApiInfo {
  title: string
  version: string
  description: string
  /** `METHOD /path` routes that also take HTML form bodies; all others take JSON only. */
  formRoutes: readonly string[]
}

type Operation = { requestBody?: { content?: Record<string, unknown> } }

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

/**
 * The OpenAPI 3.1 document of an app, built from its route schemas. Request bodies list only the
 * content types the wire plugin actually accepts, so a client that trusts the document is never
 * refused with 415.
 */
export function openApiDocument(app: AnyElysia, info: OpenApiInfo, exclude: string[]) {
  const { paths, components } = toOpenAPISchema(app, { staticFile: false, paths: exclude })
  const forms = new Set(info.formRoutes)
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item ?? {}) as [string, Operation][]) {
      const content = op?.requestBody?.content
      if (!content) continue
      const schema = Object.values(content)[0]
      const elysiaPath = path.replace(/\{([^}]+)\}/g, ':$1')
      const accepted = forms.has(`${method.toUpperCase()} ${elysiaPath}`)
        ? ['application/json', ...FORM_TYPES]
        : ['application/json']
      op.requestBody = {
        ...op.requestBody,
        content: Object.fromEntries(accepted.map((type) => [type, schema])),
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    paths,
    components: { ...components, schemas: { ...components.schemas, ErrorEnvelope } },
  }
}

/** Adds `GET <specPath>` serving the app's document, built once on first request. */
export function serveOpenApi(app: AnyElysia, specPath: string, info: OpenApiInfo): AnyElysia {
  let document: ReturnType<typeof openApiDocument> | undefined
  return app.get(specPath, () => (document ??= openApiDocument(app, info, [specPath])), {
    response: {
      200: t.Object(
        { openapi: t.String(), info: t.Unknown(), paths: t.Unknown() },
        { additionalProperties: true },
      ),
    },
    detail: { hide: true },
  })
}

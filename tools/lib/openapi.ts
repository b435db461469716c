/** The operations of a unit's OpenAPI 3.1 document, flattened for the fuzzer. */
import { resolveRef, type Schema, type SchemaRoot } from './schema.ts'

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  schema: Schema
}

export interface Operation {
  /** `METHOD /openapi/{path}`: the name the fuzzer reports and filters on. */
  key: string
  method: string
  /** OpenAPI path template, e.g. `/tasks/{task_key}`. */
  path: string
  parameters: Parameter[]
  body?: { required: boolean; contentTypes: string[]; schema: Schema }
  /** Declared responses: status (or `default`, `2XX`) → media type → schema. */
  responses: Record<string, Record<string, Schema | undefined>>
}

type RawOperation = {
  parameters?: (Parameter | { $ref: string })[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> } | { $ref: string }
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> } | { $ref: string }>
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head']

function deref<T>(doc: SchemaRoot, node: T | { $ref: string }): T {
  return (node as { $ref?: string }).$ref === undefined ? (node as T) : (resolveRef(doc, node as Schema) as T)
}

export function operations(
  doc: SchemaRoot & { paths?: Record<string, Record<string, unknown>> },
): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = ((item as { parameters?: RawOperation['parameters'] }).parameters ?? []).map((p) =>
      deref<Parameter>(doc, p),
    )
    for (const method of METHODS) {
      const raw = item[method] as RawOperation | undefined
      if (!raw) continue
      const own = (raw.parameters ?? []).map((p) => deref<Parameter>(doc, p))
      const byName = new Map<string, Parameter>()
      for (const p of [...shared, ...own]) {
        byName.set(`${p.in}:${p.name}`, {
          ...p,
          required: p.in === 'path' || Boolean(p.required),
          schema: p.schema ?? {},
        })
      }
      // Template names the document forgot to declare are still path parameters.
      for (const m of path.matchAll(/\{([^}]+)\}/g)) {
        const name = m[1]!
        if (!byName.has(`path:${name}`))
          byName.set(`path:${name}`, { name, in: 'path', required: true, schema: { type: 'string' } })
      }
      let body: Operation['body']
      if (raw.requestBody) {
        const rb = deref<{ required?: boolean; content?: Record<string, { schema?: Schema }> }>(
          doc,
          raw.requestBody,
        )
        const content = rb.content ?? {}
        const types = Object.keys(content)
        if (types.length > 0) {
          body = {
            required: Boolean(rb.required),
            contentTypes: types,
            schema: content[types[0]!]?.schema ?? {},
          }
        }
      }
      const responses: Operation['responses'] = {}
      for (const [status, r] of Object.entries(raw.responses ?? {})) {
        const resp = deref<{ content?: Record<string, { schema?: Schema }> }>(doc, r)
        responses[status] = Object.fromEntries(
          Object.entries(resp.content ?? {}).map(([t, c]) => [t, c.schema]),
        )
      }
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: [...byName.values()],
        body,
        responses,
      })
    }
  }
  return out
}

/** The declared response for a status: exact code, then `4XX`-style ranges, then `default`. */
export function declaredResponse(
  op: Operation,
  status: number,
): Record<string, Schema | undefined> | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default
}

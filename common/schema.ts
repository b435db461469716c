/** Schema helpers every unit may use beside TypeBox itself. */
import type { TLiteral, TUnion } from '@sinclair/typebox'
import { t } from 'elysia'
import { badRequest } from './errors.ts'

type Lits<V extends readonly string[]> = { [K in keyof V]: TLiteral<V[K] & string> }

/** A union of string literals, typed as a tuple so Elysia's handler types see the exact union. */
export const lit = <const V extends readonly [string, ...string[]]>(...values: V): TUnion<[...Lits<V>]> =>
  t.Union(values.map((v) => t.Literal(v))) as never

/** The values of a union of string literals (`lit(…)` or `t.Union([t.Literal…])`), in order. */
export const literalValues = <V extends string>(schema: TUnion<TLiteral<V>[]>): V[] =>
  schema.anyOf.map((s) => s.const)

/**
 * Elysia strips unknown body fields before validation; a route that must refuse them instead
 * spreads this into its hooks, so a caller cannot believe it set a field the unit derives itself.
 * The fields are noted before validation and refused in `beforeHandle` (after any access check).
 */
export const rejectUnknownFields = (schema: { properties: Record<string, unknown> }) => {
  const extras = new WeakMap<Request, string[]>()
  return {
    transform({ body, request }: { body: unknown; request: Request }) {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return
      const extra = Object.keys(body).filter((k) => !Object.hasOwn(schema.properties, k))
      if (extra.length > 0) extras.set(request, extra)
    },
    beforeHandle({ request }: { request: Request }) {
      const extra = extras.get(request)
      if (extra)
        throw badRequest('unknown_fields', 'The body has fields this route does not take.', { fields: extra })
    },
  }
}

/** Schema helpers every EIS route family shares. */
import { type TSchema, Type } from '@sinclair/typebox'
import { t } from 'elysia'

export { lit } from '../../../common/schema.ts'
export const Nullable = <S extends TSchema>(s: S) => t.Union([s, t.Null()])
export const Ts = t.String({ description: 'ISO 8601 UTC timestamp' })
export const DocName = t.String({ minLength: 1, maxLength: 140, description: 'a document name' })

/** Frappe's whitelisted-method convention: every success body is `{"message": …}`. */
export const Message = <S extends TSchema>(s: S) => t.Object({ message: s })
export const message = <V>(value: V) => ({ message: value })

/** Batch routes take `limit` in the JSON body, 1..500, default 100 (the spec's Limits). */
export const BATCH_LIMIT_MAX = 500
export const BATCH_LIMIT_DEFAULT = 100
export const Limit = Type.Integer({
  minimum: 1,
  maximum: BATCH_LIMIT_MAX,
  default: BATCH_LIMIT_DEFAULT,
  description: '1-500, default 100',
})

/** An object that keeps fields EIS does not know (provider payloads, WEB's extensible blocks). */
export const Open = <P extends Parameters<typeof t.Object>[0]>(props: P, description?: string) =>
  t.Object(props, { additionalProperties: true, ...(description && { description }) })

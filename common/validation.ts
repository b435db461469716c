import { type TSchema, TypeGuard } from '@sinclair/typebox'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'

/** One refused value: where (a JSON pointer into the part) and what was expected, never the input. */
export interface ValidationDetail {
  path: string
  message: string
}

const MAX_DETAILS = 20

/**
 * The fields of Elysia's ValidationError this mapper reads. Its own getters (`all`, `message`)
 * stringify the refused value and throw on objects such as `{"toString":[]}`, so they are never
 * read: the errors are recomputed from the validator and the value.
 */
interface ElysiaValidationError {
  type?: string
  validator?: unknown
  value?: unknown
  /** Set by patches/elysia: the part (`query`, `params`…) and path a failed decode came from. */
  on?: string
  path?: string
}

/** The request part a validation error is about: `body`, `query`, `params`, `headers`… */
export function validationPart(error: unknown): string {
  const e = error as ElysiaValidationError
  return e.on ?? e.type ?? 'request'
}

/** Field-naming details for a validation error, robust to any value a client can send. */
export function validationDetails(error: unknown): ValidationDetail[] {
  const e = error as ElysiaValidationError
  const prefix = typeof e.path === 'string' ? e.path : ''
  const part = validationPart(error)
  try {
    const out: ValidationDetail[] = []
    for (const item of valueErrors(e.validator, e.value)) {
      out.push(describeError(item, prefix, part))
      if (out.length >= MAX_DETAILS) break
    }
    if (out.length > 0) return out
  } catch {
    // the details are a courtesy; the 400 stands without them
  }
  return [{ path: prefix || '/', message: `${fieldName(prefix, part)}: invalid value` }]
}

function valueErrors(validator: unknown, value: unknown): Iterable<ValueError> {
  const v = validator as { Errors?: (value: unknown) => Iterable<ValueError>; schema?: TSchema }
  if (typeof v?.Errors === 'function') return v.Errors(value)
  return Value.Errors((v?.schema ?? validator) as TSchema, value)
}

function describeError(error: ValueError, prefix: string, part: string): ValidationDetail {
  const path = `${prefix}${error.path}` || '/'
  const field = fieldName(path, part)
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { path, message: `${field}: required, expected ${expectation(error.schema)}` }
    case ValueErrorType.ObjectAdditionalProperties:
      return { path, message: `${field}: not an allowed field` }
    default:
      return { path, message: `${field}: expected ${expectation(error.schema)}` }
  }
}

/** `/a/b` → `a.b`; the root is named after the part (`body`, `query`). */
function fieldName(path: string, part: string): string {
  const name = path
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.')
  return name === '' ? part : name
}

const quote = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v))

function bounds(s: Record<string, unknown>, lowKey: string, highKey: string): string[] {
  const out: string[] = []
  if (typeof s[lowKey] === 'number') out.push(`>= ${s[lowKey]}`)
  if (typeof s.exclusiveMinimum === 'number') out.push(`> ${s.exclusiveMinimum}`)
  if (typeof s[highKey] === 'number') out.push(`<= ${s[highKey]}`)
  if (typeof s.exclusiveMaximum === 'number') out.push(`< ${s.exclusiveMaximum}`)
  return out
}

/** What a schema expects, in words a client can act on. Never reads the refused value. */
export function expectation(schema: TSchema): string {
  const s = schema as unknown as Record<string, unknown>
  if (TypeGuard.IsLiteral(schema)) return `the value ${quote(schema.const)}`
  if (TypeGuard.IsUnion(schema)) {
    const members = schema.anyOf
    if (members.length > 0 && members.every((m) => TypeGuard.IsLiteral(m))) {
      return `one of ${members.map((m) => quote(m.const)).join(', ')}`
    }
    // Elysia accepts numbers in query and params as numeric strings too: describe the number.
    const numeric = members.some((m) => TypeGuard.IsInteger(m) || TypeGuard.IsNumber(m))
    const parts = members
      .filter((m) => !(numeric && TypeGuard.IsString(m) && m.format !== undefined))
      .map((m) => expectation(m))
    return [...new Set(parts)].join(' or ')
  }
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(quote).join(', ')}`
  if (TypeGuard.IsInteger(schema)) return withBounds('an integer', bounds(s, 'minimum', 'maximum'))
  if (TypeGuard.IsNumber(schema)) return withBounds('a number', bounds(s, 'minimum', 'maximum'))
  if (TypeGuard.IsString(schema)) {
    const extra = bounds(s, 'minLength', 'maxLength').map((b) => `of length ${b}`)
    if (typeof s.format === 'string') extra.push(`format ${s.format}`)
    if (typeof s.pattern === 'string') extra.push(`matching ${s.pattern}`)
    return withBounds('a string', extra)
  }
  if (TypeGuard.IsBoolean(schema)) return 'true or false'
  if (TypeGuard.IsNull(schema)) return 'null'
  if (TypeGuard.IsArray(schema)) {
    return withBounds(
      'an array',
      bounds(s, 'minItems', 'maxItems').map((b) => `of length ${b}`),
    )
  }
  if (TypeGuard.IsObject(schema) || TypeGuard.IsRecord(schema)) {
    return withBounds(
      'an object',
      bounds(s, 'minProperties', 'maxProperties').map((b) => `with ${b} fields`),
    )
  }
  if (typeof s.description === 'string') return s.description
  return 'a valid value'
}

const withBounds = (what: string, extra: string[]) =>
  extra.length === 0 ? what : `${what} ${extra.join(', ')}`

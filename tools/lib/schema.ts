/**
 * The JSON Schema subset the units' OpenAPI documents use (what TypeBox and Elysia emit):
 * a validator for response bodies and a fast-check arbitrary for valid values.
 * Written here because the project carries no JSON Schema library; unknown keywords are ignored.
 */
import fc from 'fast-check'

export type Schema = {
  $ref?: string
  type?: string | string[]
  const?: unknown
  enum?: unknown[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  not?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  patternProperties?: Record<string, Schema>
  items?: Schema | Schema[]
  prefixItems?: Schema[]
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number | boolean
  exclusiveMaximum?: number | boolean
  multipleOf?: number
  default?: unknown
  [keyword: string]: unknown
}

/** Where `$ref`s point: the OpenAPI document (or any object with `components.schemas`). */
export interface SchemaRoot {
  components?: { schemas?: Record<string, unknown> }
  [key: string]: unknown
}

export function resolveRef(root: SchemaRoot, schema: Schema, seen = 0): Schema {
  if (schema.$ref === undefined) return schema
  if (seen > 32) throw new Error(`$ref cycle at ${schema.$ref}`)
  if (!schema.$ref.startsWith('#/')) throw new Error(`unsupported $ref ${schema.$ref}`)
  let node: unknown = root
  for (const raw of schema.$ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    node = (node as Record<string, unknown> | undefined)?.[key]
  }
  if (node === undefined || node === null || typeof node !== 'object') {
    throw new Error(`unresolved $ref ${schema.$ref}`)
  }
  return resolveRef(root, node as Schema, seen + 1)
}

// ---------------------------------------------------------------------------------------------
// Validation

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const TIME = /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const INTEGER_TEXT = /^-?\d+$/
const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/

const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => DATE.test(s) && !Number.isNaN(Date.parse(s)),
  time: (s) => TIME.test(s),
  uuid: (s) => UUID.test(s),
  email: (s) => EMAIL.test(s),
  uri: (s) => URL.canParse(s),
  url: (s) => URL.canParse(s),
  // Elysia's numeric strings (t.Numeric, t.Integer in query strings).
  integer: (s) => INTEGER_TEXT.test(s),
  numeric: (s) => NUMBER_TEXT.test(s),
}

const regexCache = new Map<string, RegExp | null>()
export function compilePattern(pattern: string): RegExp | null {
  if (!regexCache.has(pattern)) {
    let re: RegExp | null = null
    try {
      re = new RegExp(pattern, 'u')
    } catch {
      try {
        re = new RegExp(pattern)
      } catch {
        re = null
      }
    }
    regexCache.set(pattern, re)
  }
  return regexCache.get(pattern) ?? null
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function typeMatches(type: string, value: unknown): boolean {
  const actual = jsonType(value)
  if (type === 'number') return actual === 'number' || actual === 'integer'
  return actual === type
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  )
}

const codePoints = (s: string) => {
  let n = 0
  for (const _ of s) n++
  return n
}

/** Problems of `value` against `schema`, each as `<json pointer>: <what is wrong>`; [] when valid. */
export function validate(root: SchemaRoot, schema: Schema, value: unknown, at = ''): string[] {
  const s = resolveRef(root, schema)
  const where = at || '/'
  const out: string[] = []
  if (s.const !== undefined && !deepEqual(s.const, value))
    out.push(`${where}: expected ${JSON.stringify(s.const)}`)
  if (s.enum && !s.enum.some((e) => deepEqual(e, value))) {
    out.push(`${where}: not one of the enum values (got ${JSON.stringify(value)?.slice(0, 40)})`)
  }
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type]
    if (!types.some((t) => typeMatches(t, value))) {
      out.push(`${where}: expected ${types.join(' or ')}, got ${jsonType(value)}`)
      return out
    }
  }
  if (s.anyOf && !s.anyOf.some((b) => validate(root, b, value, at).length === 0)) {
    out.push(`${where}: matches no branch of anyOf`)
  }
  if (s.oneOf) {
    const n = s.oneOf.filter((b) => validate(root, b, value, at).length === 0).length
    if (n !== 1) out.push(`${where}: matches ${n} branches of oneOf`)
  }
  for (const b of s.allOf ?? []) out.push(...validate(root, b, value, at))
  if (s.not && validate(root, s.not, value, at).length === 0) out.push(`${where}: matches a 'not' schema`)

  if (typeof value === 'string') {
    const n = codePoints(value)
    if (s.minLength !== undefined && n < s.minLength) out.push(`${where}: shorter than ${s.minLength}`)
    if (s.maxLength !== undefined && n > s.maxLength) out.push(`${where}: longer than ${s.maxLength}`)
    if (s.pattern !== undefined) {
      const re = compilePattern(s.pattern)
      if (re && !re.test(value)) out.push(`${where}: does not match /${s.pattern}/`)
    }
    const check = s.format ? FORMATS[s.format] : undefined
    if (check && !check(value)) out.push(`${where}: not a valid ${s.format}`)
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) out.push(`${where}: below ${s.minimum}`)
    if (s.maximum !== undefined && value > s.maximum) out.push(`${where}: above ${s.maximum}`)
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
      out.push(`${where}: not above ${s.exclusiveMinimum}`)
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
      out.push(`${where}: not below ${s.exclusiveMaximum}`)
    if (
      s.multipleOf !== undefined &&
      Math.abs(value / s.multipleOf - Math.round(value / s.multipleOf)) > 1e-9
    )
      out.push(`${where}: not a multiple of ${s.multipleOf}`)
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems)
      out.push(`${where}: fewer than ${s.minItems} items`)
    if (s.maxItems !== undefined && value.length > s.maxItems)
      out.push(`${where}: more than ${s.maxItems} items`)
    const prefix = s.prefixItems ?? (Array.isArray(s.items) ? s.items : [])
    value.forEach((item, i) => {
      const itemSchema = prefix[i] ?? (Array.isArray(s.items) ? undefined : s.items)
      if (itemSchema) out.push(...validate(root, itemSchema, item, `${at}/${i}`))
    })
    if (s.uniqueItems) {
      const seen = new Set(value.map((v) => JSON.stringify(v)))
      if (seen.size !== value.length) out.push(`${where}: items are not unique`)
    }
  }
  if (jsonType(value) === 'object') {
    const obj = value as Record<string, unknown>
    for (const key of s.required ?? []) {
      if (!Object.hasOwn(obj, key)) out.push(`${at}/${key}: required property missing`)
    }
    for (const [key, v] of Object.entries(obj)) {
      const ptr = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      const declared = s.properties?.[key]
      const patterned = Object.entries(s.patternProperties ?? {}).filter(([p]) =>
        compilePattern(p)?.test(key),
      )
      if (declared) out.push(...validate(root, declared, v, ptr))
      for (const [, ps] of patterned) out.push(...validate(root, ps, v, ptr))
      if (!declared && patterned.length === 0) {
        if (s.additionalProperties === false) out.push(`${ptr}: property not allowed`)
        else if (typeof s.additionalProperties === 'object')
          out.push(...validate(root, s.additionalProperties, v, ptr))
      }
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Generation of valid values

/** Caps that keep generated values small enough to send hundreds of times a second. */
const CAP = { string: 48, items: 4, depth: 6 }

const FORMAT_ARBITRARIES: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () =>
    fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T23:59:59Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  date: () =>
    fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10)),
  time: () => fc.date({ noInvalidDate: true }).map((d) => `${d.toISOString().slice(11, 23)}Z`),
  uuid: () => fc.uuid({ version: 7 }),
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  integer: () => fc.integer({ min: -1000, max: 100000 }).map(String),
  numeric: () => fc.double({ min: -1000, max: 1000, noNaN: true }).map(String),
}

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0
  // Unbounded for filtering (a pattern or format decides the length); capped when generating.
  const max = s.maxLength ?? Number.POSITIVE_INFINITY
  // JSON Schema counts code points, TypeBox (the units' validator) UTF-16 units: satisfy both.
  const fits = (v: string) => codePoints(v) >= min && v.length <= max
  // Never filter on lengths a pattern or format may not be able to meet (that loops forever):
  // cut to the maximum instead and accept the rare invalid value.
  // Eight tries at fitting, then the first one cut to size.
  const cut = (v: string) => (v.length > max ? v.slice(0, max) : v)
  const bounded = (arb: fc.Arbitrary<string>) =>
    fc.array(arb, { minLength: 8, maxLength: 8 }).map((vs) => vs.find(fits) ?? cut(vs[0] ?? ''))
  const formatted = s.format ? FORMAT_ARBITRARIES[s.format] : undefined
  if (formatted) return bounded(formatted())
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern)
    if (re) return bounded(fc.stringMatching(re, { size: 'xsmall' }))
  }
  const smallMax = Math.min(max, min + CAP.string)
  const choices: fc.Arbitrary<string>[] = [
    fc.string({ minLength: min, maxLength: smallMax }),
    fc.string({ minLength: min, maxLength: smallMax, unit: 'grapheme' }).filter(fits),
  ]
  // Now and then exactly at the limits.
  if (s.maxLength !== undefined && s.maxLength <= 10_000) {
    choices.push(fc.string({ minLength: s.maxLength, maxLength: s.maxLength }))
  }
  return fc.oneof({ arbitrary: choices[0]!, weight: 4 }, ...choices.slice(1))
}

function numberArbitrary(s: Schema, integer: boolean): fc.Arbitrary<number> {
  let min = s.minimum ?? -1_000_000
  let max = s.maximum ?? 1_000_000
  if (typeof s.exclusiveMinimum === 'number') min = Math.max(min, s.exclusiveMinimum + (integer ? 1 : 1e-9))
  if (typeof s.exclusiveMaximum === 'number') max = Math.min(max, s.exclusiveMaximum - (integer ? 1 : 1e-9))
  const base = integer
    ? fc.integer({
        min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)),
        max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)),
      })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
  const step = s.multipleOf
  return step ? base.map((n) => Math.round(n / step) * step).filter((n) => n >= min && n <= max) : base
}

function objectArbitrary(root: SchemaRoot, s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {}
  const required = new Set(s.required ?? [])
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [key, ps] of Object.entries(props)) model[key] = arbitrary(root, ps, depth + 1)
  // Required names without a declared schema still have to be there.
  for (const key of required) model[key] ??= fc.jsonValue({ maxDepth: 1 })
  const declared = fc.record(model, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>
  const minProperties = typeof s.minProperties === 'number' ? s.minProperties : 0
  const maxProperties = typeof s.maxProperties === 'number' ? s.maxProperties : Number.POSITIVE_INFINITY
  // Records (TypeBox t.Record): keys drawn from the key pattern, between min- and maxProperties.
  const patterned = Object.entries(s.patternProperties ?? {})
  if (patterned.length > 0) {
    const [pattern, valueSchema] = patterned[0] as [string, Schema]
    const minKeys = Math.max(0, minProperties - Object.keys(props).length)
    const maxKeys = depth >= CAP.depth ? minKeys : Math.max(minKeys, Math.min(maxProperties, minKeys + 3))
    const keys = (pattern === '^(.*)$' ? fc.string({ maxLength: 12 }) : stringArbitrary({ pattern })).filter(
      (k) => !Object.hasOwn(props, k) && k !== '__proto__',
    )
    const entries = fc.dictionary(keys, arbitrary(root, valueSchema, depth + 1), { minKeys, maxKeys })
    return fc.tuple(declared, entries).map(([r, e]) => ({ ...e, ...r }))
  }
  // Objects whose properties are all optional but that need some of them (minProperties).
  const record =
    minProperties > required.size ? declared.filter((o) => Object.keys(o).length >= minProperties) : declared
  if (typeof s.additionalProperties === 'object' && depth < CAP.depth) {
    const extra = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !Object.hasOwn(props, k)),
      arbitrary(root, s.additionalProperties, depth + 1),
      { maxKeys: 3 },
    )
    return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }))
  }
  return record
}

function mergeAllOf(root: SchemaRoot, parts: Schema[]): Schema {
  const merged: Schema = {}
  for (const raw of parts) {
    const p = resolveRef(root, raw)
    Object.assign(merged, { ...p, properties: { ...merged.properties, ...p.properties } })
    merged.required = [...new Set([...(merged.required ?? []), ...(p.required ?? [])])]
  }
  delete merged.allOf
  return merged
}

/**
 * Elysia writes a number as `anyOf [string with format integer|numeric, integer|number]` so a
 * query string can carry it; the limits sit on the number branch only, so generate from that.
 */
function numericBranches(root: SchemaRoot, branches: Schema[] | undefined): Schema[] | undefined {
  if (!branches) return branches
  const resolved = branches.map((b) => resolveRef(root, b))
  const hasNumber = resolved.some((b) => b.type === 'integer' || b.type === 'number')
  if (!hasNumber) return branches
  const kept = resolved.filter(
    (b) => !(b.type === 'string' && (b.format === 'integer' || b.format === 'numeric')),
  )
  return kept.length > 0 ? kept : branches
}

/** Values valid against `schema` (within the subset above), small by default. */
export function arbitrary(root: SchemaRoot, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(root, schema)
  if (s.const !== undefined) return fc.constant(s.const)
  if (s.enum) return fc.constantFrom(...s.enum)
  if (s.allOf) {
    const { allOf, ...rest } = s
    return arbitrary(root, mergeAllOf(root, [rest, ...allOf]), depth)
  }
  const branches = numericBranches(root, s.anyOf ?? s.oneOf)
  if (branches) {
    const arbs = branches.map((b) => arbitrary(root, b, depth + 1))
    // oneOf is generated as anyOf: a value matching two branches is rare in these documents.
    return fc.oneof(...arbs)
  }
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
  if (types.length > 1) return fc.oneof(...types.map((t) => arbitrary(root, { ...s, type: t }, depth)))
  switch (types[0]) {
    case 'string':
      return stringArbitrary(s)
    case 'integer':
      return numberArbitrary(s, true)
    case 'number':
      return numberArbitrary(s, false)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const item = Array.isArray(s.items) ? undefined : s.items
      const prefix = s.prefixItems ?? (Array.isArray(s.items) ? s.items : undefined)
      if (prefix) return fc.tuple(...prefix.map((p) => arbitrary(root, p, depth + 1)))
      const itemArb = item ? arbitrary(root, item, depth + 1) : fc.jsonValue({ maxDepth: 1 })
      const minLength = s.minItems ?? 0
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? CAP.items, minLength + CAP.items))
      if (depth >= CAP.depth && minLength === 0) return fc.constant([])
      return s.uniqueItems
        ? fc.uniqueArray(itemArb, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(itemArb, { minLength, maxLength })
    }
    case 'object':
      return objectArbitrary(root, s, depth)
    default:
      if (s.properties || s.required) return objectArbitrary(root, s, depth)
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/**
 * Fuzz requests: a plain, printable description of one HTTP request, the fast-check arbitraries
 * that make valid ones from an operation's schemas, and the mutations that break them.
 */
import fc from 'fast-check'
import type { Operation, Parameter } from './openapi.ts'
import { arbitrary, jsonType, resolveRef, type Schema, type SchemaRoot } from './schema.ts'

export interface FuzzBody {
  /** How the value goes on the wire; `raw` sends `value` (a string) byte for byte. */
  encoding: 'json' | 'urlencoded' | 'multipart' | 'raw' | 'bytes'
  /** The Content-Type header; null sends none (multipart always gets its boundary). */
  contentType: string | null
  value: unknown
}

export interface FuzzRequest {
  /** `valid`, or the mutation that made it. */
  kind: string
  method: string
  /** Path with parameters in place, already percent-encoded where the generator chose to. */
  path: string
  query: [string, string][]
  headers: Record<string, string>
  body?: FuzzBody
  /** Whether the credentials' signer signs the body bytes sent (dropped with the credentials). */
  signed?: boolean
}

/** What a unit's fuzz credentials add to requests (tools/fuzz-credentials.ts). */
export interface Credentials {
  headers: Record<string, string>
  /** Headers computed over the exact body bytes sent (signed webhooks), for requests not stripped of credentials. */
  sign?: (body: Uint8Array) => Record<string, string>
  /** Body fields set on most valid requests whose body schema declares them. */
  body: Record<string, unknown>
}

export interface OperationContext {
  doc: SchemaRoot
  op: Operation
  credentials: Credentials
  /** The unit's SVC_MAX_BODY_BYTES. */
  maxBodyBytes: number
  /** Methods the document declares on this path (wrong-method mutations avoid them). */
  pathMethods: string[]
  /**
   * Values seen in earlier 2xx answers, by property name: a path parameter with the same name
   * draws from them most of the time, so routes keyed by an existing id get past their 404.
   */
  seen?: ReadonlyMap<string, readonly string[]>
}

// ---------------------------------------------------------------------------------------------
// Turning a description into a Request

function formValue(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '')
}

/** Percent-encoding; a lone surrogate (which no URL can carry) becomes U+FFFD first. */
const encode = (s: string) => encodeURIComponent(s.toWellFormed())

export function queryString(query: [string, string][]): string {
  if (query.length === 0) return ''
  return `?${query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`
}

export function toRequest(
  req: FuzzRequest,
  base = 'http://localhost',
  sign?: (body: Uint8Array) => Record<string, string>,
): Request {
  const headers = new Headers(req.headers)
  let body: FormData | Uint8Array | undefined
  const b = req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body
  if (b) {
    if (b.encoding === 'multipart') {
      const form = new FormData()
      for (const [k, v] of Object.entries((b.value ?? {}) as Record<string, unknown>)) {
        if (v instanceof Blob) form.append(k, v)
        else form.append(k, formValue(v))
      }
      body = form
    } else {
      let bytes: Uint8Array
      if (b.encoding === 'bytes') bytes = Uint8Array.from(b.value as number[])
      else if (b.encoding === 'raw') bytes = new TextEncoder().encode(String(b.value))
      else if (b.encoding === 'urlencoded') {
        const form = new URLSearchParams()
        const value = b.value
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          for (const [k, v] of Object.entries(value)) form.append(k, formValue(v))
        } else form.append('value', formValue(value))
        bytes = new TextEncoder().encode(form.toString())
      } else bytes = new TextEncoder().encode(JSON.stringify(b.value) ?? '')
      // As a real client would send it: Bun's server sets it, app.handle does not.
      headers.set('content-length', String(bytes.byteLength))
      if (req.signed && sign)
        for (const [name, value] of Object.entries(sign(bytes))) headers.set(name, value)
      body = bytes
    }
    if (b.contentType !== null && b.encoding !== 'multipart') headers.set('content-type', b.contentType)
  }
  return new Request(`${base}${req.path}${queryString(req.query)}`, { method: req.method, headers, body })
}

const HUGE = 200

/** A request for a failure report: huge strings cut down, everything else as sent. */
export function describeRequest(req: FuzzRequest): string {
  const cut = (_: string, v: unknown) =>
    typeof v === 'string' && v.length > HUGE ? `${v.slice(0, 60)}…(${v.length} chars)` : v
  const lines = [`${req.method} ${req.path}${queryString(req.query)}   [${req.kind}]`]
  for (const [k, v] of Object.entries(req.headers)) lines.push(`${k}: ${cut('', v)}`)
  if (req.body && req.method !== 'GET') {
    lines.push(`(body ${req.body.encoding}, content-type ${req.body.contentType ?? 'none'})`)
    lines.push(JSON.stringify(req.body.value, cut) ?? 'undefined')
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------
// Valid requests

/** Header-safe text: printable ASCII only, so the Request constructor accepts it (by code point; a lone surrogate becomes U+FFFD first). */
const headerSafe = (s: string) =>
  s
    .toWellFormed()
    .replace(/[^\x20-\x7e]/gu, (c) => encodeURIComponent(c))
    .trim()

function paramText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}

function parameterArbitrary(
  doc: SchemaRoot,
  p: Parameter,
  seen?: ReadonlyMap<string, readonly string[]>,
): fc.Arbitrary<string[]> {
  const schema: Schema = p.schema ?? {}
  const generated = arbitrary(doc, schema)
    .map((v) => (Array.isArray(v) && p.in === 'query' ? v.map(paramText) : [paramText(v)]))
    .filter((vs) => p.in !== 'path' || (vs[0] ?? '') !== '')
  const known = p.in === 'path' ? seen?.get(p.name) : undefined
  if (!known?.length) return generated
  return fc.oneof(
    { arbitrary: fc.constantFrom(...known).map((v) => [v]), weight: 3 },
    { arbitrary: generated, weight: 1 },
  )
}

const encodeComponent = (s: string) => encodeURIComponent(s.toWellFormed())

function fillPath(template: string, values: Record<string, string>, encode = true): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encode ? encodeComponent(values[name] ?? '') : (values[name] ?? ''),
  )
}

function encodingOf(contentType: string): FuzzBody['encoding'] {
  if (contentType.startsWith('multipart/')) return 'multipart'
  if (contentType === 'application/x-www-form-urlencoded') return 'urlencoded'
  return contentType.includes('json') ? 'json' : 'raw'
}

/** Requests valid against the operation's declared schemas. */
export function validRequest(ctx: OperationContext): fc.Arbitrary<FuzzRequest> {
  const { doc, op, credentials } = ctx
  const params = op.parameters.filter((p) => p.in !== 'cookie')
  const paramArbs = params.map((p) =>
    p.required
      ? parameterArbitrary(doc, p, ctx.seen).map((v) => v as string[] | null)
      : fc.option(parameterArbitrary(doc, p, ctx.seen)),
  )
  const declared = new Set(Object.keys((op.body?.schema as Schema | undefined)?.properties ?? {}))
  const credentialFields = Object.fromEntries(
    Object.entries(credentials.body).filter(([k]) => declared.has(k)),
  )
  // Top-level string fields named like a value seen in an earlier 2xx answer (a run_id, a
  // proposal_id) mostly carry that value, so routes that act on existing state get past "unknown".
  const bodyProps = (op.body ? resolveRef(doc, op.body.schema as Schema).properties : undefined) ?? {}
  const seenFields = Object.entries(bodyProps).flatMap(([name, ps]) => {
    const known = ctx.seen?.get(name)
    return known?.length && resolveRef(doc, ps).type === 'string' ? [[name, known] as const] : []
  })
  const seenArb = fc.tuple(
    ...seenFields.map(([name, known]) =>
      fc.option(fc.constantFrom(...known), { freq: 4 }).map((v) => [name, v] as const),
    ),
  )
  const bodyArb: fc.Arbitrary<FuzzBody | undefined> = op.body
    ? fc
        .record({
          value: arbitrary(doc, op.body.schema),
          contentType: fc.constantFrom(...op.body.contentTypes),
          // Most valid requests carry the credentials; the rest exercise the refusal paths.
          credentialed: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, fc.constant(false)),
          seenValues: seenArb,
        })
        .map(({ value, contentType, credentialed, seenValues }): FuzzBody => {
          if (jsonType(value) !== 'object') return { encoding: encodingOf(contentType), contentType, value }
          const known = Object.fromEntries(seenValues.filter(([, v]) => v !== null))
          const fields = { ...(value as Record<string, unknown>), ...known }
          const withCreds = credentialed ? { ...fields, ...credentialFields } : fields
          return { encoding: encodingOf(contentType), contentType, value: withCreds }
        })
    : fc.constant(undefined)
  const maybeBody =
    op.body && !op.body.required ? fc.option(bodyArb, { freq: 5 }).map((b) => b ?? undefined) : bodyArb
  return fc.tuple(fc.tuple(...paramArbs), maybeBody).map(([values, body]) => {
    const pathValues: Record<string, string> = {}
    const query: [string, string][] = []
    const headers: Record<string, string> = { accept: 'application/json', ...credentials.headers }
    params.forEach((p, i) => {
      const v = values[i]
      if (v === null || v === undefined) return
      if (p.in === 'path') pathValues[p.name] = v[0] ?? ''
      else if (p.in === 'query') for (const one of v) query.push([p.name, one])
      else if (p.in === 'header') headers[p.name.toLowerCase()] = headerSafe(v[0] ?? '')
    })
    const req: FuzzRequest = {
      kind: 'valid',
      method: op.method,
      path: fillPath(op.path, pathValues),
      query,
      headers,
      signed: credentials.sign !== undefined,
    }
    if (body) req.body = body
    return req
  })
}

// ---------------------------------------------------------------------------------------------
// Mutations

export interface Mutation {
  label: string
  apply(req: FuzzRequest, ctx: OperationContext): FuzzRequest
}

/** Strings that have broken parsers, databases and loggers before. */
export const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\u202egnp.exe',
  '\u200b\u200c\u200d\ufeff',
  '\ufeff{"a":1}',
  'e\u0301'.repeat(200),
  '👨‍👩‍👧‍👦'.repeat(20),
  '\u{10ffff}',
  '\r\n\r\n',
  '\t',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '__proto__',
  '{"$gt":""}',
  "'; DROP TABLE users; --",
  '../../../../etc/passwd',
  '%00%ZZ%',
  '<script>alert(1)</script>',
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  '${jndi:ldap://x}',
  'Ω≈ç√∫˜µ≤≥÷',
  'ＡＢＣ０１２',
]

/** Keys of Object.prototype that code reaches through a value (`${v}`, `v.constructor`, …). */
export const PROTOTYPE_KEYS = ['toString', 'valueOf', 'constructor', '__proto__', 'hasOwnProperty'] as const

/**
 * Objects whose own keys shadow Object.prototype, with JSON values (never callable): `${v}` or
 * String(v) throws on them. Built through JSON.parse so `__proto__` is an own key, as a server
 * parsing the request sees it.
 */
export function shadowingObject(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.subarray([...PROTOTYPE_KEYS], { minLength: 1 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), {
        minLength: PROTOTYPE_KEYS.length,
        maxLength: PROTOTYPE_KEYS.length,
      }),
    )
    .map(([keys, values]) =>
      JSON.parse(
        `{${keys.map((k, i) => `${JSON.stringify(k)}:${JSON.stringify(values[i] ?? null)}`).join(',')}}`,
      ),
    )
}

export const WRONG_TYPED_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  'text',
  '',
  [],
  [1, 'a'],
  {},
  { a: 1 },
]

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'text/html',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/JSON',
  'application/vnd.api+json',
  'application/json;',
  'application/json, text/plain',
  '*/*',
  'json',
  '',
]

const MALFORMED_JSON = [
  '',
  '{',
  '}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '[1,2',
  'undefined',
  'NaN',
  '{"a":01}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a" 1}',
  '\ufeff{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  'nul',
  '"unterminated',
]

const BAD_PATH_SEGMENTS = [
  '%',
  '%ZZ',
  '%00',
  '%E0%A4%A',
  '%C0%AE',
  '%F0%9F%92',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '-1',
  '0',
  '1.5',
  '1e309',
  'NaN',
  'null',
  '99999999999999999999999',
  encodeURIComponent('💥'),
  encodeURIComponent('\u202e'),
  "'",
  '%22',
  '%3Cx%3E',
  ';a=1',
  '~',
  'x'.repeat(3000),
]

const BAD_QUERY = [
  '%',
  '%ZZ',
  'a=%ZZ',
  'a&&&b',
  '=',
  '==',
  'a[b]=1',
  'a[]=1&a[]=2',
  `q=${'x'.repeat(5000)}`,
  '__proto__=1',
  'constructor[prototype][x]=1',
]

const HUGE_LENGTHS = [1_000, 70_000, 300_000]

/** Deep enough to overflow a recursive validator, shallow enough to keep a CI run short. */
const NESTING_DEPTHS = [64, 1_000, 5_000]

function bodyObject(req: FuzzRequest): Record<string, unknown> | undefined {
  const v = req.body?.value
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Blob)
    ? (v as Record<string, unknown>)
    : undefined
}

function withBodyValue(req: FuzzRequest, value: unknown): FuzzRequest {
  const body = req.body ?? { encoding: 'json', contentType: 'application/json', value }
  return { ...req, body: { ...body, value } }
}

/** The field a body mutation targets: declared ones first, so required fields get hit. */
function pickKey(req: FuzzRequest, ctx: OperationContext, pick: number): string | undefined {
  const schema = ctx.op.body?.schema as Schema | undefined
  const keys = [...new Set([...(schema?.required ?? []), ...Object.keys(bodyObject(req) ?? {})])]
  return keys.length === 0 ? undefined : keys[pick % keys.length]
}

function setField(
  req: FuzzRequest,
  ctx: OperationContext,
  pick: number,
  value: unknown,
  label: string,
): FuzzRequest {
  const obj = bodyObject(req)
  const key = pickKey(req, ctx, pick)
  if (!obj || key === undefined) return { ...withBodyValue(req, value), kind: `${label} (whole body)` }
  return { ...withBodyValue(req, { ...obj, [key]: value }), kind: `${label} at ${key}` }
}

function jsonText(req: FuzzRequest): string {
  return JSON.stringify(req.body?.value ?? {}) ?? '{}'
}

function rawJson(
  req: FuzzRequest,
  text: string,
  kind: string,
  contentType: string | null = 'application/json',
): FuzzRequest {
  return { ...req, kind, body: { encoding: 'raw', contentType, value: text } }
}

function nest(depth: number, style: number): string {
  return style % 2 === 0
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

/** Mutations that break the body; only offered to operations that take one. */
function bodyMutations(): fc.Arbitrary<Mutation>[] {
  const pick = fc.nat(50)
  return [
    pick.map((p) => ({
      label: 'missing field',
      apply: (req, ctx) => {
        const obj = bodyObject(req)
        const key = pickKey(req, ctx, p)
        if (!obj || key === undefined) return { ...req, kind: 'missing field (no fields)' }
        const { [key]: _, ...rest } = obj
        return { ...withBodyValue(req, rest), kind: `missing field ${key}` }
      },
    })),
    fc
      .tuple(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 16 }),
          fc.constantFrom(...PROTOTYPE_KEYS, 'prototype', 'id', 'created_at', 'version'),
        ),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), shadowingObject()),
      )
      .map(([key, value]) => ({
        label: 'extra field',
        apply: (req) => ({
          ...withBodyValue(req, { ...bodyObject(req), [key]: value }),
          kind: `extra field ${JSON.stringify(key)}`,
        }),
      })),
    fc.tuple(pick, fc.constantFrom(...WRONG_TYPED_VALUES)).map(([p, value]) => ({
      label: 'wrong type',
      apply: (req, ctx) => setField(req, ctx, p, value, `wrong type ${JSON.stringify(value)}`),
    })),
    fc.tuple(pick, shadowingObject(), fc.nat(3)).map(([p, value, where]) => ({
      label: 'prototype keys',
      apply: (req, ctx) => {
        const kind = `own keys ${Object.keys(value).join(',')}`
        // Mostly a field (where strings are declared), now and then the whole body.
        return where === 0
          ? { ...withBodyValue(req, value), kind: `${kind} (whole body)` }
          : setField(req, ctx, p, value, kind)
      },
    })),
    pick.map((p) => ({
      label: 'empty string',
      apply: (req, ctx) => setField(req, ctx, p, '', 'empty string'),
    })),
    fc
      .tuple(pick, fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom('x', 'é', '😀', ' '))
      .map(([p, n, ch]) => ({
        label: 'huge string',
        apply: (req, ctx) =>
          setField(req, ctx, p, ch.repeat(n), `huge string (${n} × ${JSON.stringify(ch)})`),
      })),
    fc
      .tuple(pick, fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string({ unit: 'binary', maxLength: 40 })))
      .map(([p, s]) => ({
        label: 'odd unicode',
        apply: (req, ctx) => setField(req, ctx, p, s, 'odd unicode'),
      })),
    fc
      .tuple(pick, fc.constantFrom(...NESTING_DEPTHS), fc.nat(1), fc.boolean())
      .map(([p, depth, style, whole]) => ({
        label: 'deep nesting',
        apply: (req, ctx) => {
          const obj = bodyObject(req)
          const key = pickKey(req, ctx, p)
          if (whole || !obj || key === undefined)
            return rawJson(req, nest(depth, style), `deep nesting ${depth} (whole body)`)
          const marker = '"__fuzz_deep__"'
          const text = JSON.stringify({ ...obj, [key]: '__fuzz_deep__' }).replace(marker, nest(depth, style))
          return rawJson(req, text, `deep nesting ${depth} at ${key}`)
        },
      })),
    fc.constantFrom<unknown>(null, 0, 'text', true, [], [{}], [1, 2, 3]).map((value) => ({
      label: 'body of the wrong type',
      apply: (req) => ({ ...withBodyValue(req, value), kind: `body is ${JSON.stringify(value)}` }),
    })),
    fc
      .oneof(
        fc.constantFrom(...MALFORMED_JSON).map((text) => ({ text, how: 'malformed JSON' })),
        fc.nat(10_000).map((cut) => ({ text: '', cut, how: 'truncated JSON' })),
      )
      .map((m) => ({
        label: 'malformed JSON',
        apply: (req) => {
          if (!('cut' in m)) return rawJson(req, m.text, `malformed JSON ${JSON.stringify(m.text)}`)
          const full = jsonText(req)
          const at = full.length <= 1 ? 0 : (m.cut ?? 0) % (full.length - 1)
          return rawJson(req, full.slice(0, at), `truncated JSON at ${at}`)
        },
      })),
    fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 8 }).map((bytes) => ({
      label: 'invalid UTF-8',
      apply: (req) => {
        const text = new TextEncoder().encode(jsonText(req).replace(/}$/, ',"x":"'))
        return {
          ...req,
          kind: 'invalid UTF-8 in JSON',
          body: {
            encoding: 'bytes',
            contentType: 'application/json',
            value: [...text, ...bytes, 0x22, 0x7d],
          },
        }
      },
    })),
    fc.constantFrom(...CONTENT_TYPES).map((type) => ({
      label: 'wrong content type',
      apply: (req) => rawJson(req, jsonText(req), `wrong content type ${JSON.stringify(type)}`, type),
    })),
    fc.constant<Mutation>({
      label: 'missing content type',
      apply: (req) => rawJson(req, jsonText(req), 'missing content type', null),
    }),
    fc.constantFrom('', 'no body').map((how) => ({
      label: 'missing body',
      apply: (req) =>
        how === ''
          ? rawJson(req, '', 'empty body with a JSON content type')
          : {
              ...req,
              body: undefined,
              headers: { ...req.headers, 'content-type': 'application/json' },
              kind: 'no body',
            },
    })),
    fc.constant<Mutation>({
      label: 'oversize body',
      apply: (req, ctx) => {
        const obj = bodyObject(req) ?? {}
        const padding = 'x'.repeat(ctx.maxBodyBytes + 1024)
        return rawJson(
          req,
          JSON.stringify({ ...obj, padding }),
          `oversize body (> ${ctx.maxBodyBytes} bytes)`,
        )
      },
    }),
    fc.tuple(pick, fc.constantFrom('multipart', 'urlencoded')).map(([p, how]) => ({
      label: 'odd form',
      apply: (req, ctx) => {
        const obj = bodyObject(req) ?? {}
        const key = pickKey(req, ctx, p) ?? 'field'
        if (how === 'multipart') {
          const value = {
            ...obj,
            [key]: new File(['%PDF-1.4 fuzz'], 'fuzz.pdf', { type: 'application/pdf' }),
          }
          return {
            ...req,
            kind: `multipart with a file at ${key}`,
            body: { encoding: 'multipart', contentType: null, value },
          }
        }
        const pairs = Object.entries(obj).map(([k, v]): [string, string] => [k, formValue(v)])
        const text = `${new URLSearchParams(pairs)}&${key}=second&${key}[nested]=1`
        return rawJson(req, text, `urlencoded with repeated ${key}`, 'application/x-www-form-urlencoded')
      },
    })),
  ]
}

/** Mutations of the method, path, query and headers; offered to every operation. */
function envelopeMutations(ctx: OperationContext): fc.Arbitrary<Mutation>[] {
  const pathParams = ctx.op.parameters.filter((p) => p.in === 'path')
  const queryParams = ctx.op.parameters.filter((p) => p.in === 'query')
  const out: fc.Arbitrary<Mutation>[] = []
  if (pathParams.length > 0) {
    out.push(
      fc.tuple(fc.nat(10), fc.constantFrom(...BAD_PATH_SEGMENTS, '')).map(([p, bad]) => ({
        label: 'bad path parameter',
        apply: (req) => {
          const name = pathParams[p % pathParams.length]!.name
          // Rebuild the path from the template with this parameter raw, the others as generated.
          const segments = ctx.op.path.split('/')
          const actual = req.path.split('/')
          const path = segments
            .map((s, i) => (s === `{${name}}` ? bad : s.includes('{') ? (actual[i] ?? 'x') : s))
            .join('/')
          return { ...req, path, kind: `bad path parameter ${name}=${JSON.stringify(bad.slice(0, 40))}` }
        },
      })),
    )
  }
  out.push(
    fc.constantFrom(...BAD_PATH_SEGMENTS, 'extra', '').map((bad) => ({
      label: 'extra path segment',
      apply: (req) => ({
        ...req,
        path: `${req.path.replace(/\/$/, '')}/${bad}`,
        kind: `extra path segment ${JSON.stringify(bad.slice(0, 40))}`,
      }),
    })),
  )
  if (queryParams.length > 0) {
    out.push(
      fc
        .tuple(
          fc.nat(10),
          fc.oneof(
            fc.constantFrom(...ODD_STRINGS, 'abc', '-1', '1e999', 'true', 'x'.repeat(5000)),
            fc.string(),
          ),
        )
        .map(([p, bad]) => ({
          label: 'bad query parameter',
          apply: (req) => {
            const name = queryParams[p % queryParams.length]!.name
            const query = req.query.filter(([k]) => k !== name)
            return { ...req, query: [...query, [name, bad]], kind: `bad query parameter ${name}` }
          },
        })),
      fc.nat(10).map((p) => ({
        label: 'missing or repeated query parameter',
        apply: (req) => {
          const name = queryParams[p % queryParams.length]!.name
          const present = req.query.find(([k]) => k === name)
          return present
            ? { ...req, query: [...req.query, present], kind: `repeated query parameter ${name}` }
            : {
                ...req,
                query: req.query.filter(([k]) => k !== name),
                kind: `missing query parameter ${name}`,
              }
        },
      })),
    )
  }
  out.push(
    fc.constantFrom(...BAD_QUERY).map((raw) => ({
      label: 'odd query string',
      apply: (req) => ({
        ...req,
        path: `${req.path}?${raw}`,
        query: [],
        kind: `odd query string ${JSON.stringify(raw.slice(0, 40))}`,
      }),
    })),
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS').map((method) => ({
      label: 'wrong method',
      apply: (req, c) =>
        c.pathMethods.includes(method)
          ? { ...req, kind: 'wrong method (declared, skipped)' }
          : { ...req, method, kind: `wrong method ${method}` },
    })),
    fc
      .tuple(
        fc.constantFrom(
          'x-request-id',
          'accept',
          'content-length',
          'authorization',
          'cookie',
          'x-forwarded-for',
        ),
        fc.constantFrom(
          '',
          ' ',
          'x'.repeat(8000),
          '%00',
          '-1',
          'Bearer',
          'Bearer ',
          '*/*;q=abc',
          '../../',
          '\u00ff',
        ),
      )
      .map(([name, value]) => ({
        label: 'odd header',
        apply: (req) => ({
          ...req,
          headers: { ...req.headers, [name]: value },
          kind: `odd header ${name}=${JSON.stringify(value.slice(0, 20))}`,
        }),
      })),
  )
  if (Object.keys(ctx.credentials.headers).length > 0 || ctx.credentials.sign) {
    out.push(
      fc.constantFrom('drop', 'garble').map((how) => ({
        label: 'bad credentials',
        apply: (req) => {
          const headers = { ...req.headers }
          for (const name of Object.keys(ctx.credentials.headers)) {
            if (how === 'drop') delete headers[name]
            else headers[name] = `${headers[name] ?? ''}x`
          }
          // The body signature goes with the credentials: a signed route then sees none.
          return {
            ...req,
            headers,
            signed: false,
            kind: `credentials ${how === 'drop' ? 'dropped' : 'garbled'}`,
          }
        },
      })),
    )
  }
  return out
}

/** Valid requests broken by exactly one mutation. */
export function mutatedRequest(ctx: OperationContext): fc.Arbitrary<FuzzRequest> {
  const takesBody = ctx.op.body !== undefined || !['GET', 'HEAD'].includes(ctx.op.method)
  const mutations = [...envelopeMutations(ctx), ...(takesBody ? bodyMutations() : [])]
  return fc.tuple(validRequest(ctx), fc.oneof(...mutations)).map(([req, m]) => m.apply(req, ctx))
}

/** Requests to routes the document does not have, for the unknown-route property. */
export function unknownRouteRequest(known: string[]): fc.Arbitrary<FuzzRequest> {
  const segment = fc.oneof(
    fc.constantFrom(
      'api',
      'v1',
      'admin',
      '.env',
      '.git',
      'config',
      'wp-login.php',
      'openapi.json',
      'health',
      '..',
      '%2e%2e',
      '%ZZ',
      '%00',
    ),
    fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent),
  )
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      segments: fc.array(segment, { minLength: 1, maxLength: 5 }),
      json: fc.boolean(),
    })
    .map(({ method, segments, json }) => {
      const path = `/${segments.join('/')}`
      const req: FuzzRequest = {
        kind: 'unknown route',
        method,
        path,
        query: [],
        headers: { accept: 'application/json' },
      }
      if (json && method !== 'GET')
        req.body = { encoding: 'json', contentType: 'application/json', value: { a: 1 } }
      return req
    })
    .filter((r) => !known.includes(`${r.method} ${r.path}`))
}

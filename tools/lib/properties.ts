/**
 * What must hold for every answer the fuzzer gets: no 5xx (a declared 503 fail-closed answer
 * excepted), no stack trace or internal path, the error envelope on every 4xx, and 2xx bodies
 * that match the declared response schema.
 */
import { declaredResponse, type Operation } from './openapi.ts'
import { describeRequest, type FuzzRequest } from './requests.ts'
import { type SchemaRoot, validate } from './schema.ts'

/** A 4xx whose shape the spec fixes to something other than the envelope. Keep this list short. */
export interface EnvelopeException {
  unit: string
  method: string
  /** OpenAPI path template, or `*` for any path (unknown routes included). */
  path: string
  status: number
  /** Media type the answer has instead of JSON. */
  contentType: string
  /** When set, the body must be exactly this text. */
  body?: string
  /** A JSON-RPC 2.0 error object (`{jsonrpc, error: {code: integer, message}}`) stands for the envelope. */
  jsonRpcError?: true
  /** When set, the exception applies only if the request's Accept header contains this. */
  accept?: string
  why: string
}

export const ENVELOPE_EXCEPTIONS: EnvelopeException[] = [
  {
    unit: 'mailbox',
    method: 'POST',
    path: '/publish',
    status: 413,
    contentType: 'text/plain',
    body: 'payload too large',
    why: 'docs/conventions.md §3: the mailbox adapter answers an oversize publish with the text `payload too large`',
  },
  {
    unit: 'web',
    method: 'GET',
    path: '*',
    status: 404,
    contentType: 'text/html',
    accept: 'text/html',
    why: 'a browser asking for a missing page gets the site’s HTML 404 page',
  },
  // The MCP gateway speaks JSON-RPC: the SDK's transport refuses a message that is not JSON-RPC
  // (400) and a client that does not accept both JSON and event streams (406) with JSON-RPC
  // error objects, which is what MCP clients read. Its own refusals (401, 405) are envelopes.
  ...[400, 406].map(
    (status): EnvelopeException => ({
      unit: 'eis',
      method: 'POST',
      path: '/mcp',
      status,
      contentType: 'application/json',
      jsonRpcError: true,
      why: 'MCP over Streamable HTTP answers protocol errors as JSON-RPC error objects',
    }),
  ),
]

/**
 * Failures already reported and waiting for a fix outside the harness. Matching problems are
 * counted, not failed, so the rest of the property keeps running; each run says whether they
 * still reproduce. Remove an entry once its fix lands.
 */
export interface KnownIssue {
  id: string
  /** Unit name, or `*`. */
  unit: string
  /** Matches the request's kind (`valid`, or the mutation label). */
  kind: RegExp
  /** Matches one problem line. */
  problem: RegExp
  /** Narrows further by the request itself. */
  when?(req: FuzzRequest): boolean
  note: string
}

/**
 * None open. Fixed so far (common/wire.ts, common/openapi.ts): JSON nested ~5000 deep (500 from
 * a recursive validator), lone surrogates in hashed fields (500 from RFC 8785 canonicalization),
 * nullable literal enums published without null.
 */
export const KNOWN_ISSUES: KnownIssue[] = []

export function knownIssue(unit: string, req: FuzzRequest, problem: string): KnownIssue | undefined {
  return KNOWN_ISSUES.find(
    (k) =>
      (k.unit === '*' || k.unit === unit) &&
      k.kind.test(req.kind) &&
      k.problem.test(problem) &&
      (k.when === undefined || k.when(req)),
  )
}

export interface CheckContext {
  unit: string
  doc: SchemaRoot
  /** Undefined for requests to unknown routes. */
  op: Operation | undefined
  /** Strings that must never appear in an error body (repository root, data directory). */
  internalPaths: string[]
}

const SNAKE = /^[a-z][a-z0-9_]*$/

/** Text that betrays the inside of the process. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /^\s*at\s+\S.*:\d+:\d+\)?\s*$/m],
  ['stack frame', /\bat\s+(?:async\s+)?[\w$.<>]+\s+\((?:\/|file:|node:|native)/],
  ['internal path', /\/work\//],
  ['internal path', /node_modules/],
  ['internal path', /file:\/\/\//],
  ['runtime error name', /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|SQLiteError|DrizzleError)\b/],
  ['SQLite error code', /\bSQLITE_[A-Z_]+\b/],
]

function mediaType(res: Response): string {
  return (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}

function leaks(text: string, ctx: CheckContext, requestText: string, status: number): string[] {
  const out: string[] = []
  // A configured directory may be a declared field of a success body (RMS `host_dir`);
  // in an error body it is a leak.
  const paths = status >= 400 ? ctx.internalPaths : []
  const patterns: [string, RegExp][] = [
    ...LEAKS,
    ...paths
      .filter(Boolean)
      .map((p): [string, RegExp] => ['internal path', new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))]),
  ]
  for (const [what, re] of patterns) {
    const m = re.exec(text)
    // What the request itself carried may be echoed back (validation messages): not a leak.
    if (m && !requestText.includes(m[0])) out.push(`${what} in body: ${JSON.stringify(m[0].slice(0, 120))}`)
  }
  return out
}

function exceptionFor(
  ctx: CheckContext,
  req: FuzzRequest,
  status: number,
  res: Response,
): EnvelopeException | undefined {
  const accept = req.headers.accept ?? ''
  return ENVELOPE_EXCEPTIONS.find(
    (e) =>
      e.unit === ctx.unit &&
      e.status === status &&
      e.method === req.method &&
      (e.path === '*' || e.path === ctx.op?.path) &&
      mediaType(res) === e.contentType &&
      (e.accept === undefined || accept.includes(e.accept)),
  )
}

function isJsonRpcError(parsed: { ok: true; value: unknown } | { ok: false }): boolean {
  if (!parsed.ok) return false
  const v = parsed.value as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } }
  return v?.jsonrpc === '2.0' && Number.isInteger(v.error?.code) && typeof v.error?.message === 'string'
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

function envelopeProblems(value: unknown): string[] {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error
  if (error === null || typeof error !== 'object') return ['4xx body has no `error` object']
  const out: string[] = []
  if (typeof error.code !== 'string') out.push('4xx `error.code` is not a string')
  else if (!SNAKE.test(error.code))
    out.push(`4xx \`error.code\` ${JSON.stringify(error.code)} is not snake_case`)
  if (typeof error.message !== 'string' || error.message === '')
    out.push('4xx `error.message` is not a non-empty string')
  return out
}

/** Every property violated by one answer; [] when it holds. */
export function checkResponse(
  ctx: CheckContext,
  req: FuzzRequest,
  status: number,
  res: Response,
  text: string,
): string[] {
  const problems = leaks(text, ctx, describeRequest(req) + JSON.stringify(req.body?.value ?? ''), status)
  const declared = ctx.op ? declaredResponse(ctx.op, status) : undefined
  const type = mediaType(res)
  const jsonDeclared = declared ? Object.keys(declared).some((t) => t.includes('json')) : false
  const schemaCheck = () => {
    const schema = declared?.[type] ?? (type.includes('json') ? declared?.['application/json'] : undefined)
    if (!declared) return
    if (
      !Object.keys(declared).includes(type) &&
      !(jsonDeclared && type.includes('json')) &&
      Object.keys(declared).length > 0
    ) {
      problems.push(
        `${status} answered with content type ${JSON.stringify(type)}; declared: ${Object.keys(declared).join(', ')}`,
      )
      return
    }
    if (!schema) return
    if (type.includes('json')) {
      const parsed = parseJson(text)
      if (!parsed.ok) problems.push(`${status} body is not JSON`)
      else problems.push(...validate(ctx.doc, schema, parsed.value).map((p) => `${status} body ${p}`))
    }
  }

  if (status >= 500) {
    // A declared 503 is a route failing closed on a dependency, not a crash; 500 never is.
    if (status === 503 && declared) schemaCheck()
    else problems.push(`${status} answer${text ? `: ${text.slice(0, 200)}` : ''}`)
  } else if (status >= 400) {
    const found = exceptionFor(ctx, req, status, res)
    // A JSON-RPC exception covers the transport's own errors; the wire's refusals on the same
    // route (malformed JSON, oversize) are still the envelope, checked as everywhere else.
    const exception = found?.jsonRpcError && !isJsonRpcError(parseJson(text)) ? undefined : found
    if (exception) {
      if (exception.body !== undefined && text !== exception.body) {
        problems.push(`${status} body should be ${JSON.stringify(exception.body)} (${exception.why})`)
      }
    } else if (req.method !== 'HEAD') {
      const parsed = type.includes('json') ? parseJson(text) : { ok: false as const }
      if (!parsed.ok)
        problems.push(
          `${status} without the JSON error envelope (content type ${JSON.stringify(type)}): ${text.slice(0, 120)}`,
        )
      else {
        problems.push(...envelopeProblems(parsed.value))
        if (declared) schemaCheck()
      }
    }
  } else if (status >= 200 && status < 300 && ctx.op) {
    if (!declared) problems.push(`${status} is not a declared response of ${ctx.op.key}`)
    else if (status !== 204 && req.method !== 'HEAD') schemaCheck()
  }
  return problems
}

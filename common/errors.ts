import { t } from 'elysia'

/**
 * The project's error: thrown anywhere, mapped to the envelope by the wire plugin.
 * The wire code lives in `errorCode`, not `code`: Elysia reads a thrown object's `code`
 * to classify it.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly details?: unknown,
    /** Route-specific fields the spec places beside `error` (for example PWS remediation). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const badRequest = (errorCode: string, message: string, details?: unknown) =>
  new AppError(400, errorCode, message, details)
export const unauthorized = (errorCode: string, message: string, details?: unknown) =>
  new AppError(401, errorCode, message, details)
export const forbidden = (errorCode: string, message: string, details?: unknown) =>
  new AppError(403, errorCode, message, details)
export const notFound = (errorCode: string, message: string, details?: unknown) =>
  new AppError(404, errorCode, message, details)
export const conflict = (
  errorCode: string,
  message: string,
  details?: unknown,
  extra?: Record<string, unknown>,
) => new AppError(409, errorCode, message, details, extra)
export const unprocessable = (errorCode: string, message: string, details?: unknown) =>
  new AppError(422, errorCode, message, details)
export const unavailable = (errorCode: string, message: string, details?: unknown) =>
  new AppError(503, errorCode, message, details)

export const ErrorEnvelope = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'snake_case machine-readable code' }),
      message: t.String({ description: 'one human sentence' }),
      details: t.Optional(t.Unknown()),
    }),
  },
  { additionalProperties: true, description: 'Error envelope (docs/conventions.md §2)' },
)

export interface Envelope {
  error: { code: string; message: string; details?: unknown }
  [extra: string]: unknown
}

export function envelope(code: string, message: string, details?: unknown): Envelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } }
}

export function appErrorBody(err: AppError): Envelope {
  return { ...err.extra, ...envelope(err.errorCode, err.message, err.details) }
}

/** A route's error responses: each listed status answers with the envelope. */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof ErrorEnvelope> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope])) as Record<S, typeof ErrorEnvelope>
}

/**
 * SQLite result codes (and their extended forms, `SQLITE_IOERR_WRITE` …) that say the database
 * cannot be used right now, not that the statement is wrong: locked past the busy timeout, disk
 * full or failing, file gone, read-only or not a database. A constraint or syntax error is not
 * here: that is a defect, and stays a 500.
 */
const UNAVAILABLE_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB|PROTOCOL|NOMEM)/
/** Network failures reaching a libSQL server (the client's fetch), and this suite's closed storage. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ConnectionRefused',
  'ConnectionClosed',
  'STORAGE_CLOSED',
])

/**
 * Whether a failure means the unit's database is unavailable (then the answer is 503
 * `persistence_unavailable`, not a 500): the error or one of its causes (Drizzle wraps a driver's
 * error as `cause`) carries one of the codes above, is bun:sqlite's use of a closed handle, or is
 * the libSQL client's own "closed" or transport error.
 */
export function isStorageUnavailable(error: unknown): boolean {
  let e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const code = typeof e.code === 'string' ? e.code : ''
    if (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLITE.test(code)) return true
    if (e instanceof RangeError && e.message === 'Cannot use a closed database') return true
    // The libSQL client: closed, or the server answered its HTTP request with an error status.
    if (e.name === 'ClosedError' || e.name === 'HttpServerError') return true
    e = e.cause as typeof e
  }
  return false
}

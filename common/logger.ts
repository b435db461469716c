import { writeSync } from 'node:fs'
import pino, { type Logger } from 'pino'
import { nowIso } from './time.ts'

export type { Logger }

/**
 * Keys whose values are never written. Code logs chosen fields, never request headers or bodies;
 * this is the safety net. Top-level paths only: wildcard paths cost more than the rest of a line.
 */
const REDACT = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'api_key',
  'headers.authorization',
  'headers.cookie',
]

/**
 * JSON lines on stdout, no transports: pino's worker-thread transports do not survive
 * `bun build --compile`. Lines go through `stdoutLines` (one write per event-loop turn).
 */
export function createLogger(unit: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { unit },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination ?? stdoutLines(),
  )
}

/** The destination of every logger of this process: one per process, however many units run in it. */
let stdout: BatchedLines | undefined
const stdoutLines = (): BatchedLines => {
  stdout ??= new BatchedLines(1)
  return stdout
}

/**
 * Log lines collected during one event-loop turn and written to the descriptor with one
 * `write(2)` when the turn ends (and at exit). pino's own asynchronous destination (sonic-boom)
 * cost about 4 µs of CPU per line under request load, a fifth of a cached read's whole cost; this
 * costs under 1 µs (docs/benchmarks.md, "What a request log line costs"). A line is on its way
 * out by the end of the turn that wrote it (written as text: encoding it into a Buffer first cost
 * more than the write); a process killed with SIGKILL loses at most that
 * turn's lines. A full pipe (a slow log reader) is retried a millisecond later, never dropped;
 * a closed one (EPIPE) drops the lines, since there is nobody left to read them.
 */
export class BatchedLines {
  private pending: string[] = []
  private rest: Buffer | undefined
  private scheduled = false

  constructor(private readonly fd: number) {
    process.on('exit', () => this.flushSync())
  }

  write(line: string): boolean {
    this.pending.push(line)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flushSync())
    }
    return true
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync()
    cb?.()
  }

  flushSync(): void {
    this.scheduled = false
    let buf = this.rest
    this.rest = undefined
    if (this.pending.length > 0) {
      const text = this.pending.join('')
      this.pending = []
      if (buf === undefined) {
        // The common case, written as text: encoding it into a Buffer first cost more than the
        // write itself. Only a partial write keeps bytes (the unwritten rest).
        const written = this.writeText(text)
        if (written === undefined) return
        const total = Buffer.byteLength(text)
        if (written >= total) return
        buf = Buffer.from(text).subarray(written)
      } else {
        buf = Buffer.concat([buf, Buffer.from(text)])
      }
    }
    while (buf && buf.length > 0) {
      try {
        buf = buf.subarray(writeSync(this.fd, buf))
      } catch (err) {
        if ((err as { code?: string }).code === 'EAGAIN') this.retryLater(buf)
        return
      }
    }
  }

  /** Bytes written, or undefined when the descriptor refused (a full pipe keeps the text for later). */
  private writeText(text: string): number | undefined {
    try {
      return writeSync(this.fd, text)
    } catch (err) {
      if ((err as { code?: string }).code === 'EAGAIN') this.retryLater(Buffer.from(text))
      return undefined
    }
  }

  /** A full pipe: keep the unwritten bytes and try again a millisecond later. */
  private retryLater(rest: Buffer): void {
    this.rest = rest
    this.scheduled = true
    setTimeout(() => this.flushSync(), 1)
  }
}

/** The fields of the one line every request writes (common/wire.ts). */
export interface RequestLine {
  req_id: string
  method: string
  route: string
  status: number
  duration_ms: number
}

type PinoStream = { write(line: string): unknown }

/**
 * The per-request line, written straight to the logger's destination in exactly the shape pino
 * writes it (level, time, the logger's bindings, the fields, `msg`). Formatting it through pino's
 * general path (serializers, redaction, bindings per call) costs about 3.5 µs per line against
 * 0.5 µs here, a fifth of a cached read's whole cost (docs/benchmarks.md); these fields are
 * known, none is secret, and each string goes through JSON.stringify.
 */
export function requestLineWriter(log: Logger): (level: 'debug' | 'info', line: RequestLine) => void {
  const stream = (log as unknown as Record<symbol, PinoStream | undefined>)[pino.symbols.streamSym]
  if (stream === undefined || typeof stream.write !== 'function') {
    return (level, line) => {
      if (log.isLevelEnabled(level)) log[level](line, 'request')
    }
  }
  const bindings = JSON.stringify(log.bindings()).slice(1, -1)
  const prefix = bindings === '' ? '' : `${bindings},`
  // `"method":…,"route":…` per route and method: a unit has a few dozen; encoded once each, found
  // without building a key per request.
  const fragments = new Map<string, Map<string, string>>()
  let kept = 0
  const fragment = (method: string, route: string): string => {
    let byMethod = fragments.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      if (kept < MAX_FRAGMENTS) fragments.set(route, byMethod)
    }
    let f = byMethod.get(method)
    if (f === undefined) {
      f = `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)}`
      if (kept < MAX_FRAGMENTS) {
        byMethod.set(method, f)
        kept++
      }
    }
    return f
  }
  return (level, l) => {
    if (!log.isLevelEnabled(level)) return
    const id = JSON_SAFE.test(l.req_id) ? `"${l.req_id}"` : JSON.stringify(l.req_id)
    stream.write(
      `{"level":"${level}","time":"${nowIso()}",${prefix}"req_id":${id},${fragment(l.method, l.route)},"status":${l.status},"duration_ms":${l.duration_ms},"msg":"request"}\n`,
    )
  }
}

/** Characters a JSON string holds as they are (no quote, backslash or control character). */
const JSON_SAFE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
/** Distinct method and route pairs kept encoded; beyond (never, for a unit's routes) each is encoded per line. */
const MAX_FRAGMENTS = 1024

/**
 * What a log line says of a failure: name, code, message and stack, and the same of its causes.
 * Log a failure as `{ err: errorFields(err) }`, never its bare message: Drizzle's "Failed query" message lists the statement's parameters, which are request data (an
 * e-mail address, a token's hash): they are cut off, from the message and from the stack.
 */
export function errorFields(error: unknown, depth = 0): Record<string, unknown> {
  const e = error as { name?: unknown; code?: unknown; message?: unknown; stack?: unknown; cause?: unknown }
  const out: Record<string, unknown> = {
    name: e?.name,
    message: withoutParams(e?.message),
    stack: withoutParams(e?.stack),
  }
  if (typeof e?.code === 'string') out.code = e.code
  if (e?.cause !== undefined && e.cause !== null && depth < 3) out.cause = errorFields(e.cause, depth + 1)
  return out
}

const withoutParams = (text: unknown): unknown => {
  if (typeof text !== 'string') return text
  const at = text.indexOf('\nparams:')
  if (at === -1) return text
  const frames = text.indexOf('\n    at ', at)
  return `${text.slice(0, at)}\nparams: [not logged]${frames === -1 ? '' : text.slice(frames)}`
}

import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** Why a peer call gave no usable answer. */
export type PeerFailure = 'not_configured' | 'timeout' | 'unreachable' | 'bad_status' | 'bad_body'

export type PeerResult<T> =
  | { ok: true; status: number; body: T; headers: Headers }
  | { ok: false; reason: PeerFailure; status?: number; message: string; body?: unknown }

export interface PeerRequest<S extends TSchema | undefined> {
  /** Absolute URL; undefined or empty means the peer is not configured. */
  url: string | undefined
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  headers?: Record<string, string>
  /** Serialized as JSON with the JSON content type. */
  json?: unknown
  /** Sent as is (when the caller has to sign exact bytes). */
  body?: string | URLSearchParams
  timeoutMs: number
  /** When given, a 2xx body that does not match it is a `bad_body` failure. */
  schema?: S
  /** Statuses other than 2xx that still count as an answer (for example 404 for "unknown"). */
  acceptStatus?: number[]
}

type BodyOf<S> = S extends TSchema ? Static<S> : unknown

/**
 * The one way a unit calls another over HTTP: bounded by a timeout, never throws, and says
 * plainly why a call failed so the caller can fail closed.
 */
export async function callPeer<S extends TSchema | undefined = undefined>(
  req: PeerRequest<S>,
): Promise<PeerResult<BodyOf<S>>> {
  if (!req.url) return { ok: false, reason: 'not_configured', message: 'peer URL is not configured' }
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers }
  let body: string | URLSearchParams | undefined = req.body
  if (req.json !== undefined) {
    body = JSON.stringify(req.json)
    headers['content-type'] ??= 'application/json; charset=utf-8'
  }
  let res: Response
  try {
    res = await fetch(req.url, {
      method: req.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: 'manual',
    })
  } catch (err) {
    const name = (err as Error).name
    if (name === 'TimeoutError' || name === 'AbortError') {
      return { ok: false, reason: 'timeout', message: `no answer within ${req.timeoutMs} ms` }
    }
    return { ok: false, reason: 'unreachable', message: `connection failed: ${(err as Error).message}` }
  }
  const text = await res.text().catch(() => '')
  let parsed: unknown = text
  if (text !== '' && (res.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text)
    } catch {
      return { ok: false, reason: 'bad_body', status: res.status, message: 'answer is not valid JSON' }
    }
  }
  const accepted = res.ok || (req.acceptStatus ?? []).includes(res.status)
  if (!accepted) {
    return {
      ok: false,
      reason: 'bad_status',
      status: res.status,
      message: `peer answered ${res.status}`,
      body: parsed,
    }
  }
  if (req.schema && res.ok && !Value.Check(req.schema, parsed)) {
    const first = Value.Errors(req.schema, parsed).First()
    return {
      ok: false,
      reason: 'bad_body',
      status: res.status,
      message: `answer does not match the contract${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`,
    }
  }
  return { ok: true, status: res.status, body: parsed as BodyOf<S>, headers: res.headers }
}

/** The status `url` answers a GET with (its body read and dropped), or undefined without an answer in `timeoutMs`. */
export async function httpStatus(url: string, timeoutMs: number): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' })
    await res.arrayBuffer()
    return res.status
  } catch {
    return undefined
  }
}

export interface PollOptions {
  /** Give up after this many milliseconds. */
  deadlineMs: number
  /** Pause between attempts (default 25 ms). */
  everyMs?: number
  /** Which answer ends the wait (default: 200). */
  accept?: (status: number) => boolean
  /** Why waiting is pointless now (the process exited, say), or undefined to go on. */
  failed?: () => string | undefined
}

/**
 * Ask `url` until it answers as `accept` wants (a process started and listening, say). Throws
 * `<url> did not come up: <reason>` when `failed` names a reason or the deadline passes.
 */
export async function pollUntilUp(url: string, o: PollOptions): Promise<void> {
  const deadline = performance.now() + o.deadlineMs
  const accept = o.accept ?? ((status: number) => status === 200)
  for (;;) {
    const status = await httpStatus(url, Math.min(1000, o.deadlineMs))
    if (status !== undefined && accept(status)) return
    const reason =
      o.failed?.() ?? (performance.now() > deadline ? 'no answer before the deadline' : undefined)
    if (reason !== undefined) throw new Error(`${url} did not come up: ${reason}`)
    await Bun.sleep(o.everyMs ?? 25)
  }
}

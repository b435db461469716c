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

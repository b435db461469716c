/**
 * What the authority service's parts share: the decision types, the options, and the projection
 * layer as RMS sees it (whether it answered lately, and one call to it that is skipped while a
 * recent failure is fresh, so a hung layer costs one timeout, not one per request).
 */
import type { TSchema } from '@sinclair/typebox'
import type { AppError } from '../../../common/errors.ts'
import type { Counter, Registry } from '../../../common/metrics.ts'
import { callPeer, type PeerRequest } from '../../../common/peer.ts'
import { nowIso } from '../../../common/time.ts'
import type { LocalToken } from '../rules/local-tokens.ts'

export type Level = 'read' | 'write'
export type AuthoritySource = 'projection' | 'local'

export interface Authority {
  lane: 'bearer' | 'agent'
  subject: string
  read: boolean
  write: boolean
  authority_source: AuthoritySource
  projection_version: string | null
  cached: boolean
  degraded: boolean
  degraded_reason: string | null
}

export interface AuthorityOptions {
  baseUrl: string | undefined
  authToken: string | undefined
  production: boolean
  localTokens: Map<string, LocalToken>
  cacheTtlS: number
  degradedMaxAgeS: number
  timeoutMs: number
  /** After a failed call, the layer is not asked again for this long (answers fail fast instead). */
  retryAfterMs: number
  registry: Registry
}

export interface LayerState {
  reachable: boolean | null
  lastSuccessAt: string | null
  lastFailureAt: string | null
  lastError: string | null
  retryAt: number
  /** The projection version of the last token resolution the layer answered. */
  lastResolvedVersion: string | null
}

/** What the resolution and projection parts share: options, the layer's state, the decision counter. */
export interface AuthorityCore {
  opts: AuthorityOptions
  layer: LayerState
  decisions: Counter<'lane' | 'outcome'>
}

export const newLayerState = (): LayerState => ({
  reachable: null,
  lastSuccessAt: null,
  lastFailureAt: null,
  lastError: null,
  retryAt: 0,
  lastResolvedVersion: null,
})

export const layerHeaders = (opts: AuthorityOptions): Record<string, string> =>
  opts.authToken ? { authorization: `Bearer ${opts.authToken}` } : {}

export function markUp(layer: LayerState): void {
  layer.reachable = true
  layer.lastSuccessAt = nowIso()
  layer.retryAt = 0
}

export function markDown(core: AuthorityCore, message: string): void {
  core.layer.reachable = false
  core.layer.lastFailureAt = nowIso()
  core.layer.lastError = message
  core.layer.retryAt = Date.now() + core.opts.retryAfterMs
}

/** One call to the projection layer, unless it failed moments ago. */
export async function askLayer<S extends TSchema>(layer: LayerState, req: PeerRequest<S>) {
  if (Date.now() < layer.retryAt) {
    return {
      ok: false as const,
      reason: 'unreachable' as const,
      message: `not retried before ${new Date(layer.retryAt).toISOString()} (failed recently)`,
    }
  }
  return callPeer(req)
}

export function degradedNow(core: AuthorityCore): boolean {
  if (!core.opts.baseUrl) return core.opts.production
  return core.layer.reachable === false
}

/** Count the refusal by lane and code, then throw it. */
export function refuse(core: AuthorityCore, lane: string, err: AppError): never {
  core.decisions.inc({ lane, outcome: err.errorCode })
  throw err
}

import type { UnitContract } from '../../../common/contract.ts'
import { AppError } from '../../../common/errors.ts'
import type { Logger } from '../../../common/logger.ts'
import type { StorageGuard } from '../../../db/guard.ts'
import type { Sql, Storage } from '../../../db/storage.ts'
import type { AutomationSettings } from '../automation.ts'
import type { PwsCounters } from '../metrics.ts'
import type { Provider } from '../rules/delivery.ts'

/** The sandbox rules' configuration (CONTRACTS.md §6). */
export interface SandboxSettings {
  enabled: boolean
  projectPrefix: string
  ownerRepo: string | undefined
}

/** A code host PWS reads from: its REST API root, token and webhook secrets. */
export interface ProviderSettings {
  baseUrl: string
  token: string | undefined
  webhookSecrets: string[]
}

export interface OidcSettings {
  issuer: string
  clientId: string
  roleClaim: string
}

export interface PwsSettings {
  sandbox: SandboxSettings
  /** The project that receives support work from EIS, created on first use. */
  supportProjectId: string
  /** The bearer token EIS presents on the support handoff; unset refuses the route (503). */
  supportHandoffToken: string | undefined
  planningRepo: string | undefined
  providers: Partial<Record<Provider, ProviderSettings>>
  oidc: OidcSettings | undefined
  sessionsAvailable: boolean
  /** Workflow automation: operator = the automation tool (n8n API), expert = WTA. */
  automation: { operator: AutomationSettings | undefined; expert: AutomationSettings | undefined }
  sessionMaxAgeS: number
  peerTimeoutMs: number
}

/** What every PWS service function is handed. */
export interface PwsDeps {
  /** Reads through `storage.db`; writes through `guard` (or `storage.transaction`). */
  storage: Storage
  /** Writes go through it: a storage failure is a 503 (nothing written) and degrades readiness. */
  guard: StorageGuard
  log: Logger
  settings: PwsSettings
  contract: UnitContract
  counters: PwsCounters
  now(): number
}

export const iso = (ms: number): string => new Date(ms).toISOString()

/**
 * Run a writeback's transaction; a 409 version refusal is counted in
 * `svc_pws_writeback_conflicts_total` before it passes through.
 */
export async function writeback<T>(deps: PwsDeps, fn: (tx: Sql) => Promise<T>): Promise<T> {
  try {
    return await deps.guard.write(fn)
  } catch (err) {
    const conflict =
      err instanceof AppError ? (err.extra?.conflict as { target_type?: string; reason?: string }) : undefined
    if (conflict?.target_type) {
      deps.counters.writebackConflicts.inc({
        target: conflict.target_type,
        reason: conflict.reason === 'expected_version_missing' ? 'missing' : 'stale',
      })
    }
    throw err
  }
}

/** One guarded IMMEDIATE transaction (a storage failure is a 503 `persistence_unavailable`). */
export const write = <T>(deps: PwsDeps, fn: (tx: Sql) => Promise<T>): Promise<T> => deps.guard.write(fn)

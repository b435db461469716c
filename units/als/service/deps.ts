import type { Logger } from '../../../common/logger.ts'
import type { Counter } from '../../../common/metrics.ts'
import type { FamilyCache } from '../families.ts'
import type { LaneSettings } from '../lane.ts'
import type { ServiceMode } from '../rules/modes.ts'
import type { Persistence } from '../store.ts'

/** ALS settings, read once from the environment (docs/units/als.md, configuration). */
export interface AlsSettings {
  serviceMode: ServiceMode
  weightTrainingEnabled: boolean
  /** Replays allowed per rolling hour. */
  replayBudget: number
  sampleRate: number
  signalMinPriority: number
  evidenceMaxAgeMs: number
  velocityMax: number
  velocityWindowMs: number
  oscillationWindowMs: number
  oscillationMinReversals: number
  queueHighWater: number
}

export const REPLAY_BUDGET_WINDOW_MS = 3_600_000

export interface AlsCounters {
  intake: Counter<'result'>
  replays: Counter<'verdict'>
  proposals: Counter<'source'>
  approvalChecks: Counter<'outcome'>
  activations: Counter<'result'>
  rollbacks: Counter<'result'>
}

/** Everything the learning services need; the routes hand it down unchanged. */
export interface AlsDeps {
  persistence: Persistence
  settings: AlsSettings
  families: FamilyCache
  lane: LaneSettings
  counters: AlsCounters
  log: Logger
  version: string
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now(): number
}

export const iso = (ms: number): string => new Date(ms).toISOString()

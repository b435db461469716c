import type { Counter } from '../../../common/metrics.ts'
import type { Storage } from '../../../db/storage.ts'
import type { Observer } from '../observer.ts'
import type { Views } from './views.ts'

/** What PRS's route plugins are handed. */
export interface PrsDeps {
  views: Views
  storage: Storage
  observer: Observer
  version: string
  startedAt: string
  observe: { intervalMs: number; timeoutMs: number; keep: number }
  verifyTimeoutMs: number
  counters: {
    compatibility: Counter<'result'>
    admission: Counter<'verdict'>
  }
}

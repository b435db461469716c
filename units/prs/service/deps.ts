import type { Database } from 'bun:sqlite'
import type { Counter } from '../../../common/metrics.ts'
import type { Db } from '../../../db/sqlite.ts'
import type { Observer } from '../observer.ts'
import type { Views } from './views.ts'

/** What PRS's route plugins are handed. */
export interface PrsDeps {
  views: Views
  db: Db
  sqlite: Database
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

/**
 * `logs/events.jsonl` under the data directory: the append-only event log of what the observers
 * saw and what commands did, one JSON object per line (`at`, `kind`, `detail`). Lines are only
 * ever appended; details carry ids, names and counts, never credentials.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { OBSERVER_LIMITS } from '../config.ts'

export interface WtaEvent {
  at: string
  kind: string
  detail: Record<string, unknown>
}

export interface EventLog {
  path: string
  append(kind: string, detail?: Record<string, unknown>): WtaEvent
  /** The last `n` events (at most the log window of 300 lines). */
  tail(n?: number): WtaEvent[]
}

export const eventLogPath = (dataDir: string) => join(dataDir, 'logs', 'events.jsonl')

export function createEventLog(dataDir: string, now: () => Date = () => new Date()): EventLog {
  const path = eventLogPath(dataDir)
  return {
    path,
    append(kind, detail = {}) {
      const event = { at: now().toISOString(), kind, detail }
      mkdirSync(dirname(path), { recursive: true })
      appendFileSync(path, `${JSON.stringify(event)}\n`)
      return event
    },
    tail(n = OBSERVER_LIMITS.logWindowLines) {
      if (!existsSync(path)) return []
      const window = Math.min(Math.max(n, 0), OBSERVER_LIMITS.logWindowLines)
      const lines = readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
      return lines.slice(-window).flatMap((l) => {
        try {
          return [JSON.parse(l) as WtaEvent]
        } catch {
          return []
        }
      })
    },
  }
}

/** What every WTA use case is handed: storage, the tool's client, the catalogs, the event log, a clock. */
import type { PollerStats } from '../../../common/poller.ts'
import type { Db } from '../../../db/sqlite.ts'
import {
  type BreakingChangesCatalog,
  type NodeTypesCatalog,
  shippedBreakingChanges,
  shippedNodeTypes,
} from '../catalog/index.ts'
import type { WtaConfig } from '../config.ts'
import { type AutomationClient, createAutomationClient } from './automation.ts'
import { createEventLog, type EventLog } from './events.ts'

export interface Wta {
  db: Db
  config: WtaConfig
  client: AutomationClient
  events: EventLog
  nodeTypes: NodeTypesCatalog
  breakingChanges: BreakingChangesCatalog
  now(): Date
  /** The observer's counters, when one runs in this process. */
  observer?(): PollerStats | undefined
}

/** Pages followed in one listing: 40 × 250 = 10 000 workflows or executions. */
export const MAX_PAGES = 40

export function createWta(
  config: WtaConfig,
  db: Db,
  o: { now?: () => Date; nodeTypes?: NodeTypesCatalog; breakingChanges?: BreakingChangesCatalog } = {},
): Wta {
  const now = o.now ?? (() => new Date())
  return {
    db,
    config,
    client: createAutomationClient({
      url: config.WTA_AUTOMATION_URL,
      apiKey: config.WTA_AUTOMATION_API_KEY,
      timeoutMs: config.WTA_AUTOMATION_TIMEOUT_MS,
      maxPages: MAX_PAGES,
    }),
    events: createEventLog(config.SVC_DATA_DIR, now),
    nodeTypes: o.nodeTypes ?? shippedNodeTypes,
    breakingChanges: o.breakingChanges ?? shippedBreakingChanges,
    now,
  }
}

/** What every WTA use case is handed: storage, the tool's client, the catalogs, the event log, a clock. */
import type { PollerStats } from '../../../common/poller.ts'
import type { Storage } from '../../../db/storage.ts'
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
  storage: Storage
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
  storage: Storage,
  o: { now?: () => Date; nodeTypes?: NodeTypesCatalog; breakingChanges?: BreakingChangesCatalog } = {},
): Wta {
  const now = o.now ?? (() => new Date())
  return {
    storage,
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

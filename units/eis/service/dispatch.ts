/**
 * Dispatch of approval packets to the runtime host (RMS `POST /api/v1/execution/approvals`)
 * through the shared outbox (db/outbox.ts). Each attempt carries the bearer token from
 * configuration (never stored with the message); the packet records how delivery went.
 */
import type { Logger } from '../../../common/logger.ts'
import type { Registry } from '../../../common/metrics.ts'
import { createOutbox, type OutboxMessage } from '../../../db/outbox.ts'
import type { Db } from '../../../db/sqlite.ts'
import * as store from '../store.ts'

export const RUNTIME_HOST_TARGET = 'runtime-host'
const SEPARATOR = '~dispatch~'

export const dispatchMessageId = (packet: string, attempt: number) => `${packet}${SEPARATOR}${attempt}`
const packetOf = (m: OutboxMessage) => m.id.slice(0, m.id.indexOf(SEPARATOR))

export interface DispatchSettings {
  url: string | undefined
  token: string | undefined
  timeoutMs: number
}

export function createDispatchOutbox(db: Db, log: Logger, registry: Registry, settings: DispatchSettings) {
  return createOutbox({
    name: 'eis-dispatch-outbox',
    db,
    log,
    registry,
    targets: {
      [RUNTIME_HOST_TARGET]: {
        url: settings.url && `${settings.url.replace(/\/$/, '')}/api/v1/execution/approvals`,
        timeoutMs: settings.timeoutMs,
        headers: (): Record<string, string> =>
          settings.token ? { authorization: `Bearer ${settings.token}` } : {},
      },
    },
    onAttempt: (m, result) => noteDelivery(db, packetOf(m), m.id, result),
  })
}

/** Record the attempt on the packet; a dead dispatch fails a packet still waiting on it. */
function noteDelivery(db: Db, packet: string, outboxId: string, result: 'delivered' | 'failed' | 'dead') {
  const at = new Date().toISOString()
  store.writeTx(db, (tx) => {
    const p = store.findPacketTx(tx, packet)
    if (!p || (p.dispatch as { outbox_id?: string } | null)?.outbox_id !== outboxId) return
    const dispatch = { ...p.dispatch, delivery: result, [`${result}_at`]: at }
    const state = result === 'dead' && p.state === 'dispatched' ? 'failed' : p.state
    store.updatePacket(tx, packet, { state, dispatch, modified: at })
  })
}

/**
 * Dispatch of approval packets to the runtime host (RMS `POST /api/v1/execution/approvals`)
 * through the shared outbox (db/outbox.ts). Each attempt carries the bearer token from
 * configuration (never stored with the message); the packet records how delivery went.
 */
import type { Logger } from '../../../common/logger.ts'
import { errorFields } from '../../../common/logger.ts'
import type { Registry } from '../../../common/metrics.ts'
import { createOutbox, type OutboxMessage } from '../../../db/outbox.ts'
import type { Storage } from '../../../db/storage.ts'
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

export function createDispatchOutbox(
  storage: Storage,
  log: Logger,
  registry: Registry,
  settings: DispatchSettings,
) {
  return createOutbox({
    name: 'eis-dispatch-outbox',
    db: storage,
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
    onAttempt: (m, result) =>
      noteDelivery(storage, packetOf(m), m.id, result).catch((err) =>
        log.error(
          { err: errorFields(err), packet: packetOf(m) },
          'the dispatch attempt was not recorded on the packet',
        ),
      ),
  })
}

/** Record the attempt on the packet; a dead dispatch fails a packet still waiting on it. */
async function noteDelivery(
  storage: Storage,
  packet: string,
  outboxId: string,
  result: 'delivered' | 'failed' | 'dead',
) {
  const at = new Date().toISOString()
  await storage.transaction(async (tx) => {
    const p = await store.findPacketTx(tx, packet)
    if (!p || (p.dispatch as { outbox_id?: string } | null)?.outbox_id !== outboxId) return
    const dispatch = { ...p.dispatch, delivery: result, [`${result}_at`]: at }
    const state = result === 'dead' && p.state === 'dispatched' ? 'failed' : p.state
    await store.updatePacket(tx, packet, { state, dispatch, modified: at })
  })
}

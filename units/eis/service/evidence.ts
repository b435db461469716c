/**
 * Integration evidence: every accepted delivery becomes an Integration Event in the same
 * transaction as its effect, before the answer. A redelivery (same source and event key) finds
 * the stored event and changes nothing.
 */
import { sha256Hex } from '../../../common/hash.ts'
import { nowIso } from '../../../common/time.ts'
import { groupOf } from '../../../db/group-commit.ts'
import type { Sql, Storage } from '../../../db/storage.ts'
import { docName, SERIES } from '../rules/naming.ts'
import * as store from '../store.ts'

export interface Delivery {
  /** The route family, e.g. `webhooks.website_contact_intake`. */
  source: string
  /** What identifies a redelivery of the same event. */
  eventKey: string
  /** The exact body received. */
  raw: string
}

export interface Effect {
  status: store.IntegrationEventRow['status']
  outcome: Record<string, unknown>
  reference?: { doctype: string; name: string }
}

export type Accepted = { duplicate: boolean; event: store.IntegrationEventRow }

/** The key of a delivery that carries no id of its own: the hash of its exact bytes. */
export const bodyKey = (raw: string) => `sha256:${sha256Hex(raw)}`

/**
 * Store the delivery and apply its effect in one write transaction, group-committed with the
 * deliveries that arrived in the same event-loop turn (db/group-commit.ts): the answer waits for
 * the commit. The effect runs only for a new delivery; a redelivery answers the first one's event.
 */
export async function acceptDelivery(
  storage: Storage,
  delivery: Delivery,
  effect: (tx: Sql, eventName: string, at: string) => Effect | Promise<Effect>,
): Promise<Accepted> {
  const payloadHash = sha256Hex(delivery.raw)
  return groupOf(storage).run(async (tx): Promise<Accepted> => {
    const existing = await store.findEventByKeyTx(tx, delivery.source, delivery.eventKey)
    if (existing) return { duplicate: true, event: existing }
    const at = nowIso()
    const name = docName(SERIES.event)
    // The effect first, then the evidence with its outcome: one insert, same transaction.
    const result = await effect(tx, name, at)
    const event: store.IntegrationEventRow = {
      name,
      source: delivery.source,
      eventKey: delivery.eventKey,
      status: result.status,
      payloadHash,
      payload: delivery.raw,
      referenceDoctype: result.reference?.doctype ?? null,
      referenceName: result.reference?.name ?? null,
      outcome: result.outcome,
      receivedAt: at,
      modifiedAt: at,
    }
    await store.insertEvent(tx, event)
    return { duplicate: false, event }
  })
}

export function eventView(e: store.IntegrationEventRow) {
  return {
    name: e.name,
    source: e.source,
    event_key: e.eventKey,
    status: e.status,
    payload_hash: e.payloadHash,
    reference_doctype: e.referenceDoctype,
    reference_name: e.referenceName,
    outcome: e.outcome,
    received_at: e.receivedAt,
    modified_at: e.modifiedAt,
  }
}

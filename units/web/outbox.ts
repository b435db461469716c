/**
 * Delivers stored intakes to the contact webhook through the shared outbox (db/outbox.ts): a
 * row leaves the outbox only on a 2xx answer; failures are retried with the suite's backoff
 * (doubling from one second, capped at ten minutes) and dead-lettered after 25 attempts.
 */
import type { Logger } from '../../common/logger.ts'
import { Counter, type Registry } from '../../common/metrics.ts'
import { createOutbox, type Outbox, type OutboxDb } from '../../db/outbox.ts'
import { RETRY, signedHeaders } from './rules/delivery.ts'
import { CONTACT_TARGET } from './store.ts'

export interface OutboxSettings {
  url: string
  secret: string
  timeoutMs: number
  pollMs: number
  batch: number
}

export function createContactOutbox(
  db: OutboxDb,
  log: Logger,
  registry: Registry,
  settings: OutboxSettings,
): Outbox {
  const attempts = new Counter({
    name: 'svc_contact_delivery_attempts_total',
    help: 'Contact webhook delivery attempts, by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  return createOutbox({
    name: 'contact-outbox',
    db,
    log,
    registry,
    pollMs: settings.pollMs,
    batch: settings.batch,
    backoff: RETRY,
    targets: {
      [CONTACT_TARGET]: {
        url: settings.url,
        timeoutMs: settings.timeoutMs,
        headers: (m) => signedHeaders(settings.secret, m.payload, m.id),
      },
    },
    onAttempt: (_m, result) => attempts.inc({ result: result === 'delivered' ? 'delivered' : 'failed' }),
  })
}

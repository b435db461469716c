import type { Logger } from '../../common/logger.ts'
import type { Registry } from '../../common/metrics.ts'
import { Counter } from '../../common/metrics.ts'
import { callPeer } from '../../common/peer.ts'
import { nowIso } from '../../common/time.ts'
import type { Db } from '../../db/sqlite.ts'
import type { BackgroundTask } from '../../runtime/unit.ts'
import { retryDelayMs, signedHeaders } from './rules/delivery.ts'
import { dueDeliveries, markDelivered, markFailed } from './store.ts'

export interface OutboxSettings {
  url: string
  secret: string
  timeoutMs: number
  pollMs: number
  batch: number
}

export interface Outbox extends BackgroundTask {
  /** Ask for a delivery pass soon (after an intake was stored). */
  kick(): void
  /** One delivery pass now; resolves with the number delivered. For tests and shutdown. */
  runOnce(): Promise<number>
}

/**
 * Delivers stored intakes to the contact webhook. A row leaves the outbox only on a 2xx
 * answer; every failure reschedules it with bounded backoff, so nothing acknowledged is lost.
 */
export function createOutbox(db: Db, log: Logger, registry: Registry, settings: OutboxSettings): Outbox {
  const attempts = new Counter({
    name: 'svc_contact_delivery_attempts_total',
    help: 'Contact webhook delivery attempts, by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  let timer: ReturnType<typeof setInterval> | undefined
  let current: Promise<number> | undefined
  let again = false

  async function deliverDue(): Promise<number> {
    let delivered = 0
    for (const row of dueDeliveries(db, nowIso(), settings.batch)) {
      const answer = await callPeer({
        url: settings.url,
        method: 'POST',
        body: row.payload,
        headers: signedHeaders(settings.secret, row.payload, row.intakeId),
        timeoutMs: settings.timeoutMs,
      })
      if (answer.ok) {
        markDelivered(db, row.intakeId, answer.status, nowIso())
        attempts.inc({ result: 'delivered' })
        delivered++
        continue
      }
      const delay = retryDelayMs(row.attempts + 1)
      markFailed(db, row.intakeId, {
        status: answer.status ?? null,
        error: `${answer.reason}: ${answer.message}`,
        nextAttemptAt: new Date(Date.now() + delay).toISOString(),
      })
      attempts.inc({ result: 'failed' })
      log.warn(
        { intake_id: row.intakeId, reason: answer.reason, status: answer.status, retry_in_ms: delay },
        'contact delivery failed',
      )
    }
    return delivered
  }

  function runOnce(): Promise<number> {
    if (current) {
      again = true
      return current
    }
    current = deliverDue()
      .catch((err: unknown) => {
        log.error({ err: (err as Error).message }, 'contact outbox pass failed')
        return 0
      })
      .finally(() => {
        current = undefined
        if (again) {
          again = false
          void runOnce()
        }
      })
    return current
  }

  return {
    name: 'contact-outbox',
    kick: () => void runOnce(),
    runOnce,
    start() {
      timer ??= setInterval(() => void runOnce(), settings.pollMs)
      void runOnce()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await current
    },
  }
}

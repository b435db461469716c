/**
 * The one retry delay of the suite (outbox deliveries, pollers after errors): doubling from
 * `baseMs`, capped at `maxMs`, plus up to `jitter` (a fraction) more so that many clients
 * recovering at once do not hit a peer together. `attempt` counts from 1 (the first retry).
 *
 *   backoffDelayMs(3, { baseMs: 1000, maxMs: 60_000 })  // 4000 … 4800
 */
export interface Backoff {
  baseMs: number
  maxMs: number
  /** Extra delay, as a fraction of the delay, drawn uniformly; default 0.2. */
  jitter?: number
}

export const DEFAULT_JITTER = 0.2

export function backoffDelayMs(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const exp = b.baseMs * 2 ** Math.min(30, Math.max(0, attempt - 1))
  return Math.min(b.maxMs, Math.round(exp * (1 + (b.jitter ?? DEFAULT_JITTER) * random())))
}

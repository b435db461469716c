export const newId = (): string => Bun.randomUUIDv7()

let lastMs = -1
let lastIso = ''

/**
 * Now, as ISO 8601 UTC with milliseconds: the suite's one timestamp format (and pino's
 * `isoTime`). Formatted once per millisecond: the request line and time-stamped views ask for it
 * on every request, and formatting costs 0.25 µs a call.
 */
export function nowIso(): string {
  const ms = Date.now()
  if (ms !== lastMs) {
    lastMs = ms
    lastIso = new Date(ms).toISOString()
  }
  return lastIso
}

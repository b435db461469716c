import pino, { type Logger } from 'pino'

export type { Logger }

/**
 * Keys whose values are never written. Code logs chosen fields, never request headers or bodies;
 * this is the safety net. Top-level paths only: wildcard paths cost more than the rest of a line.
 */
const REDACT = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'api_key',
  'headers.authorization',
  'headers.cookie',
]

/**
 * JSON lines on stdout, no transports: pino's worker-thread transports do not survive
 * `bun build --compile`.
 */
export function createLogger(unit: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { unit },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

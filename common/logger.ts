import pino, { type Logger } from 'pino'

export type { Logger }

/** Keys whose values are never written, wherever they appear in a log object. */
const REDACT = [
  'authorization',
  'cookie',
  'secret',
  'token',
  'password',
  'api_key',
  '*.authorization',
  '*.cookie',
  '*.secret',
  '*.token',
  '*.password',
  '*.api_key',
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

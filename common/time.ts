/** ISO 8601 UTC with milliseconds, the suite's one timestamp format. */
export const nowIso = (): string => new Date().toISOString()

export const newId = (): string => Bun.randomUUIDv7()

/**
 * Concurrency race helpers for unit tests.
 *
 *   raceIdempotent(n, send, { effects }): n concurrent identical requests carrying one
 *     idempotency key must produce exactly one effect and identical answers.
 *   raceVersioned(n, send): n concurrent writers with the same expected_version must produce
 *     exactly one success and n-1 409 conflicts (each in the error envelope).
 *
 * Both release every request at the same moment and throw a RaceViolation naming what broke.
 */

export interface RaceAnswer {
  status: number
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown
}

export class RaceViolation extends Error {
  constructor(
    readonly problems: string[],
    readonly answers: RaceAnswer[],
  ) {
    super(`race violated:\n  ${problems.join('\n  ')}\nanswers: ${summarize(answers)}`)
    this.name = 'RaceViolation'
  }
}

function summarize(answers: RaceAnswer[]): string {
  const counts = new Map<string, number>()
  for (const a of answers) {
    const key = `${a.status} ${JSON.stringify(a.body)?.slice(0, 160)}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(' | ')
}

async function toAnswer(res: Response | RaceAnswer): Promise<RaceAnswer> {
  if (!(res instanceof Response)) return res
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    return { status: res.status, body: text }
  }
}

/** Start all n sends at once: each waits on one gate, opened after all are queued. */
async function release(
  n: number,
  send: (i: number) => Promise<Response | RaceAnswer>,
): Promise<RaceAnswer[]> {
  if (!Number.isInteger(n) || n < 2) throw new Error('a race needs n >= 2')
  let open!: () => void
  const gate = new Promise<void>((resolve) => {
    open = resolve
  })
  const pending = Array.from({ length: n }, async (_, i) => {
    await gate
    return toAnswer(await send(i))
  })
  open()
  return Promise.all(pending)
}

function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined'
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`
}

export interface IdempotentOptions {
  /** How many times the effect has happened (rows, outbox entries, calls to a fake peer …). */
  effects(): number | Promise<number>
  /**
   * What of an answer must be identical; by default status and whole body. Drop fields the
   * contract lets differ between the first answer and replays (for example `idempotent_replay`).
   */
  normalize?(answer: RaceAnswer): unknown
}

export interface IdempotentResult {
  answers: RaceAnswer[]
  effects: number
}

export async function raceIdempotent(
  n: number,
  send: (i: number) => Promise<Response | RaceAnswer>,
  options: IdempotentOptions,
): Promise<IdempotentResult> {
  const before = await options.effects()
  const answers = await release(n, send)
  const effects = (await options.effects()) - before
  const problems: string[] = []
  if (effects !== 1) problems.push(`expected exactly one effect, saw ${effects}`)
  const normalize = options.normalize ?? ((a: RaceAnswer) => a)
  const shapes = new Set(answers.map((a) => stable(normalize(a))))
  if (shapes.size !== 1) problems.push(`expected identical answers, saw ${shapes.size} different ones`)
  const failed = answers.filter((a) => a.status < 200 || a.status >= 300)
  if (failed.length > 0) problems.push(`${failed.length} of ${n} answers were not 2xx`)
  if (problems.length > 0) throw new RaceViolation(problems, answers)
  return { answers, effects }
}

export interface VersionedResult {
  answers: RaceAnswer[]
  /** Index of the one writer that won. */
  winner: number
}

export async function raceVersioned(
  n: number,
  send: (i: number) => Promise<Response | RaceAnswer>,
): Promise<VersionedResult> {
  const answers = await release(n, send)
  const problems: string[] = []
  const winners = answers.flatMap((a, i) => (a.status >= 200 && a.status < 300 ? [i] : []))
  const conflicts = answers.filter((a) => a.status === 409)
  const other = answers.filter((a) => !(a.status >= 200 && a.status < 300) && a.status !== 409)
  if (winners.length !== 1) problems.push(`expected exactly one success, saw ${winners.length}`)
  if (conflicts.length !== n - 1) problems.push(`expected ${n - 1} 409 conflicts, saw ${conflicts.length}`)
  if (other.length > 0)
    problems.push(
      `${other.length} answers were neither 2xx nor 409: ${[...new Set(other.map((a) => a.status))].join(', ')}`,
    )
  const bare = conflicts.filter((a) => {
    const error = (a.body as { error?: { code?: unknown; message?: unknown } } | null)?.error
    return typeof error?.code !== 'string' || typeof error?.message !== 'string'
  })
  if (bare.length > 0) problems.push(`${bare.length} conflicts without the error envelope`)
  if (problems.length > 0) throw new RaceViolation(problems, answers)
  return { answers, winner: winners[0]! }
}

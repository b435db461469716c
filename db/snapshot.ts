/**
 * Status documents read from the database (counts, backlogs, a readiness probe), served from a
 * snapshot of bounded age instead of reading the database on every request:
 *
 * - computed at most once per `maxAgeMs` (STATUS_MAX_AGE_MS unless said otherwise), counted from
 *   when the computation began;
 * - single flight: requests that find the snapshot stale share one computation;
 * - recomputed at once after a write of this process on the storage (`writeCount`), so a client
 *   that writes and then reads the status sees its write. Writes of other processes (a replica on
 *   the same libSQL server, a command-line tool on the same file) show within the bound.
 *
 *   const status = boundedSnapshot(() => readStatus(storage), { version: writeCount(storage) })
 *   .get('/status', snapshotView(StatusDocument, status), { response: { 200: StatusDocument } })
 */
import type { TSchema } from '@sinclair/typebox'
import { cachedViewHandler, jsonViews, type ViewContext } from '../common/json-view.ts'
import type { Storage } from './storage.ts'

/** How old a status snapshot may be when it is served (ms). */
export const STATUS_MAX_AGE_MS = 1000

export interface Snapshot<T> {
  /** The snapshot when it is younger than the bound and nothing was written since; else undefined. */
  current(): T | undefined
  /** The current snapshot, or a new one (one computation shared by concurrent callers). */
  get(): Promise<T>
}

export interface SnapshotOptions {
  maxAgeMs?: number
  /** Changes whenever this process wrote what the snapshot reads (`writeCount(storage)`). */
  version?: () => number
}

interface Taken<T> {
  value: T
  at: number
  version: number
}

interface Flight<T> {
  promise: Promise<T>
  at: number
  version: number
}

export function boundedSnapshot<T>(compute: () => Promise<T>, options: SnapshotOptions = {}): Snapshot<T> {
  const maxAgeMs = options.maxAgeMs ?? STATUS_MAX_AGE_MS
  const version = options.version ?? (() => 0)
  let taken: Taken<T> | undefined
  let flight: Flight<T> | undefined
  const fresh = (s: { at: number; version: number }) =>
    s.version === version() && performance.now() - s.at < maxAgeMs

  const current = (): T | undefined => (taken !== undefined && fresh(taken) ? taken.value : undefined)

  return {
    current,
    get() {
      const now = current()
      if (now !== undefined) return Promise.resolve(now)
      // A computation that began before this process's last write would miss it: start another.
      if (flight !== undefined && fresh(flight)) return flight.promise
      const at = performance.now()
      const v = version()
      const promise: Promise<T> = compute().then(
        (value) => {
          if (taken === undefined || at >= taken.at) taken = { value, at, version: v }
          if (flight?.promise === promise) flight = undefined
          return value
        },
        (err: unknown) => {
          if (flight?.promise === promise) flight = undefined
          throw err
        },
      )
      flight = { promise, at, version: v }
      return promise
    },
  }
}

/**
 * A GET handler serving a snapshot's document as a cached view (`jsonViews`): checked against
 * `schema` and serialized once per snapshot, a strong ETag, 304 for `If-None-Match`. It awaits
 * only when the snapshot is stale.
 */
export function snapshotView<S extends TSchema>(schema: S, snapshot: Snapshot<object>) {
  const views = jsonViews(schema)
  return cachedViewHandler(async ({ request, set }: ViewContext): Promise<Response> => {
    const doc = snapshot.current() ?? (await snapshot.get())
    return views({ request, set }, doc, '', () => doc)
  })
}

/**
 * How many writes this process has finished on `storage` so far, whoever made them (routes,
 * background work such as an outbox, tests): the storage counts them (`Storage.writes`). Each
 * commit counts, and each rollback too: a count that moves without a change only costs a
 * recomputation. Counted once the write has settled, before its caller resumes, so a snapshot
 * begun while a write was open is not taken for one that includes it. Writes through the
 * pre-storage handles (`ctx.db`, `ctx.sqlite`) are not counted: they show within the bound, as
 * another process's do.
 */
export const writeCount =
  (storage: Storage): (() => number) =>
  () =>
    storage.writes

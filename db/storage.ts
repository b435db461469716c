/**
 * One storage interface per unit, on two drivers chosen at start from configuration:
 *
 * - embedded (the default): the unit's SQLite file through `bun:sqlite`. One writer connection,
 *   serialized by an in-process lock, and one reader connection (WAL) that only ever sees
 *   committed data.
 * - libsql: a libSQL server (`sqld`, Turso) over HTTP (`DATABASE_URL=libsql://…`, `http(s)://…`,
 *   `DATABASE_AUTH_TOKEN`), through `@libsql/client/web` (no native addon, so it works inside the
 *   compiled executable).
 *
 * Store code sees the same Drizzle `sqlite-core` query builder on both and always `await`s it:
 *
 *   const rows = await storage.db.select().from(things)                  // committed data
 *   await storage.transaction(async (tx) => {                            // BEGIN IMMEDIATE … COMMIT
 *     const row = await tx.select().from(things).where(eq(things.id, id)).get()
 *     await tx.update(things).set({ n: row.n + 1 }).where(eq(things.id, id))
 *   })
 *
 * A transaction body may `await` anything (other queries, peers): nothing else in the process
 * touches the writer while it runs, and a throw rolls everything back.
 */
import { Database } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Client } from '@libsql/client/web'
import { drizzle as drizzleBun } from 'drizzle-orm/bun-sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { applyMigrations, applyMigrationsAsync, type Migration } from './migrate.ts'
import { BUSY_TIMEOUT_MS, configureConnection, type Db, databasePath } from './sqlite.ts'

/**
 * The query builder store code uses on either driver. Results are promises on libSQL and plain
 * values on the embedded driver: always `await` them (never chain `.then` on `.all()`/`.get()`).
 */
export type Sql = BaseSQLiteDatabase<'async', unknown, Record<string, never>>

export type Driver = 'embedded' | 'libsql'

/**
 * The synchronous handle seen through the async type, for building one query for both drivers.
 * On it, `.all()`/`.get()`/`.run()` return plain values at run time: only the synchronous forms
 * of the shared blocks use this, and they cast the result back.
 */
export const asSql = (db: Db): Sql => db as unknown as Sql

/** Whether a handle is the storage interface (else the pre-storage bun:sqlite Drizzle handle). */
export const isStorage = (d: Db | Storage): d is Storage => 'driver' in d && 'location' in d

/** The value a query built on `asSql(db)` returned synchronously, typed as it is. */
export const syncValue = <T>(result: Promise<T>): T => {
  if (result instanceof Promise) throw new Error('syncValue: the query ran on an asynchronous driver')
  return result as unknown as T
}

/** The embedded driver's connections, for hot paths that keep synchronous prepared statements. */
export interface EmbeddedHandles {
  /** The writer connection; write to it only through `writeSync` or `Storage.transaction`. */
  writer: Database
  writerDb: Db
  /** The reader connection (`query_only`): committed data only. */
  reader: Database
  readerDb: Db
  /**
   * Run `fn` synchronously in one IMMEDIATE transaction on the writer (the pre-storage way,
   * for prepared-statement hot paths). Throws when an async transaction holds the writer, instead
   * of running inside it.
   */
  writeSync<T>(fn: () => T): T
  /**
   * `writeSync` as soon as the writer is free: at once (synchronously) when it is, else after the
   * open transactions; for hot paths in units that also run async transactions (outbox workers).
   */
  write<T>(fn: () => T): Promise<T>
}

export interface Storage {
  readonly driver: Driver
  /** The file path, or the server URL without credentials: safe to log. */
  readonly location: string
  /**
   * Reads of committed data. Never write through it: every write goes in `transaction` (the
   * embedded driver's reader connection is `query_only` and refuses writes).
   */
  readonly db: Sql
  /**
   * One write transaction (BEGIN IMMEDIATE on both drivers). The body may await; transactions of
   * this process run one after another; a throw rolls back and passes through.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>
  /** Whether the database answers now. */
  ready(): Promise<boolean>
  close(): Promise<void>
  /**
   * Write transactions this process has finished on this storage (`transaction`, and the
   * embedded driver's `write`/`writeSync`), counted when each settles, committed or rolled back:
   * what a status snapshot compares to know this process wrote since (db/snapshot.ts).
   */
  readonly writes: number
  /** Present on the embedded driver only. */
  readonly embedded?: EmbeddedHandles
}

/** A FIFO lock: one holder at a time, taken synchronously when free. */
export class WriterLock {
  private held = false
  private readonly waiters: (() => void)[] = []

  get isHeld(): boolean {
    return this.held
  }

  tryAcquire(): boolean {
    if (this.held) return false
    this.held = true
    return true
  }

  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.held = false
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire()
    try {
      return await fn()
    } finally {
      this.release()
    }
  }
}

export type StorageTarget = { driver: 'embedded'; path: string } | { driver: 'libsql'; url: string }

const REMOTE = /^(libsql|https?|wss?):\/\//i

/** Which driver and where: a libsql/http(s) DATABASE_URL is a server, anything else a file. */
export function storageTarget(unit: string, dataDir: string, databaseUrl?: string): StorageTarget {
  if (databaseUrl && REMOTE.test(databaseUrl)) return { driver: 'libsql', url: databaseUrl }
  return { driver: 'embedded', path: databasePath(unit, dataDir, databaseUrl) }
}

/** The URL with any user info and query (tokens) removed. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`
  } catch {
    return '(unparseable url)'
  }
}

/**
 * The embedded driver: open (creating if needed) and migrate the file, synchronously. `:memory:`
 * becomes a private temporary file removed on close, so that the reader connection can see it.
 */
export function openEmbeddedStorage(path: string, migrations: readonly Migration[]): Storage {
  let file = path
  let scratch: string | undefined
  if (path === ':memory:') {
    scratch = mkdtempSync(join(tmpdir(), 'svc-memory-'))
    file = join(scratch, 'memory.sqlite')
  } else {
    mkdirSync(dirname(path), { recursive: true })
  }
  const writer = new Database(file, { create: true, strict: true })
  configureConnection(writer)
  applyMigrations(writer, migrations)
  const reader = new Database(file, { strict: true })
  configureConnection(reader)
  reader.run('PRAGMA query_only = ON')
  const writerDb = drizzleBun({ client: writer }) as Db
  const readerDb = drizzleBun({ client: reader }) as Db
  const lock = new WriterLock()
  const writerSql = writerDb as unknown as Sql
  let closed = false
  let writes = 0
  const immediate = <T>(fn: () => T): T => {
    try {
      return writerDb.transaction(() => fn(), { behavior: 'immediate' })
    } finally {
      writes++
    }
  }

  const embedded: EmbeddedHandles = {
    writer,
    writerDb,
    reader,
    readerDb,
    writeSync<T>(fn: () => T): T {
      if (!lock.tryAcquire()) {
        throw new Error('the writer is held by an open transaction; use storage.transaction')
      }
      try {
        return immediate(fn)
      } finally {
        lock.release()
      }
    },
    write<T>(fn: () => T): Promise<T> {
      if (closed) return Promise.reject(new StorageClosedError())
      if (!lock.isHeld) {
        try {
          return Promise.resolve(embedded.writeSync(fn))
        } catch (err) {
          return Promise.reject(err)
        }
      }
      return lock.run(async () => {
        if (closed) throw new StorageClosedError()
        return immediate(fn)
      })
    },
  }

  return {
    driver: 'embedded',
    location: path,
    db: readerDb as unknown as Sql,
    embedded,
    get writes() {
      return writes
    },
    transaction: <T>(fn: (tx: Sql) => Promise<T>) =>
      lock.run(async () => {
        if (closed) throw new StorageClosedError()
        await beginImmediate(writer)
        let result: T
        try {
          result = await fn(writerSql)
          writer.run('COMMIT')
        } catch (err) {
          if (writer.inTransaction) writer.run('ROLLBACK')
          throw err
        } finally {
          writes++
        }
        return result
      }),
    async ready() {
      try {
        reader.query('SELECT 1').get()
        return true
      } catch {
        return false
      }
    },
    async close() {
      if (closed) return
      closed = true
      await lock.run(async () => {
        try {
          writer.run('PRAGMA optimize')
        } catch {
          // closing matters more than optimizing
        }
        reader.close()
        writer.close()
        if (scratch) rmSync(scratch, { recursive: true, force: true })
      })
    },
  }
}

const isBusy = (err: unknown) => (err as { code?: string }).code === 'SQLITE_BUSY'

/**
 * BEGIN IMMEDIATE without blocking the event loop: when another process holds the write lock,
 * wait asynchronously (the connection's busy timeout would block the whole process) for up to
 * BUSY_TIMEOUT_MS, then fail as a busy database does.
 */
async function beginImmediate(writer: Database): Promise<void> {
  try {
    writer.run('PRAGMA busy_timeout = 0')
    const deadline = Date.now() + BUSY_TIMEOUT_MS
    for (let waitMs = 1; ; waitMs = Math.min(waitMs * 2, 25)) {
      try {
        writer.run('BEGIN IMMEDIATE')
        return
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) throw err
      }
      await Bun.sleep(waitMs)
    }
  } finally {
    writer.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  }
}

const READY_TIMEOUT_MS = 2000

/** A storage used after `close()` (a unit shutting down while a request still runs). */
export class StorageClosedError extends Error {
  readonly code = 'STORAGE_CLOSED'
  constructor() {
    super('the storage is closed')
    this.name = 'StorageClosedError'
  }
}

/** Another unit's database: each unit owns its own (its migrations are ordered by time alone). */
export class ForeignDatabaseError extends Error {
  constructor(
    readonly owner: string,
    readonly unit: string,
  ) {
    super(`the database belongs to unit ${owner}, not ${unit}`)
    this.name = 'ForeignDatabaseError'
  }
}

/** Record the unit that owns a server database on first use; refuse any other unit after. */
async function claimOwnership(client: Client, unit: string): Promise<void> {
  await client.execute('CREATE TABLE IF NOT EXISTS __svc_owner (unit TEXT NOT NULL)')
  const tx = await client.transaction('write')
  try {
    const found = (await tx.execute('SELECT unit FROM __svc_owner LIMIT 1')).rows[0] as
      | { unit?: unknown }
      | undefined
    if (found === undefined)
      await tx.execute({ sql: 'INSERT INTO __svc_owner (unit) VALUES (?)', args: [unit] })
    else if (found.unit !== unit) throw new ForeignDatabaseError(String(found.unit), unit)
    await tx.commit()
  } catch (err) {
    await tx.rollback().catch(() => undefined)
    throw err
  } finally {
    tx.close()
  }
}

/**
 * The libSQL driver: connect to the server and migrate the unit's database there. With `owner`,
 * the database is claimed for that unit first, and a database of another unit is refused.
 */
export async function openLibsqlStorage(
  url: string,
  migrations: readonly Migration[],
  options: { authToken?: string; owner?: string } = {},
): Promise<Storage> {
  // Loaded here, not at start: most units run on the embedded driver and never need the client.
  const [{ createClient }, { drizzle: drizzleLibsql }] = await Promise.all([
    import('@libsql/client/web'),
    import('drizzle-orm/libsql/web'),
  ])
  const client: Client = createClient({ url, authToken: options.authToken })
  try {
    if (options.owner) await claimOwnership(client, options.owner)
    await applyMigrationsAsync(client, migrations)
  } catch (err) {
    client.close()
    throw err
  }
  const db = drizzleLibsql({ client }) as unknown as Sql
  const lock = new WriterLock()
  let closed = false
  let writes = 0
  return {
    driver: 'libsql',
    location: redactUrl(url),
    db,
    get writes() {
      return writes
    },
    // drizzle opens `client.transaction()`, whose default mode is `write` (BEGIN IMMEDIATE).
    transaction: <T>(fn: (tx: Sql) => Promise<T>) =>
      lock.run(async () => {
        if (closed) throw new StorageClosedError()
        try {
          return await db.transaction((tx) => fn(tx as unknown as Sql))
        } finally {
          writes++
        }
      }),
    async ready() {
      try {
        await Promise.race([
          client.execute('SELECT 1'),
          Bun.sleep(READY_TIMEOUT_MS).then(() => Promise.reject(new Error('timeout'))),
        ])
        return true
      } catch {
        return false
      }
    },
    async close() {
      if (closed) return
      closed = true
      await lock.run(async () => client.close())
    },
  }
}

/** Open a unit's storage on the driver its configuration names. */
export async function openStorage(
  target: StorageTarget,
  migrations: readonly Migration[],
  options: { authToken?: string; owner?: string } = {},
): Promise<Storage> {
  if (target.driver === 'libsql') return openLibsqlStorage(target.url, migrations, options)
  return openEmbeddedStorage(target.path, migrations)
}

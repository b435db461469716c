import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite'
import { applyMigrations, type Migration } from './migrate.ts'

export type Db = BunSQLiteDatabase<Record<string, never>>

export interface OpenDb {
  sqlite: Database
  db: Db
  path: string
  close(): void
}

/** Where a unit's database lives: DATABASE_URL wins, else `<SVC_DATA_DIR>/<name>.sqlite`. */
export function databasePath(unit: string, dataDir: string, databaseUrl?: string): string {
  if (databaseUrl) {
    if (databaseUrl === ':memory:') return databaseUrl
    return resolve(databaseUrl.replace(/^(sqlite|file):(\/\/)?/, ''))
  }
  return resolve(join(dataDir, `${unit}.sqlite`))
}

export const BUSY_TIMEOUT_MS = 5000

/** WAL, `synchronous=NORMAL`, foreign keys and a busy timeout, on every connection we open. */
export function configureConnection(sqlite: Database): void {
  // busy_timeout first so the WAL switch itself waits for a concurrent opener.
  sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA foreign_keys = ON')
}

/** Open (creating if needed) a unit's SQLite file, configure it, and migrate it. */
export function openDatabase(path: string, migrations: readonly Migration[]): OpenDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Database(path, { create: true, strict: true })
  configureConnection(sqlite)
  applyMigrations(sqlite, migrations)
  const db = drizzle({ client: sqlite }) as Db
  return {
    sqlite,
    db,
    path,
    close() {
      try {
        sqlite.run('PRAGMA optimize')
      } catch {
        // closing matters more than optimizing
      }
      sqlite.close()
    },
  }
}

/** A cheap liveness probe of the database connection, for readiness routes. */
export function databaseReady(sqlite: Database): boolean {
  try {
    sqlite.query('SELECT 1').get()
    return true
  } catch {
    return false
  }
}

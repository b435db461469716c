/**
 * Test helpers: a fresh database holding exactly the given Drizzle tables, created from the SQL
 * drizzle-kit itself generates for them (the same SQL a unit's migration would carry).
 *
 *   const db = await openTestDatabase({ idempotencyKeys })                    // bun:sqlite handle
 *   const storage = await openTestStorage({ items }, { libsql: sqld.url })    // either driver
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { createClient } from '@libsql/client/web'
import { generateSQLiteDrizzleJson, generateSQLiteMigration } from 'drizzle-kit/api'
import { tempDir } from '../test/harness.ts'
import type { Migration } from './migrate.ts'
import { configureConnection, type OpenDb, openDatabase } from './sqlite.ts'
import { openEmbeddedStorage, openLibsqlStorage, type Storage } from './storage.ts'

/** One migration creating `tables`, as drizzle-kit would generate it. */
export async function testMigrations(tables: Record<string, unknown>): Promise<Migration[]> {
  const empty = await generateSQLiteDrizzleJson({})
  const statements = await generateSQLiteMigration(empty, await generateSQLiteDrizzleJson(tables))
  return [{ tag: '0000_test', when: 1, sql: statements.join('\n--> statement-breakpoint\n') }]
}

export async function openTestDatabase(tables: Record<string, unknown>, path?: string): Promise<OpenDb> {
  return openDatabase(path ?? join(tempDir('svc-db-'), 'test.sqlite'), await testMigrations(tables))
}

/** Storage holding `tables`: on a temp file, or on the libSQL server at `where.libsql`. */
export async function openTestStorage(
  tables: Record<string, unknown>,
  where: { libsql?: string; path?: string } = {},
): Promise<Storage> {
  const migrations = await testMigrations(tables)
  if (where.libsql) return openLibsqlStorage(where.libsql, migrations)
  return openEmbeddedStorage(where.path ?? join(tempDir('svc-db-'), 'test.sqlite'), migrations)
}

/**
 * Run `statement` on a connection of its own, as another process would: nothing the storage keeps
 * in this process (its write count, `db/snapshot.ts`) sees it.
 */
export async function writeElsewhere(storage: Storage, statement: string): Promise<void> {
  const e = storage.embedded
  if (e) {
    const other = new Database(e.writer.filename)
    try {
      configureConnection(other)
      other.run(statement)
    } finally {
      other.close()
    }
    return
  }
  // A test server takes no token: the storage's location (credentials removed) reaches it.
  const client = createClient({ url: storage.location })
  try {
    await client.execute(statement)
  } finally {
    client.close()
  }
}

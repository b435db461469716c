/**
 * Test helpers: a fresh database holding exactly the given Drizzle tables, created from the SQL
 * drizzle-kit itself generates for them (the same SQL a unit's migration would carry).
 *
 *   const db = await openTestDatabase({ idempotencyKeys })                    // bun:sqlite handle
 *   const storage = await openTestStorage({ items }, { libsql: sqld.url })    // either driver
 */
import { join } from 'node:path'
import { generateSQLiteDrizzleJson, generateSQLiteMigration } from 'drizzle-kit/api'
import { tempDir } from '../test/harness.ts'
import type { Migration } from './migrate.ts'
import { type OpenDb, openDatabase } from './sqlite.ts'
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

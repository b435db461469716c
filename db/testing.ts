/**
 * Test helper: a fresh SQLite file holding exactly the given Drizzle tables, created from the
 * SQL drizzle-kit itself generates for them (the same SQL a unit's migration would carry).
 *
 *   const db = await openTestDatabase({ idempotencyKeys })
 */
import { join } from 'node:path'
import { generateSQLiteDrizzleJson, generateSQLiteMigration } from 'drizzle-kit/api'
import { tempDir } from '../test/harness.ts'
import { type OpenDb, openDatabase } from './sqlite.ts'

export async function openTestDatabase(tables: Record<string, unknown>, path?: string): Promise<OpenDb> {
  const empty = await generateSQLiteDrizzleJson({})
  const statements = await generateSQLiteMigration(empty, await generateSQLiteDrizzleJson(tables))
  const sql = statements.join('\n--> statement-breakpoint\n')
  return openDatabase(path ?? join(tempDir('svc-db-'), 'test.sqlite'), [{ tag: '0000_test', when: 1, sql }])
}

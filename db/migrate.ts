import type { Database } from 'bun:sqlite'
import { sha256Hex } from '../common/hash.ts'

/** One drizzle-kit migration, embedded as text so the compiled executable needs no files. */
export interface Migration {
  tag: string
  /** drizzle-kit's journal timestamp (ms); orders migrations and marks them applied. */
  when: number
  sql: string
}

const BREAKPOINT = '--> statement-breakpoint'

/**
 * Apply pending migrations in one transaction each, recording them the way drizzle's own
 * migrator does (`__drizzle_migrations`: hash, created_at), so drizzle-kit sees the same state.
 */
export function applyMigrations(sqlite: Database, migrations: readonly Migration[]): number {
  sqlite.run(
    'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, created_at NUMERIC)',
  )
  const last = sqlite.query('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as {
    at: number | null
  }
  const lastAt = last.at ?? -1
  let applied = 0
  for (const m of [...migrations].sort((a, b) => a.when - b.when)) {
    if (m.when <= lastAt) continue
    const apply = sqlite.transaction(() => {
      for (const statement of m.sql.split(BREAKPOINT)) {
        if (statement.trim() !== '') sqlite.run(statement)
      }
      sqlite.run('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)', [
        sha256Hex(m.sql),
        m.when,
      ])
    })
    apply.immediate()
    applied++
  }
  return applied
}

/** The part of a libSQL client the migrator needs (`@libsql/client/web`'s `Client`). */
export interface AsyncMigrationClient {
  execute(stmt: string): Promise<unknown>
  transaction(mode: 'write'): Promise<{
    execute(stmt: string | { sql: string; args: (string | number)[] }): Promise<{ rows: unknown[] }>
    commit(): Promise<void>
    rollback(): Promise<void>
    close(): void
  }>
}

/**
 * The same migrations over a libSQL server: each in one write transaction that re-reads what is
 * applied inside it, so two processes starting together on one server apply each migration once.
 */
export async function applyMigrationsAsync(
  client: AsyncMigrationClient,
  migrations: readonly Migration[],
): Promise<number> {
  await client.execute(
    'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, created_at NUMERIC)',
  )
  let applied = 0
  for (const m of [...migrations].sort((a, b) => a.when - b.when)) {
    const tx = await client.transaction('write')
    try {
      const last = await tx.execute('SELECT max(created_at) AS at FROM __drizzle_migrations')
      const lastAt = Number((last.rows[0] as { at: number | null } | undefined)?.at ?? -1)
      if (m.when <= lastAt) {
        await tx.rollback()
        continue
      }
      for (const statement of m.sql.split(BREAKPOINT)) {
        if (statement.trim() !== '') await tx.execute(statement)
      }
      await tx.execute({
        sql: 'INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)',
        args: [sha256Hex(m.sql), m.when],
      })
      await tx.commit()
      applied++
    } catch (err) {
      await tx.rollback().catch(() => undefined)
      throw err
    } finally {
      tx.close()
    }
  }
  return applied
}

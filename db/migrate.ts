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

import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { applyMigrations } from './migrate.ts'
import { openDatabase } from './sqlite.ts'

const m1 = {
  tag: '0000_a',
  when: 1,
  sql: 'CREATE TABLE a (id TEXT PRIMARY KEY);--> statement-breakpoint\nCREATE INDEX a_id ON a (id);',
}
const m2 = { tag: '0001_b', when: 2, sql: 'ALTER TABLE a ADD COLUMN b TEXT;' }

describe('migrations', () => {
  test('apply in order once, recorded like drizzle, and resume on the next start', () => {
    const path = join(tempDir(), 'x.sqlite')
    const first = openDatabase(path, [m1])
    first.close()
    const second = openDatabase(path, [m2, m1])
    const rows = second.sqlite.query('SELECT hash, created_at FROM __drizzle_migrations ORDER BY id').all()
    expect(rows).toHaveLength(2)
    expect(applyMigrations(second.sqlite, [m1, m2])).toBe(0)
    second.sqlite.run("INSERT INTO a (id, b) VALUES ('1', 'x')")
    second.close()
  })

  test('a failing migration leaves nothing half-applied', () => {
    const db = new Database(':memory:')
    const bad = { tag: '0000_bad', when: 1, sql: 'CREATE TABLE t (x);--> statement-breakpoint\nNOT SQL;' }
    expect(() => applyMigrations(db, [bad])).toThrow()
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 't'").all()).toHaveLength(0)
  })

  test('the connection is configured for WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(join(tempDir(), 'y.sqlite'), [])
    expect(db.sqlite.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(db.sqlite.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(db.sqlite.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 })
    db.close()
  })
})

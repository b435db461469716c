/**
 * Plain SQL with `?` parameters on either storage driver, for the queries Drizzle's builder does
 * not express (FTS5 MATCH, bm25(), snippet(), dynamic IN lists, strftime buckets):
 *
 * - embedded: `bun:sqlite` statements cached per SQL text (`Database.query`) on the reader
 *   connection for reads, on the writer inside a transaction;
 * - libSQL: the same text through Drizzle's `sql` on `storage.db` or the transaction's `tx`.
 *
 * Rows come back as plain objects on both; BLOBs as Uint8Array on both.
 */
import type { Database } from 'bun:sqlite'
import { type SQL, sql } from 'drizzle-orm'
import type { Sql, Storage } from '../../db/storage.ts'

export type Param = string | number | null | Uint8Array

export interface Raw {
  all<T>(text: string, params?: readonly Param[]): Promise<T[]>
  get<T>(text: string, params?: readonly Param[]): Promise<T | undefined>
  /** Run a write; resolves to the number of rows it changed. */
  run(text: string, params?: readonly Param[]): Promise<number>
}

/** On one bun:sqlite connection, with the statements cached by their text. */
export function rawOnSqlite(db: Database): Raw {
  return {
    all: async <T>(text: string, params: readonly Param[] = []) => db.query(text).all(...params) as T[],
    get: async <T>(text: string, params: readonly Param[] = []) =>
      (db.query(text).get(...params) ?? undefined) as T | undefined,
    run: async (text, params = []) => db.query(text).run(...params).changes,
  }
}

/** `text` with its `?` placeholders bound, as Drizzle SQL (no `?` may appear inside literals). */
export function bind(text: string, params: readonly Param[]): SQL {
  const parts = text.split('?')
  if (parts.length - 1 !== params.length)
    throw new Error(`bind: ${parts.length - 1} placeholders, ${params.length} parameters`)
  const out = sql.empty()
  parts.forEach((part, i) => {
    out.append(sql.raw(part))
    if (i < params.length) out.append(sql`${params[i]}`)
  })
  return out
}

/** libSQL hands BLOBs over as ArrayBuffer; the embedded driver as Uint8Array. */
function plainRow<T>(row: unknown): T {
  const r = row as Record<string, unknown>
  for (const k of Object.keys(r)) if (r[k] instanceof ArrayBuffer) r[k] = new Uint8Array(r[k] as ArrayBuffer)
  return r as T
}

/** On a Drizzle handle of the libSQL driver (`storage.db` or a transaction's `tx`). */
export function rawOnDrizzle(h: Sql): Raw {
  return {
    all: async <T>(text: string, params: readonly Param[] = []) =>
      ((await h.all(bind(text, params))) as unknown[]).map((r) => plainRow<T>(r)),
    // Drizzle's libSQL `get` on plain SQL fails when there is no row: take the first of `all`.
    async get<T>(text: string, params: readonly Param[] = []) {
      const row = ((await h.all(bind(text, params))) as unknown[])[0]
      return row === undefined ? undefined : plainRow<T>(row)
    },
    async run(text, params = []) {
      const result = (await h.run(bind(text, params))) as { rowsAffected?: number; changes?: number }
      return result.rowsAffected ?? result.changes ?? 0
    },
  }
}

/** Reads of committed data: the embedded reader connection, or the server. */
export const rawReads = (storage: Storage): Raw =>
  storage.embedded ? rawOnSqlite(storage.embedded.reader) : rawOnDrizzle(storage.db)

/**
 * One write transaction with plain SQL: on the embedded driver the writer's cached statements
 * (inside `storage.transaction`, which holds the writer and has begun IMMEDIATE), on libSQL the
 * transaction's `tx`.
 */
export function rawTransaction<T>(storage: Storage, fn: (raw: Raw, tx: Sql) => Promise<T>): Promise<T> {
  const e = storage.embedded
  return storage.transaction((tx) => fn(e ? rawOnSqlite(e.writer) : rawOnDrizzle(tx), tx))
}

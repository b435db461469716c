import { getTableColumns, type Placeholder, sql, type Table } from 'drizzle-orm'

/**
 * Placeholders for every column of a table, named after the Drizzle property, for
 * `db.insert(table).values(columnPlaceholders(table)).prepare()`. Drizzle's query builder costs
 * tens to hundreds of microseconds per call; a statement built once and prepared costs none of
 * that per request. The column's own encoding (JSON mode, booleans) still applies at execution.
 * Every column must then be given a value (null where the row has none).
 */
export function columnPlaceholders<T extends Table>(
  table: T,
): { [K in keyof T['_']['columns']]: Placeholder<K & string> } {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((k) => [k, sql.placeholder(k)])) as {
    [K in keyof T['_']['columns']]: Placeholder<K & string>
  }
}

/**
 * `build(handle)` once per handle, remembered in a WeakMap: statements prepared once per
 * connection (`const prepared = perHandle((tx: Sql) => ({ insert: tx.insert(t)….prepare() }))`).
 * On the embedded driver a transaction's handle is always the writer connection, so they are
 * prepared once; on libSQL each transaction has its own handle and its own statements.
 */
export function perHandle<H extends object, S>(build: (handle: H) => S): (handle: H) => S {
  const cache = new WeakMap<H, S>()
  return (handle) => {
    let s = cache.get(handle)
    if (s === undefined) {
      s = build(handle)
      cache.set(handle, s)
    }
    return s
  }
}

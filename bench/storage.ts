/**
 * `npm run bench storage`: the cost of each storage path, in one process on this machine.
 *
 * - today's hot path: a prepared INSERT in a synchronous IMMEDIATE transaction (`openDatabase`);
 * - the same prepared statement through the embedded driver's `writeSync` (what WEB and ALS keep);
 * - `storage.transaction` with the query builder, embedded and on a libSQL server (sqld on
 *   127.0.0.1, when `tools/sqld` or `SQLD_BIN` provides it);
 * - a read by key on each; and 16 concurrent writers, for throughput under contention.
 *
 * `BENCH_OPS` sets the operations per row (default 2000 embedded; a quarter of it on sqld).
 */
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { openDatabase } from '../db/sqlite.ts'
import { openEmbeddedStorage, openLibsqlStorage, type Storage } from '../db/storage.ts'
import { testMigrations } from '../db/testing.ts'
import { tempDir } from '../test/harness.ts'
import { sqldBinary, startSqld } from '../test/sqld.ts'

const rows = sqliteTable('bench_rows', { id: text('id').primaryKey(), body: text('body').notNull() })
const BODY = 'x'.repeat(200)

interface Row {
  path: string
  ops: number
  perSecond: number
  p50us: number
  p99us: number
}

async function measure(path: string, ops: number, op: (i: number) => unknown): Promise<Row> {
  const times: number[] = []
  const start = performance.now()
  for (let i = 0; i < ops; i++) {
    const t = performance.now()
    await op(i)
    times.push(performance.now() - t)
  }
  const total = performance.now() - start
  times.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 1000)
  return { path, ops, perSecond: Math.round(ops / (total / 1000)), p50us: at(0.5), p99us: at(0.99) }
}

async function concurrent(path: string, ops: number, storage: Storage, prefix: string): Promise<Row> {
  const workers = 16
  const per = Math.ceil(ops / workers)
  const start = performance.now()
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; i < per; i++) {
        await storage.transaction(async (tx) => {
          await tx.insert(rows).values({ id: `${prefix}-${w}-${i}`, body: BODY })
        })
      }
    }),
  )
  const total = performance.now() - start
  return {
    path,
    ops: per * workers,
    perSecond: Math.round((per * workers) / (total / 1000)),
    p50us: 0,
    p99us: 0,
  }
}

async function onStorage(label: string, storage: Storage, ops: number): Promise<Row[]> {
  const find = storage.db
    .select()
    .from(rows)
    .where(eq(rows.id, sql.placeholder('id')))
    .prepare()
  return [
    await measure(`${label}: storage.transaction insert`, ops, (i) =>
      storage.transaction(async (tx) => {
        await tx.insert(rows).values({ id: `t-${i}`, body: BODY })
      }),
    ),
    await measure(`${label}: read by key (prepared)`, ops, (i) => find.get({ id: `t-${i}` })),
    await concurrent(`${label}: 16 concurrent writers`, ops, storage, 'c'),
  ]
}

export default async function run(): Promise<string> {
  const ops = Number(process.env.BENCH_OPS ?? 2000)
  const migrations = await testMigrations({ rows })
  const out: Row[] = []

  const today = openDatabase(join(tempDir('svc-bench-'), 'today.sqlite'), migrations)
  const insertToday = today.db
    .insert(rows)
    .values({ id: sql.placeholder('id'), body: sql.placeholder('body') })
    .prepare()
  out.push(
    await measure('today: prepared insert, sync transaction', ops, (i) =>
      today.db.transaction(() => insertToday.run({ id: `p-${i}`, body: BODY }), { behavior: 'immediate' }),
    ),
  )
  today.close()

  const embedded = openEmbeddedStorage(join(tempDir('svc-bench-'), 'embedded.sqlite'), migrations)
  const e = embedded.embedded
  if (!e) throw new Error('embedded handles missing')
  const insertSync = e.writerDb
    .insert(rows)
    .values({ id: sql.placeholder('id'), body: sql.placeholder('body') })
    .prepare()
  out.push(
    await measure('embedded: prepared insert, writeSync', ops, (i) =>
      e.writeSync(() => insertSync.run({ id: `p-${i}`, body: BODY })),
    ),
  )
  out.push(...(await onStorage('embedded', embedded, ops)))
  await embedded.close()

  let note = ''
  if (sqldBinary()) {
    const server = await startSqld()
    try {
      const remote = await openLibsqlStorage(server.url, migrations)
      out.push(...(await onStorage('sqld (HTTP, 127.0.0.1)', remote, Math.max(50, Math.floor(ops / 4)))))
      await remote.close()
    } finally {
      await server.stop()
    }
  } else {
    note = '\n(sqld not installed: the libSQL rows are missing)'
  }

  const lines = [
    `Storage paths, one process, ${new Date().toISOString()}`,
    '',
    '| path | ops | ops/s | p50 µs | p99 µs |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...out.map((r) => `| ${r.path} | ${r.ops} | ${r.perSecond} | ${r.p50us || '–'} | ${r.p99us || '–'} |`),
  ]
  return lines.join('\n') + note
}

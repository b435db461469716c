import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { count, eq, sql } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { describeOnDrivers } from '../test/drivers.ts'
import { tempDir } from '../test/harness.ts'
import { openEmbeddedStorage, redactUrl, type Storage, storageTarget, WriterLock } from './storage.ts'
import { testMigrations } from './testing.ts'

const counters = sqliteTable('counters', {
  name: text('name').primaryKey(),
  n: integer('n').notNull(),
})
const items = sqliteTable('items', {
  id: text('id').primaryKey(),
  body: text('body').notNull(),
})
const tables = { counters, items }

const tick = () => Bun.sleep(Math.floor(Math.random() * 3))

/** Read the counter, await, write it plus one: loses updates unless transactions are isolated. */
const bump = (s: Storage) =>
  s.transaction(async (tx) => {
    const row = await tx.select().from(counters).where(eq(counters.name, 'c')).get()
    await tick()
    await tx
      .update(counters)
      .set({ n: (row?.n ?? 0) + 1 })
      .where(eq(counters.name, 'c'))
  })

describeOnDrivers('storage transactions', ({ open, sameAs }) => {
  test('concurrent transactions that await inside never lose an update', async () => {
    const s = await open(tables)
    await s.transaction(async (tx) => {
      await tx.insert(counters).values({ name: 'c', n: 0 })
    })
    await Promise.all(Array.from({ length: 20 }, () => bump(s)))
    expect(await s.db.select().from(counters)).toEqual([{ name: 'c', n: 20 }])
  })

  test('a reader during an open write sees only committed rows', async () => {
    const s = await open(tables)
    let inserted!: () => void
    let finish!: () => void
    const insertedP = new Promise<void>((r) => {
      inserted = r
    })
    const finishP = new Promise<void>((r) => {
      finish = r
    })
    const writing = s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'a', body: 'uncommitted' })
      inserted()
      await finishP
    })
    await insertedP
    expect(await s.db.select().from(items)).toEqual([])
    expect((await s.db.select({ n: count() }).from(items).get())?.n).toBe(0)
    finish()
    await writing
    expect(await s.db.select().from(items)).toEqual([{ id: 'a', body: 'uncommitted' }])
  })

  test('a rolled-back transaction leaves nothing, while another commits beside it', async () => {
    const s = await open(tables)
    const failing = s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'doomed-1', body: 'x' })
      await tick()
      await tx.insert(items).values({ id: 'doomed-2', body: 'x' })
      throw new Error('refused')
    })
    const committing = s.transaction(async (tx) => {
      await tick()
      await tx.insert(items).values({ id: 'kept', body: 'y' })
      return 'ok'
    })
    await expect(failing).rejects.toThrow('refused')
    expect(await committing).toBe('ok')
    expect(await s.db.select({ id: items.id }).from(items)).toEqual([{ id: 'kept' }])
  })

  test('a unique constraint refuses the second insert and keeps the first', async () => {
    const s = await open(tables)
    await s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'k', body: 'first' })
    })
    await expect(
      s.transaction(async (tx) => {
        await tx.insert(items).values({ id: 'k', body: 'second' })
      }),
    ).rejects.toThrow()
    expect(await s.db.select().from(items)).toEqual([{ id: 'k', body: 'first' }])
  })

  test('two storages on one database (two processes) serialize their transactions', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    await a.transaction(async (tx) => {
      await tx.insert(counters).values({ name: 'c', n: 0 })
    })
    await Promise.all(Array.from({ length: 10 }, (_, i) => bump(i % 2 === 0 ? a : b)))
    expect((await b.db.select().from(counters).get())?.n).toBe(10)
  })

  test('migrations apply once, also when a second process starts on the same database', async () => {
    const a = await open(tables)
    const b = await sameAs(tables, a)
    const applied = await b.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM __drizzle_migrations`)
    expect(applied).toEqual([{ n: 1 }])
  })

  test('prepared statements run on the driver, with placeholders', async () => {
    const s = await open(tables)
    const find = s.db
      .select()
      .from(items)
      .where(eq(items.id, sql.placeholder('id')))
      .prepare()
    await s.transaction(async (tx) => {
      const insert = tx
        .insert(items)
        .values({ id: sql.placeholder('id'), body: sql.placeholder('body') })
        .prepare()
      await insert.run({ id: 'p', body: 'prepared' })
      await insert.run({ id: 'q', body: 'again' })
    })
    expect(await find.get({ id: 'p' })).toEqual({ id: 'p', body: 'prepared' })
    expect(await find.get({ id: 'q' })).toEqual({ id: 'q', body: 'again' })
  })

  test('FTS5 full-text search works', async () => {
    const s = await open(tables)
    await s.transaction(async (tx) => {
      await tx.run(sql`CREATE VIRTUAL TABLE docs USING fts5(title, body)`)
      await tx.run(sql`INSERT INTO docs (title, body) VALUES ('Storage', 'embedded SQLite by default')`)
      await tx.run(sql`INSERT INTO docs (title, body) VALUES ('Scale', 'a libSQL server by configuration')`)
    })
    const hits = await s.db.all<{ title: string }>(
      sql`SELECT title FROM docs WHERE docs MATCH ${'server'} ORDER BY rank`,
    )
    expect(hits).toEqual([{ title: 'Scale' }])
  })

  test('ready answers while the database is open', async () => {
    const s = await open(tables)
    expect(await s.ready()).toBe(true)
  })
})

describe('embedded driver', () => {
  test('the reader connection refuses writes: every write goes through the serialized writer', async () => {
    const s = openEmbeddedStorage(join(tempDir(), 'r.sqlite'), await testMigrations(tables))
    await expect(
      Promise.resolve().then(() => s.db.insert(items).values({ id: 'x', body: 'y' }).run()),
    ).rejects.toThrow()
    await s.close()
  })

  test('a synchronous write refuses to run inside an open async transaction', async () => {
    const s = openEmbeddedStorage(join(tempDir(), 'w.sqlite'), await testMigrations(tables))
    const e = s.embedded!
    let release!: () => void
    const open = s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'async', body: 'a' })
      await new Promise<void>((r) => {
        release = r
      })
      throw new Error('rolled back')
    })
    await Bun.sleep(1)
    expect(() => e.writeSync(() => e.writerDb.insert(items).values({ id: 'sync', body: 's' }).run())).toThrow(
      /held by an open transaction/,
    )
    release()
    await expect(open).rejects.toThrow('rolled back')
    e.writeSync(() => e.writerDb.insert(items).values({ id: 'sync', body: 's' }).run())
    expect(await s.db.select({ id: items.id }).from(items)).toEqual([{ id: 'sync' }])
    await s.close()
  })

  test(':memory: works with a separate reader and leaves nothing behind', async () => {
    const s = openEmbeddedStorage(':memory:', await testMigrations(tables))
    await s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'm', body: 'mem' })
    })
    expect(await s.db.select().from(items)).toEqual([{ id: 'm', body: 'mem' }])
    await s.close()
    const again = openEmbeddedStorage(':memory:', await testMigrations(tables))
    expect(await again.db.select().from(items)).toEqual([])
    await again.close()
  })

  test('the data survives a reopen of the file', async () => {
    const path = join(tempDir(), 'p.sqlite')
    const first = openEmbeddedStorage(path, await testMigrations(tables))
    await first.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'kept', body: 'k' })
    })
    await first.close()
    const second = openEmbeddedStorage(path, await testMigrations(tables))
    expect(await second.db.select().from(items)).toEqual([{ id: 'kept', body: 'k' }])
    await second.close()
  })
})

describe('configuration', () => {
  test('libsql and http(s) URLs choose the server; paths and file: URLs the embedded file', () => {
    expect(storageTarget('web', '/data', 'libsql://db.example.com')).toEqual({
      driver: 'libsql',
      url: 'libsql://db.example.com',
    })
    expect(storageTarget('web', '/data', 'http://127.0.0.1:8080').driver).toBe('libsql')
    expect(storageTarget('web', '/data', 'https://x.turso.io').driver).toBe('libsql')
    expect(storageTarget('web', '/data')).toEqual({ driver: 'embedded', path: '/data/web.sqlite' })
    expect(storageTarget('web', '/data', 'file:/tmp/w.sqlite')).toEqual({
      driver: 'embedded',
      path: '/tmp/w.sqlite',
    })
  })

  test('a logged location never carries credentials', () => {
    expect(redactUrl('https://user:secret@db.example.com/?authToken=abc')).toBe('https://db.example.com')
    expect(redactUrl('libsql://db.example.com/ns?authToken=abc')).toBe('libsql://db.example.com/ns')
  })

  test('the writer lock hands over in order', async () => {
    const lock = new WriterLock()
    const order: number[] = []
    await Promise.all(
      [1, 2, 3].map((i) =>
        lock.run(async () => {
          order.push(i)
          await Bun.sleep(3 - i)
          order.push(-i)
        }),
      ),
    )
    expect(order).toEqual([1, -1, 2, -2, 3, -3])
    expect(lock.isHeld).toBe(false)
  })
})

describeOnDrivers('storage closing', ({ open }) => {
  test('close waits for the open transaction; later transactions fail instead of hanging', async () => {
    const s = await open(tables)
    let release!: () => void
    let inside!: () => void
    const entered = new Promise<void>((r) => {
      inside = r
    })
    const running = s.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'before-close', body: 'b' })
      await new Promise<void>((r) => {
        release = r
        inside()
      })
    })
    // Close only once the transaction is open and holding (on a server that takes a round trip).
    await entered
    const closing = s.close()
    const late = s.transaction(async () => 'never')
    release()
    await running
    await closing
    await expect(late).rejects.toThrow('the storage is closed')
  })
})

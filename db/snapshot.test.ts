import { afterEach, describe, expect, test } from 'bun:test'
import { count } from 'drizzle-orm'
import { sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { boundedSnapshot, writeCount } from './snapshot.ts'
import type { Storage } from './storage.ts'
import { openTestStorage } from './testing.ts'

const items = sqliteTable('items', { id: text('id').primaryKey() })

let storage: Storage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const rows = async (s: Storage) => (await s.db.select({ n: count() }).from(items).get())?.n ?? 0

describe('boundedSnapshot', () => {
  test('computes once per bound, shares one computation between concurrent callers', async () => {
    let computed = 0
    const s = boundedSnapshot(
      async () => {
        computed += 1
        await Bun.sleep(5)
        return { n: computed }
      },
      { maxAgeMs: 60 },
    )
    expect(s.current()).toBeUndefined()
    const [a, b, c] = await Promise.all([s.get(), s.get(), s.get()])
    expect(computed).toBe(1)
    expect(a).toBe(b)
    expect(b).toBe(c)
    expect(s.current()).toBe(a)
    expect(await s.get()).toBe(a)
    await Bun.sleep(70)
    expect(s.current()).toBeUndefined()
    expect(await s.get()).toEqual({ n: 2 })
  })

  test('a version change discards the snapshot and a computation begun before it', async () => {
    let version = 0
    let computed = 0
    const s = boundedSnapshot(
      async () => {
        computed += 1
        const mine = computed
        await Bun.sleep(5)
        return mine
      },
      { maxAgeMs: 60_000, version: () => version },
    )
    const before = s.get()
    version += 1
    const after = s.get()
    expect(await before).toBe(1)
    expect(await after).toBe(2)
    expect(s.current()).toBe(2)
    version += 1
    expect(s.current()).toBeUndefined()
  })

  test('a failed computation reaches its callers and is not kept', async () => {
    let fail = true
    const s = boundedSnapshot(async () => {
      if (fail) throw new Error('down')
      return 'up'
    })
    await expect(s.get()).rejects.toThrow('down')
    fail = false
    expect(await s.get()).toBe('up')
  })
})

describe('writeCount', () => {
  test("counts this process's commits on the storage, whoever writes", async () => {
    storage = await openTestStorage({ items })
    const s = storage
    const writes = writeCount(s)
    const snap = boundedSnapshot(() => rows(s), { maxAgeMs: 60_000, version: writes })
    expect(await snap.get()).toBe(0)
    await s.transaction(async (tx) => void (await tx.insert(items).values({ id: 'a' })))
    expect(writes()).toBe(1)
    expect(snap.current()).toBeUndefined()
    expect(await snap.get()).toBe(1)
    const e = s.embedded
    if (!e) throw new Error('embedded driver expected')
    e.writeSync(() => e.writerDb.insert(items).values({ id: 'b' }).run())
    expect(await snap.get()).toBe(2)
    await e.write(() => e.writerDb.insert(items).values({ id: 'c' }).run())
    expect(await snap.get()).toBe(3)
    // A write on another connection (another process) is not seen until the bound passes.
    e.writer.run("INSERT INTO items (id) VALUES ('d')")
    expect(await snap.get()).toBe(3)
  })
})

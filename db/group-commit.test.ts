import { expect, test } from 'bun:test'
import { GroupCommit, type Writer } from './group-commit.ts'
import type { Sql } from './storage.ts'

/** A writer over an array that behaves as a transaction: a throw undoes everything the body wrote. */
function fakeStore() {
  const rows: string[] = []
  let commits = 0
  const write: Writer = async (fn) => {
    const before = rows.length
    try {
      const value = await fn({} as Sql)
      commits++
      return value
    } catch (err) {
      rows.length = before
      throw err
    }
  }
  return { rows, write, commits: () => commits }
}

test('writes queued in one turn commit together, and each caller gets its own result after the commit', async () => {
  const s = fakeStore()
  const group = new GroupCommit(s.write)
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      group.run(async () => {
        s.rows.push(`row-${i}`)
        return { i, committedBefore: s.commits() }
      }),
    ),
  )
  expect(s.commits()).toBe(1)
  expect(s.rows).toHaveLength(20)
  expect(results.map((r) => r.i)).toEqual(Array.from({ length: 20 }, (_, i) => i))
  // The transaction had not committed when the bodies ran: the answers came after the commit.
  expect(results.every((r) => r.committedBefore === 0)).toBe(true)
})

test('one failing item settles only its own caller; the others are written', async () => {
  const s = fakeStore()
  const group = new GroupCommit(s.write)
  const outcomes = await Promise.allSettled(
    ['a', 'b', 'bad', 'c'].map((id) =>
      group.run(async () => {
        s.rows.push(id)
        if (id === 'bad') throw new Error('broken row')
        return id
      }),
    ),
  )
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
  expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(Error)
  expect(s.rows).toEqual(['a', 'b', 'c'])
})

test('a failing commit rejects every caller of the group: nothing is acknowledged', async () => {
  const group = new GroupCommit(async () => {
    throw new Error('disk full')
  })
  const outcomes = await Promise.allSettled([group.run(async () => 1), group.run(async () => 2)])
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected'])
})

test('writes queued in a later turn go in the next group', async () => {
  const s = fakeStore()
  const group = new GroupCommit(s.write)
  await group.run(async () => s.rows.push('first'))
  await Promise.all([
    group.run(async () => s.rows.push('second')),
    group.run(async () => s.rows.push('third')),
  ])
  expect(s.commits()).toBe(2)
  expect(s.rows).toEqual(['first', 'second', 'third'])
})

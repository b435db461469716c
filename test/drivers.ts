/** Run the same tests on the embedded driver and on a real libSQL server. */
import { afterEach, describe } from 'bun:test'
import { join } from 'node:path'
import type { Storage } from '../db/storage.ts'
import { openTestStorage } from '../db/testing.ts'
import { tempDir } from './harness.ts'
import { type Sqld, sqldBinary, startSqld } from './sqld.ts'

export interface DriverUnderTest {
  driver: 'embedded' | 'libsql'
  /** Fresh storage holding `tables` (a new file, or a new sqld), closed after the test. */
  open(tables: Record<string, unknown>): Promise<Storage>
  /** Where a second process would connect: the same file or the same server. */
  sameAs(tables: Record<string, unknown>, first: Storage): Promise<Storage>
}

/**
 * Run the same tests on both drivers: `describe(<title> [embedded])` on a temp file and
 * `describe(<title> [libsql])` on a fresh sqld per test (skipped, with a message, without sqld).
 */
export function describeOnDrivers(title: string, body: (d: DriverUnderTest) => void): void {
  for (const driver of ['embedded', 'libsql'] as const) {
    const skip = driver === 'libsql' && !sqldBinary()
    describe.skipIf(skip)(`${title} [${driver}]`, () => {
      const opened: Storage[] = []
      const servers: Sqld[] = []
      const where = new Map<Storage, { libsql?: string; path?: string }>()
      afterEach(async () => {
        for (const s of opened.splice(0)) await s.close()
        for (const s of servers.splice(0)) await s.stop()
      })
      const track = (s: Storage, w: { libsql?: string; path?: string }) => {
        opened.push(s)
        where.set(s, w)
        return s
      }
      body({
        driver,
        async open(tables) {
          let w: { libsql?: string; path?: string }
          if (driver === 'libsql') {
            const server = await startSqld()
            servers.push(server)
            w = { libsql: server.url }
          } else {
            w = { path: join(tempDir('svc-db-'), 'test.sqlite') }
          }
          return track(await openTestStorage(tables, w), w)
        },
        async sameAs(tables, first) {
          const w = where.get(first)
          if (!w) throw new Error('sameAs: open the first storage with open()')
          return track(await openTestStorage(tables, w), w)
        },
      })
    })
  }
}

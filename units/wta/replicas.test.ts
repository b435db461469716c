/**
 * Two WTA processes on one libSQL server (two replicas) observing the same tool: the observer
 * lease on the server lets one of them poll, never both, and a round from the command line
 * (`svc wta observe`, a third process) waits its turn until the holder has stopped.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@libsql/client/web'
import { runUnitProcess, tempDir } from '../../test/harness.ts'
import { sqldBinary, startSqld } from '../../test/sqld.ts'
import { fakeN8n } from './testing.ts'

const ROOT = join(import.meta.dir, '..', '..')

type Event = { at: string; kind: string; detail: { first_poll_in_ms?: number } }

const events = (dataDir: string): Event[] =>
  readFileSync(join(dataDir, 'logs', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event)

const kinds = (dataDir: string) => events(dataDir).map((e) => e.kind)

/** When a process's observer makes its first poll, from its `observer.started` event. */
const firstPollAt = (dataDir: string) => {
  const started = events(dataDir).find((e) => e.kind === 'observer.started')
  if (!started) throw new Error(`no observer.started in ${dataDir}`)
  return Date.parse(started.at) + (started.detail.first_poll_in_ms ?? 0)
}

const listings = (requests: string[]) => requests.filter((p) => p.startsWith('/api/v1/workflows?')).length

describe.skipIf(!sqldBinary())('two wta replicas on one sqld', () => {
  test('one observer round at a time per gateway target, across processes', async () => {
    const sqld = await startSqld()
    const n8n = fakeN8n()
    // A round takes a while, so that two rounds at once would overlap at the tool.
    n8n.delayMs = 150
    const env = {
      DATABASE_URL: sqld.url,
      WTA_AUTOMATION_URL: n8n.url,
      WTA_AUTOMATION_API_KEY: n8n.apiKey,
      WTA_FLOW_CONTROL_POLL_SECONDS: '30',
    }
    const dirs = [tempDir(), tempDir()]
    const [a, b] = await Promise.all(
      dirs.map((dir) => runUnitProcess('wta', '/api/v1/health', { ...env, SVC_DATA_DIR: dir })),
    )
    const db = createClient({ url: sqld.url })
    // Asynchronously: the stand-in tool answers from this process.
    const observe = async () => {
      const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'wta', 'observe', '--json'], {
        cwd: ROOT,
        env: { ...process.env, ...env, SVC_DATA_DIR: tempDir() },
        stdout: 'pipe',
      })
      const out = await new Response(proc.stdout).text()
      return { code: await proc.exited, stats: (JSON.parse(out) as { data: { holds_lease: boolean } }).data }
    }
    try {
      // Both first polls fall within the 3 s of jitter after start (nothing was polled before):
      // wait until both have been made, and the round of whichever took the lease is done.
      await Bun.sleep(Math.max(...dirs.map(firstPollAt)) + 1500 - Date.now())
      expect(listings(n8n.requests)).toBe(1)
      expect(n8n.maxInFlight).toBe(1)
      const lease = (await db.execute("SELECT holder FROM leases WHERE name LIKE 'wta:observer:%'")).rows.map(
        (r) => String(r.holder),
      )
      expect(lease).toHaveLength(1)
      // The process that polled logged the snapshot; the other only that it started.
      const polled = dirs.map((dir) => kinds(dir).includes('workflows.changed'))
      expect(polled.filter(Boolean)).toHaveLength(1)
      for (const dir of dirs) expect(kinds(dir)).toContain('observer.started')
      const [holder, other] = polled[0] ? [a, b] : [b, a]
      if (!holder || !other) throw new Error('two processes')
      // The command line is a third process: it does not poll while a process holds the lease.
      const refused = await observe()
      expect(refused).toMatchObject({ code: 1, stats: { holds_lease: false } })
      expect(listings(n8n.requests)).toBe(1)
      // The holder stops and gives the lease up; the next round anywhere goes through.
      expect(await holder.stop()).toBe(0)
      const taken = await observe()
      expect(taken).toMatchObject({ code: 0, stats: { holds_lease: true, consecutive_failures: 0 } })
      expect(listings(n8n.requests)).toBe(2)
      expect(n8n.maxInFlight).toBe(1)
      // Both rounds snapshotted into the one shared database.
      const synced = await db.execute('SELECT count(*) AS n FROM syncs WHERE ok = 1')
      expect(Number(synced.rows[0]?.n)).toBe(2)
      expect(await other.stop()).toBe(0)
    } finally {
      a?.proc.kill()
      b?.proc.kill()
      db.close()
      n8n.stop()
      await sqld.stop()
    }
  }, 30_000)
})

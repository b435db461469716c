import { describe, expect, test } from 'bun:test'
import { fakePeer, json, runUnitProcess, tempDir } from '../../test/harness.ts'
import { sqldBinary, startSqld } from '../../test/sqld.ts'

type Snapshot = { database: { ready: boolean; observations: number; registered_versions: number } }

describe.skipIf(!sqldBinary())('prs on a libSQL server (sqld)', () => {
  test('runs on DATABASE_URL=http://…, keeps its data on the server across restarts', async () => {
    const sqld = await startSqld()
    const web = fakePeer((r) => (r.path === '/health' ? json({ ok: true, status: 'ok' }) : json({}, 404)))
    const env = {
      DATABASE_URL: sqld.url,
      SVC_DATA_DIR: tempDir('svc-prs-libsql-'),
      SVC_UNIT_URLS: `web=${web.url}`,
      PRS_OBSERVE_INTERVAL_MS: '1000',
    }
    const snapshot = async (url: string) =>
      (await (await fetch(`${url}/api/v1/tools/host-snapshot`)).json()) as Snapshot
    try {
      const first = await runUnitProcess('prs', '/health', env)
      let before: Snapshot
      try {
        before = await snapshot(first.url)
        for (let i = 0; i < 60 && before.database.observations === 0; i++) {
          await Bun.sleep(50)
          before = await snapshot(first.url)
        }
        expect(before.database.ready).toBe(true)
        expect(before.database.registered_versions).toBeGreaterThan(0)
        expect(before.database.observations).toBeGreaterThan(0)
      } finally {
        expect(await first.stop()).toBe(0)
      }
      // a second process on the same server: nothing registered twice, observations still there
      const second = await runUnitProcess('prs', '/health', { ...env, PRS_OBSERVE_INTERVAL_MS: '600000' })
      try {
        const after = await snapshot(second.url)
        expect(after.database.registered_versions).toBe(before.database.registered_versions)
        expect(after.database.observations).toBeGreaterThanOrEqual(before.database.observations)
      } finally {
        expect(await second.stop()).toBe(0)
      }
    } finally {
      web.stop()
      await sqld.stop()
    }
  }, 30_000)
})

/** The real process, as an operator runs it: `svc nds keys create`, then `bun run unit nds`, twice on one data directory. */
import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type Json, type RunningUnit, runUnitProcess, tempDir } from '../../test/harness.ts'
import { fixtureServer } from './testing.ts'

const ROOT = join(import.meta.dir, '..', '..')
const dataDir = tempDir('svc-nds-proc-')
const fixtures = fixtureServer()
const running: RunningUnit[] = []
afterAll(async () => {
  for (const p of running) if (p.proc.exitCode === null) await p.stop()
  fixtures.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function keysCreate(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'nds', 'keys', 'create', name], {
    cwd: ROOT,
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, stdout, stderr }
}

describe('nds as a real process', () => {
  test('a key from the command line works against the service; ingest and data survive a restart', async () => {
    const created = await keysCreate('analyst')
    expect(created.code).toBe(0)
    const key = created.stdout.trim().split('\n').at(-1) ?? ''
    expect(key).toMatch(/^nds_[A-Za-z0-9_-]{43}$/)
    const usage = await keysCreate('')
    expect(usage.code).toBe(2)

    const env = { SVC_DATA_DIR: dataDir, NDS_RSS_FEEDS: `${fixtures.url}/rss/world.xml` }
    const a = await runUnitProcess('nds', '/v1/health/live', env)
    running.push(a)
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    expect((await fetch(`${a.url}/v1/health/ready`)).status).toBe(200)
    expect(
      (
        await fetch(`${a.url}/v1/search/filter`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401)
    const job = (await (
      await fetch(`${a.url}/v1/ingest/rss/backfill`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ from: '2026-10-01T00:00:00Z' }),
      })
    ).json()) as Json
    let state = job.state
    for (let i = 0; i < 200 && (state === 'queued' || state === 'running'); i++) {
      await Bun.sleep(50)
      state = ((await (await fetch(`${a.url}/v1/jobs/${job.job_id}`, { headers: auth })).json()) as Json)
        .state
    }
    expect(state).toBe('partially_failed')
    expect(await a.stop()).toBe(0)

    const b = await runUnitProcess('nds', '/v1/health/live', env)
    running.push(b)
    const found = (await (
      await fetch(`${b.url}/v1/search/semantic`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ query: 'glacier retreat Alps', limit: 1 }),
      })
    ).json()) as Json
    expect(found.results[0].canonical_url).toBe('https://world.example/2026/11/glacier-survey')
    const info = (await (await fetch(`${b.url}/v1/health/info`)).json()) as Json
    expect(info.runtime_counts.articles).toBe(4)
    expect(await b.stop()).toBe(0)
  }, 60_000)
})

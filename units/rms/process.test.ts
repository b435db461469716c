/** The real process, as an operator runs it: `bun run unit rms`, twice on one data directory. */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { buildCommand } from '../../bin/build.ts'
import { freePort, type Json, type RunningUnit, runUnitProcess, tempDir } from '../../test/harness.ts'
import { bearer, LOCAL_TOKENS, TOKENS } from './testing.ts'

const W = bearer(TOKENS.write)
const dataDir = tempDir('svc-rms-proc-')
const running: RunningUnit[] = []
afterAll(async () => {
  for (const p of running) if (p.proc.exitCode === null) await p.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const getJson = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers })
  return { status: res.status, body: (await res.json()) as Json }
}
const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

describe('rms as a real process', () => {
  test('serves, refuses, seeds its host; a second process on the same database never holds the lease at the same time', async () => {
    const env = { SVC_DATA_DIR: dataDir, RMS_LOCAL_TOKENS: LOCAL_TOKENS }
    const a = await runUnitProcess('rms', '/health', env)
    running.push(a)
    expect((await getJson(`${a.url}/health`)).body).toMatchObject({ status: 'ok', service: 'rms' })
    const manifest = (await getJson(`${a.url}/platform-manifest.json`)).body
    expect(manifest.runtime_contract.port_policy).toMatchObject({
      policy: 'static-required',
      published_host_port: 18086,
      container_port: 8080,
    })
    expect(Object.keys(manifest.compatibility)).toEqual(
      expect.arrayContaining(['manifest_v2_claim_owner_projection', 'agent_tool_policy_projection']),
    )
    expect((await getJson(`${a.url}/api/v1/version`)).body.api_version).toBe('v1')
    expect((await getJson(`${a.url}/api/v1/runtime/inventory`)).status).toBe(401)
    expect((await fetch(`${a.url}/metrics`)).status).toBe(401)
    const metrics = await (await fetch(`${a.url}/metrics`, { headers: W })).text()
    for (const name of [
      'svc_persistence_ready',
      'svc_rms_runtime_agents',
      'svc_rms_drift_items',
      'svc_rms_outbox_events',
      'svc_rms_reconcile_runs_total',
      'svc_rms_control_lease_held',
      'svc_rms_learning_proposals',
      'svc_rms_authority_degraded',
    ]) {
      expect(metrics).toContain(name)
    }
    expect(existsSync(join(dataDir, 'runtime-host/agents/a-orchestrator.json'))).toBe(true)

    // The control loop reconciles at start, so the first process holds the lease.
    let leaseA: Json
    for (let i = 0; i < 40; i++) {
      leaseA = (await getJson(`${a.url}/api/v1/control-agent/leases`, W)).body.items[0]
      if (leaseA?.held) break
      await Bun.sleep(50)
    }
    expect(leaseA!).toMatchObject({ held: true, held_by_this_instance: true })

    const b = await runUnitProcess('rms', '/health', env)
    running.push(b)
    const leasesB = (await getJson(`${b.url}/api/v1/control-agent/leases`, W)).body
    expect(leasesB.items[0]).toMatchObject({
      holder: leaseA!.holder,
      held: true,
      held_by_this_instance: false,
    })
    const refused = await postJson(`${b.url}/api/v1/control-agent/reconcile`, {}, W)
    expect(refused.status).toBe(409)
    expect(refused.body.error.details.holder).toBe(leaseA!.holder)
    const watchdogB = (await getJson(`${b.url}/api/v1/control-agent/watchdog`, W)).body
    expect(watchdogB.state).toBe('standby')

    // SIGTERM drains and releases the lease; then the second process takes it.
    expect(await a.stop()).toBe(0)
    const taken = await postJson(`${b.url}/api/v1/control-agent/reconcile`, {}, W)
    expect(taken.status).toBe(200)
    expect(taken.body.lease).toMatchObject({ held_by_this_instance: true, generation: 2 })
    const transitions = (await getJson(`${b.url}/api/v1/control-agent/leases`, W)).body.transitions.map(
      (t: Json) => t.transition,
    )
    expect(transitions).toEqual(['acquired', 'released', 'acquired'])
    expect(await b.stop()).toBe(0)
  }, 30_000)

  test('the compiled executable seeds a fresh data directory from the embedded example, from another folder', async () => {
    const root = join(import.meta.dir, '../..')
    const work = tempDir('svc-rms-exe-')
    const exe = join(work, 'svc')
    // The shipped build's own flags (bytecode, no autoloaded config), not a plain --compile.
    const build = Bun.spawnSync(buildCommand(exe), { cwd: root })
    expect(build.exitCode).toBe(0)
    const port = freePort()
    const proc = Bun.spawn([exe, 'unit', 'rms'], {
      cwd: work,
      env: {
        PATH: process.env.PATH,
        SVC_ENV: 'test',
        SVC_DATA_DIR: join(work, 'data'),
        PORT: String(port),
        HOST: '127.0.0.1',
        RMS_LOCAL_TOKENS: LOCAL_TOKENS,
      },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    try {
      let drift: Json
      for (let i = 0; ; i++) {
        try {
          drift = (await getJson(`http://127.0.0.1:${port}/api/v1/drift/summary`, W)).body
          break
        } catch (err) {
          if (i > 100) throw err
          await Bun.sleep(50)
        }
      }
      expect(drift!.state).toBe('in_sync')
      expect(existsSync(join(work, 'data/runtime-host/agents/a-support-desk.json'))).toBe(true)
      // The API docs page and its viewer are embedded too: no file on disk, no CDN.
      const page = await fetch(`http://127.0.0.1:${port}/docs`)
      expect(page.headers.get('content-type')).toContain('text/html')
      const bundle = /src="(\/docs\/assets\/swagger-ui-bundle\.js[^"]*)"/.exec(await page.text())?.[1]
      const asset = await fetch(`http://127.0.0.1:${port}${bundle}`)
      expect(asset.status).toBe(200)
      expect((await asset.text()).length).toBeGreaterThan(1_000_000)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(work, { recursive: true, force: true })
    }
  }, 30_000)

  test('bad configuration exits non-zero with one line per bad variable', async () => {
    const proc = Bun.spawn([process.execPath, 'run', 'unit', 'rms'], {
      cwd: join(import.meta.dir, '../..'),
      env: {
        ...process.env,
        SVC_DATA_DIR: dataDir,
        RMS_RECONCILE_INTERVAL_S: '5',
        SVC_CONTEXT_BASE_URL: 'not-a-url',
      },
      stderr: 'pipe',
      stdout: 'pipe',
    })
    expect(await proc.exited).not.toBe(0)
    const err = await new Response(proc.stderr).text()
    expect(err).toContain('RMS_RECONCILE_INTERVAL_S')
    expect(err).toContain('SVC_CONTEXT_BASE_URL')
  })
})

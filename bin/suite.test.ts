import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { bootForTest, tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { rms } from '../units/rms/index.ts'
import { suiteEnv } from './suite.ts'

test('suite wiring: every consumer gets its producers from the variables CONTRACTS.md names', () => {
  const names = Object.keys(httpUnits)
  const envs = suiteEnv(names, { SVC_SUITE_PORT_OFFSET: '100' })
  for (const name of names) {
    const env = envs[name] ?? {}
    expect(env.PORT).toBe(String(httpUnits[name as keyof typeof httpUnits].port + 100))
    expect(env.HOST).toBe('127.0.0.1')
    expect(env.SVC_UNIT_URLS).toContain(`${name}=http://127.0.0.1:`)
  }
})

test('the WEB to EIS contact webhook shares one generated secret when both run', () => {
  const envs = suiteEnv(['web', 'eis'], {})
  expect(envs.web?.CONTACT_WEBHOOK_URL).toContain('svc_erp_core.api.webhooks.website_contact_intake')
  expect(envs.web?.CONTACT_WEBHOOK_SECRET).toBe(envs.eis?.ERP_API_SHARED_SECRET)
  expect(envs.web?.CONTACT_WEBHOOK_SECRET?.length).toBeGreaterThanOrEqual(32)
})

test('ALS gets a token that RMS accepts for reads and refuses for writes', async () => {
  const envs = suiteEnv(['als', 'rms'], {})
  const token = envs.als?.SVC_RMS_TOKEN ?? ''
  expect(token.length).toBeGreaterThanOrEqual(32)
  expect(envs.als?.SVC_RMS_URL).toBe(`http://127.0.0.1:${httpUnits.rms.port}`)
  const { SVC_ENV: _, ...rmsEnv } = envs.rms ?? {}
  const unit = bootForTest(rms, rmsEnv)
  try {
    const auth = { authorization: `Bearer ${token}` }
    const read = await unit.request('/api/v1/execution/approvals/apr-unknown', { headers: auth })
    expect(read.status).toBe(404)
    const wrong = await unit.request('/api/v1/execution/approvals/apr-unknown', {
      headers: { authorization: 'Bearer not-the-token' },
    })
    expect(wrong.status).toBe(401)
    const write = await unit.send('POST', '/api/v1/execution/approvals', { approval_id: 'a' }, auth)
    expect(write.status).toBe(403)
  } finally {
    await unit.dispose()
  }
})

test('EIS gets a token RMS accepts for recording approvals (its dispatch is a write)', async () => {
  const envs = suiteEnv(['eis', 'rms'], {})
  const token = envs.eis?.SVC_RMS_TOKEN ?? ''
  expect(token.length).toBeGreaterThanOrEqual(32)
  expect(envs.eis?.SVC_RMS_URL).toBe(`http://127.0.0.1:${httpUnits.rms.port}`)
  const { SVC_ENV: _, ...rmsEnv } = envs.rms ?? {}
  const unit = bootForTest(rms, rmsEnv)
  try {
    const write = await unit.send(
      'POST',
      '/api/v1/execution/approvals',
      {
        approval_id: 'apr-eis-1',
        proposal_ref: 'packet-1',
        decision: 'pending',
        policy_approved: false,
        human_approved: false,
      },
      { authorization: `Bearer ${token}` },
    )
    expect(write.status).toBeLessThan(300)
  } finally {
    await unit.dispose()
  }
})

test('an operator who sets the ALS token keeps RMS as they configured it', () => {
  const envs = suiteEnv(['als', 'rms'], {
    SVC_RMS_TOKEN: 'operator-token',
    RMS_LOCAL_TOKENS: 'abcdefgh:user:ops:rw',
  })
  expect(envs.als?.SVC_RMS_TOKEN).toBe('operator-token')
  expect(envs.rms?.RMS_LOCAL_TOKENS).toBe('abcdefgh:user:ops:rw')
})

/** `svc suite <args>` from the repository root; `live()` reads stderr up to the table (or the exit). */
function spawnSuite(args: string[], env: Record<string, string | undefined>) {
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'suite', ...args], {
    cwd: join(import.meta.dir, '..'),
    env,
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const live = async () => {
    let stderr = ''
    const reader = proc.stderr.getReader()
    const decoder = new TextDecoder()
    while (!stderr.includes('units live in')) {
      const { value, done } = await reader.read()
      if (done) break
      stderr += decoder.decode(value)
    }
    return stderr
  }
  return { proc, live }
}

test('`svc suite web prs` prints the table once both are live; `svc suite status` reads them; SIGTERM stops cleanly', async () => {
  const offset = 1000 + Math.floor(Math.random() * 2000)
  const env = { ...process.env, SVC_SUITE_PORT_OFFSET: String(offset), SVC_DATA_DIR: tempDir() }
  const cwd = join(import.meta.dir, '..')
  const { proc, live } = spawnSuite(['web', 'prs'], env)
  const status = (names: string[]) =>
    Bun.spawnSync([process.execPath, 'bin/svc.ts', 'suite', 'status', ...names], { cwd, env })
  // Nothing of this suite listens yet on these shifted ports: not ready, exit 1.
  const before = status(['web'])
  expect(before.exitCode).toBe(1)
  expect(before.stdout.toString()).toContain('live down')
  const stderr = await live()
  const web = `http://127.0.0.1:${httpUnits.web.port + offset}`
  const prs = `http://127.0.0.1:${httpUnits.prs.port + offset}`
  expect(stderr).toContain('svc suite: 2 units live in')
  expect(stderr).toContain(`web   ${web}  ${web}/health  ${web}/docs`)
  expect(stderr).toContain(`prs   ${prs}  ${prs}/health  ${prs}/docs`)
  expect((await fetch(`${web}/health`)).status).toBe(200)
  const after = status(['web', 'prs'])
  expect(after.stdout.toString()).toContain('ready 200 (/ready)')
  expect(after.exitCode).toBe(0)
  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
}, 30_000)

test('`svc suite status` with an unknown unit is bad usage (exit 2)', () => {
  const run = Bun.spawnSync([process.execPath, 'bin/svc.ts', 'suite', 'status', 'nosuch'], {
    cwd: join(import.meta.dir, '..'),
  })
  expect(run.exitCode).toBe(2)
  expect(run.stderr.toString()).toContain('unknown unit(s) nosuch')
})

test('EIS gets the PWS support handoff route PWS serves (singular) and the token PWS expects', () => {
  const envs = suiteEnv(['eis', 'pws'], {})
  expect(envs.eis?.SVC_SUPPORT_HANDOFF_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/support\/handoff$/)
  expect(envs.eis?.SVC_SUPPORT_HANDOFF_TOKEN).toBe(envs.pws?.PWS_SUPPORT_HANDOFF_TOKEN)
})

/** `svc suite <args>` from the repository root, and its stderr up to the table (or its exit). */
async function startSuiteCommand(args: string[], env: Record<string, string | undefined>) {
  const { proc, live } = spawnSuite(args, env)
  return { proc, stderr: await live() }
}

test('`svc suite --one-process web prs`: both units in one process, each on its own port and database; SIGTERM exits 0', async () => {
  const offset = 3000 + Math.floor(Math.random() * 2000)
  const dataDir = tempDir()
  const env = { ...process.env, SVC_SUITE_PORT_OFFSET: String(offset), SVC_DATA_DIR: dataDir }
  const { proc, stderr } = await startSuiteCommand(['--one-process', 'web', 'prs'], env)
  expect(stderr).toContain('svc suite: 2 units live in')
  expect(stderr).toContain('in one process')
  const web = `http://127.0.0.1:${httpUnits.web.port + offset}`
  const prs = `http://127.0.0.1:${httpUnits.prs.port + offset}`
  expect((await fetch(`${web}/health`)).status).toBe(200)
  expect((await fetch(`${prs}/api/v1/contracts/matrix`)).status).toBe(200)
  // One process: no child processes, each unit its own SQLite file.
  const children = Bun.spawnSync(['pgrep', '-P', String(proc.pid)])
    .stdout.toString()
    .trim()
  expect(children).toBe('')
  expect(await Bun.file(join(dataDir, 'web.sqlite')).exists()).toBe(true)
  expect(await Bun.file(join(dataDir, 'prs.sqlite')).exists()).toBe(true)
  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
}, 30_000)

test('`svc suite --one-process`: a unit that cannot start stops the suite with its reason (exit 2)', async () => {
  const offset = 5000 + Math.floor(Math.random() * 2000)
  const taken = Bun.serve({
    hostname: '127.0.0.1',
    port: httpUnits.prs.port + offset,
    fetch: () => new Response(),
  })
  try {
    const env = { ...process.env, SVC_SUITE_PORT_OFFSET: String(offset), SVC_DATA_DIR: tempDir() }
    const { proc, stderr } = await startSuiteCommand(['--one-process', 'web', 'prs'], env)
    expect(await proc.exited).toBe(2)
    expect(stderr).toContain(
      `svc suite: prs cannot start: cannot listen on 127.0.0.1:${httpUnits.prs.port + offset}: the port is in use; stopping the suite`,
    )
    // WEB, which did start, was stopped with it.
    const web = await fetch(`http://127.0.0.1:${httpUnits.web.port + offset}/health`).catch(() => undefined)
    expect(web).toBeUndefined()
  } finally {
    taken.stop(true)
  }
}, 30_000)

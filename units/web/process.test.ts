import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { runUnitProcess, tempDir } from '../../test/harness.ts'

test('`bun run unit web` serves, persists an intake, logs JSON lines, and drains on SIGTERM with exit 0', async () => {
  const dir = tempDir()
  const unit = await runUnitProcess('web', '/health', {
    SVC_DATA_DIR: dir,
    TURNSTILE_SECRET_KEY: '1x0000000000000000000000000000000AA',
  })
  const res = await fetch(`${unit.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'proc-test-1' },
    body: JSON.stringify({
      name: 'Grace',
      email: 'grace@example.com',
      interest: 'support',
      message: 'From the real process.',
      'cf-turnstile-response': 'any',
    }),
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('x-request-id')).toBe('proc-test-1')
  const probe = Bun.spawnSync([process.execPath, 'bin/svc.ts', 'probe'], {
    env: { ...process.env, SVC_DATA_DIR: dir },
  })
  expect(probe.exitCode).toBe(0)
  expect(await unit.stop('SIGTERM')).toBe(0)
  const lines = (await unit.output())
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
  expect(lines.find((l) => l.req_id === 'proc-test-1')).toMatchObject({ route: '/api/contact', status: 200 })
  expect(lines.some((l) => l.msg === 'stopped')).toBe(true)
  expect(JSON.stringify(lines)).not.toContain('1x0000000000000000000000000000000AA')

  const again = await runUnitProcess('web', '/health', { SVC_DATA_DIR: dir })
  const status = (await (await fetch(`${again.url}/status.json`)).json()) as {
    contact_intake: { intakes_stored: number }
  }
  expect(status.contact_intake.intakes_stored).toBe(1)
  expect(await again.stop('SIGINT')).toBe(0)
})

test('SIGTERM drains an in-flight request: it is answered and stored, then the process exits 0', async () => {
  const slowVerify = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async () => {
      await Bun.sleep(600)
      return Response.json({ success: true })
    },
  })
  const dir = tempDir()
  try {
    const unit = await runUnitProcess('web', '/health', {
      SVC_DATA_DIR: dir,
      TURNSTILE_SECRET_KEY: 'drain-test-secret',
      TURNSTILE_VERIFY_URL: `http://127.0.0.1:${slowVerify.port}/`,
    })
    const inFlight = fetch(`${unit.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Drain',
        email: 'drain@example.com',
        interest: 'x',
        message: 'y',
        'cf-turnstile-response': 't',
      }),
    })
    await Bun.sleep(150)
    const exited = unit.stop('SIGTERM')
    const res = await inFlight
    expect(res.status).toBe(200)
    const { intake_id } = (await res.json()) as { intake_id: string }
    expect(await exited).toBe(0)
    const db = new Database(`${dir}/web.sqlite`, { readonly: true })
    expect(db.query('SELECT intake_id FROM contact_intakes').all()).toEqual([{ intake_id }])
    db.close()
  } finally {
    slowVerify.stop(true)
  }
})

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

test('an operator who sets the ALS token keeps RMS as they configured it', () => {
  const envs = suiteEnv(['als', 'rms'], {
    SVC_RMS_TOKEN: 'operator-token',
    RMS_LOCAL_TOKENS: 'abcdefgh:user:ops:rw',
  })
  expect(envs.als?.SVC_RMS_TOKEN).toBe('operator-token')
  expect(envs.rms?.RMS_LOCAL_TOKENS).toBe('abcdefgh:user:ops:rw')
})

test('`svc suite web` runs the unit as its own process and stops cleanly on SIGTERM', async () => {
  const offset = 1000 + Math.floor(Math.random() * 2000)
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'suite', 'web'], {
    cwd: join(import.meta.dir, '..'),
    env: {
      ...process.env,
      SVC_SUITE_PORT_OFFSET: String(offset),
      SVC_DATA_DIR: tempDir(),
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${httpUnits.web.port + offset}/health`
  let status = 0
  for (let i = 0; i < 150 && status !== 200; i++) {
    status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    )
    if (status !== 200) await Bun.sleep(50)
  }
  expect(status).toBe(200)
  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
})

test('EIS gets the PWS support handoff route PWS serves (singular) and the token PWS expects', () => {
  const envs = suiteEnv(['eis', 'pws'], {})
  expect(envs.eis?.SVC_SUPPORT_HANDOFF_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/support\/handoff$/)
  expect(envs.eis?.SVC_SUPPORT_HANDOFF_TOKEN).toBe(envs.pws?.PWS_SUPPORT_HANDOFF_TOKEN)
})

/**
 * Regression tests of defects found by trying the suite as a new user would (issue 10): each
 * failed before its fix. Per-unit behaviour that belongs to one unit is tested beside that unit.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { als } from '../units/als/index.ts'
import { prs } from '../units/prs/index.ts'
import { rms } from '../units/rms/index.ts'
import { LOCAL_TOKENS, TOKENS } from '../units/rms/testing.ts'
import { web } from '../units/web/index.ts'
import { bootForTest, type Json, type TestUnit } from './harness.ts'

const open: TestUnit<unknown>[] = []
afterAll(async () => {
  for (const u of open) await u.dispose()
})
function boot<U extends Parameters<typeof bootForTest>[0]>(unit: U, env: Record<string, string> = {}) {
  const u = bootForTest(unit, env) as TestUnit<unknown>
  open.push(u)
  return u
}

const SHADOWING = { toString: [] }

async function expectFieldRefused(res: Response, field: string) {
  expect(res.status).toBe(400)
  const body: Json = await res.json()
  expect(body.error.code).toBe('validation_failed')
  expect(body.error.details.map((d: Json) => d.path)).toContain(`/${field}`)
  expect(body.error.details.find((d: Json) => d.path === `/${field}`).message).toContain(field)
}

describe('defect 1: a string field given an object with its own toString is a 400, not a 500', () => {
  test('ALS signals intake', async () => {
    const u = boot(als)
    const res = await u.send('POST', '/api/v1/learning/signals/intake', {
      tenant_ref: SHADOWING,
      trace_id: 't',
    })
    await expectFieldRefused(res, 'tenant_ref')
  })

  test('WEB /api/contact', async () => {
    const u = boot(web)
    const res = await u.send('POST', '/api/contact', { name: SHADOWING, email: 'a@example.com' })
    await expectFieldRefused(res, 'name')
  })

  test('PRS compatibility/check', async () => {
    const u = boot(prs)
    const res = await u.send('POST', '/api/v1/contracts/compatibility/check', {
      subject_kind: 'unit',
      subject: SHADOWING,
      proposed: {},
    })
    await expectFieldRefused(res, 'subject')
  })

  test('RMS /api/v1/classify', async () => {
    const u = boot(rms, { RMS_LOCAL_TOKENS: LOCAL_TOKENS })
    const res = await u.send(
      'POST',
      '/api/v1/classify',
      { text: { toString: [], valueOf: [] } },
      { authorization: `Bearer ${TOKENS.read}` },
    )
    await expectFieldRefused(res, 'text')
  })
})

describe('defect 3: a body that is not the declared object is a 400', () => {
  const bodies = ['[1,2,3]', '"hello"', '42', 'null', 'true', '', undefined]
  for (const raw of bodies) {
    const name = raw === undefined ? 'no body' : raw === '' ? 'an empty body' : raw
    test(`RMS patch/plan refuses ${name} and creates no plan`, async () => {
      const u = boot(rms, { RMS_LOCAL_TOKENS: LOCAL_TOKENS })
      const res = await u.request('/api/v1/runtime-host/patch/plan', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.write}` },
        body: raw,
      })
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).error.code).toMatch(/^(validation_failed|malformed_body)$/)
      expect(u.database.sqlite.query('SELECT count(*) AS n FROM patch_plans').get()).toEqual({ n: 0 })
    })
  }

  test('the declared object, all fields optional, still plans', async () => {
    const u = boot(rms, { RMS_LOCAL_TOKENS: LOCAL_TOKENS })
    const res = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      {},
      { authorization: `Bearer ${TOKENS.write}` },
    )
    expect(res.status).toBe(200)
  })
})

describe('defect 7: validation messages name the field and what it expects', () => {
  test('?limit=-1 and ?limit=abc name limit and its bounds', async () => {
    const u = boot(prs)
    for (const q of ['-1', 'abc', '501']) {
      const res = await u.request(`/api/v1/tools/runtime-evidence?limit=${q}`)
      expect(res.status).toBe(400)
      const body: Json = await res.json()
      expect(body.error.message).toBe("The query does not match the route's schema.")
      expect(body.error.details).toEqual([
        { path: '/limit', message: 'limit: expected an integer >= 1, <= 500' },
      ])
    }
  })
})

describe('defect 8: CI never ends a process it did not start', () => {
  test('.ci/run signals only the process it started, and keeps service starts off during installs', async () => {
    const script = await Bun.file(`${import.meta.dir}/../.ci/run`).text()
    const code = script
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n')
    expect(code).not.toMatch(/\b(pkill|killall|systemctl\s+stop|service\s+\S+\s+stop)\b/)
    for (const kill of code.match(/\bkill\b[^;\n]*/g) ?? []) expect(kill).toMatch(/^kill -TERM \$pid\b/)
    expect(code).toContain('pid=$!')
    expect(code).toContain('policy-rc.d')
  })
})

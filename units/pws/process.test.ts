/** The real process, as an operator runs it: `bun run unit pws`, observed by PRS as the suite does. */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { bootForTest, type Json, type RunningUnit, runUnitProcess, tempDir } from '../../test/harness.ts'
import { httpUnits } from '../registry.ts'
import { sessionCookie, TEST_SESSION_SECRET } from './testing.ts'

const dataDir = tempDir('svc-pws-proc-')
const TOKEN = 'proc-handoff-token-0123456789'
const running: RunningUnit[] = []
afterAll(async () => {
  for (const p of running) if (p.proc.exitCode === null) await p.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const getJson = async (url: string) => {
  const res = await fetch(url)
  return { status: res.status, body: (await res.json()) as Json }
}

test('serves its open surfaces, refuses operator routes without a session, and PRS sees no drift', async () => {
  const env = {
    SVC_DATA_DIR: dataDir,
    PWS_SESSION_SECRET: TEST_SESSION_SECRET,
    PWS_SUPPORT_HANDOFF_TOKEN: TOKEN,
  }
  const pws = await runUnitProcess('pws', '/healthz', env)
  running.push(pws)
  expect((await getJson(`${pws.url}/healthz`)).body).toMatchObject({ status: 'ok', service: 'pws' })
  const ready = await getJson(`${pws.url}/readyz`)
  expect(ready.status).toBe(200)
  expect(ready.body).toMatchObject({
    status: 'degraded',
    checks: { database: true, oidc: 'unconfigured', sessions: 'available', support_handoff: 'configured' },
  })
  for (const path of ['/versionz', '/contractz', '/platform-presencez', '/platform-compatibilityz']) {
    expect((await getJson(`${pws.url}${path}`)).status).toBe(200)
  }
  const membership = (await getJson(`${pws.url}/platform-membership-facts`)).body
  expect(membership).toMatchObject({
    auth_mode: 'oidc_claim_projection',
    admitted_surface: 'operator_console',
    consumer_posture: 'native_oidc_session_consumer',
  })
  expect((await fetch(`${pws.url}/api/v1/projects`)).status).toBe(401)
  expect((await fetch(`${pws.url}/metrics`)).headers.get('content-type')).toContain('version=0.0.4')

  const prs = bootForTest(await httpUnits.prs.load(), {
    SVC_UNIT_URLS: `pws=${pws.url}`,
    PRS_REPO_DIR: join(import.meta.dir, '../..'),
    PRS_OBSERVE_INTERVAL_MS: '3600000',
  })
  try {
    const observer = prs.background[0] as unknown as {
      runOnce(): Promise<{ surface: string; ok: boolean }[]>
    }
    const round = await observer.runOnce()
    expect(round.map((o) => [o.surface, o.ok])).toEqual([
      ['liveness', true],
      ['manifest', true],
      ['workspace_facts', true],
      ['membership_facts', true],
    ])
    const drift = await (await prs.request('/api/v1/contracts/drift')).json()
    expect(drift.items.filter((i: Json) => i.unit === 'pws' && i.source !== 'docs')).toEqual([])
  } finally {
    await prs.dispose()
  }
  // EIS hands a ticket over; an operator sees it; it survives a restart.
  const handoff = await fetch(`${pws.url}/api/v1/support/handoff`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      correlation_id: 'proc-1',
      source: { system: 'zammad', ticket_id: '1', event: 'ticket.created' },
      ticket: { id: '1', state: 'open', priority: 'normal', title: 'From the real process' },
    }),
  })
  expect(handoff.status).toBe(201)
  expect(await pws.stop('SIGTERM')).toBe(0)
  expect(await pws.output()).not.toContain(TOKEN)
  const again = await runUnitProcess('pws', '/healthz', env)
  running.push(again)
  const tasks = await fetch(`${again.url}/api/v1/projects/support/tasks`, {
    headers: { cookie: await sessionCookie('viewer') },
  })
  expect(((await tasks.json()) as Json).items[0]).toMatchObject({
    title: 'From the real process',
    work_class: 'case_linked_work',
  })
  expect(await again.stop('SIGINT')).toBe(0)
})

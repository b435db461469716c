/** Test helpers for PWS: boot it in process, mint real pm_session cookies, call it as a role. */

import { DEFAULT_SESSION_MAX_AGE_S, issueSession, type Role } from '../../common/session.ts'
import type { Env } from '../../runtime/run.ts'
import { bootForTestAsync, type TestResponse, type TestUnit } from '../../test/harness.ts'
import { definePws } from './index.ts'

export const TEST_SESSION_SECRET = 'pws-test-session-secret-0123456789abcdef'
const opts = { secret: TEST_SESSION_SECRET, maxAgeS: DEFAULT_SESSION_MAX_AGE_S, secure: false }

/** A `cookie` header value: a fresh session of `role`, an expired one, or one signed with another key. */
export async function sessionCookie(role: Role | 'stale' | 'forged'): Promise<string> {
  if (role === 'stale') {
    const long_ago = Date.now() - (DEFAULT_SESSION_MAX_AGE_S + 60) * 1000
    return `pm_session=${await issueSession(opts, { sub: 'tester', role: 'admin' }, long_ago)}`
  }
  if (role === 'forged') {
    const other = { ...opts, secret: 'another-secret-that-is-long-enough-000000' }
    return `pm_session=${await issueSession(other, { sub: 'mallory', role: 'admin' })}`
  }
  return `pm_session=${await issueSession(opts, { sub: 'tester', role })}`
}

export interface PwsTest {
  u: TestUnit<unknown>
  get(path: string, role?: Role): Promise<TestResponse>
  send(
    method: string,
    path: string,
    body: unknown,
    role?: Role,
    headers?: Record<string, string>,
  ): Promise<TestResponse>
  /** Create a project as an operator; returns its id. */
  project(projectId: string, extra?: Record<string, unknown>): Promise<string>
}

/**
 * PWS booted in process on the test driver (`SVC_TEST_DRIVER=libsql`: a fresh sqld of its own);
 * PWS's own suites and other units' tests that need a PWS use it.
 */
export async function bootPwsAsync(env: Env = {}, clock?: () => number): Promise<PwsTest> {
  return pwsTest((await bootForTestAsync(definePws(clock), withSecret(env))) as TestUnit<unknown>)
}

const withSecret = (env: Env): Env => ({ PWS_SESSION_SECRET: TEST_SESSION_SECRET, ...env })

function pwsTest(u: TestUnit<unknown>): PwsTest {
  const t: PwsTest = {
    u,
    get: async (path, role = 'viewer') => u.request(path, { headers: { cookie: await sessionCookie(role) } }),
    send: async (method, path, body, role = 'operator', headers = {}) =>
      u.send(method, path, body, { cookie: await sessionCookie(role), ...headers }),
    async project(projectId, extra = {}) {
      const res = await t.send('POST', '/api/v1/projects', {
        project_id: projectId,
        name: projectId,
        ...extra,
      })
      if (res.status !== 201) throw new Error(`project ${projectId}: ${res.status} ${await res.text()}`)
      return projectId
    },
  }
  return t
}

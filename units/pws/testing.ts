/** Test helpers for PWS: boot it in process with sessions a test can mint, and call it as a role. */
import type { Env } from '../../common/runtime.ts'
import { bootForTest, type TestResponse, type TestUnit } from '../../test/harness.ts'
import { ROLES, type Role, type SessionVerifier } from './access.ts'
import { definePws } from './index.ts'

/**
 * Sessions for in-process tests until the shared session block is adopted: `test.<role>.<sub>`
 * is a session, `stale.*` an expired one, anything else invalid.
 */
const testSessions: SessionVerifier = {
  async verify(token) {
    if (!token) return { ok: false, reason: 'missing' }
    const [kind, role, sub] = token.split('.')
    if (kind === 'stale') return { ok: false, reason: 'stale' }
    if (kind !== 'test' || !ROLES.includes(role as Role) || !sub) return { ok: false, reason: 'invalid' }
    return { ok: true, session: { sub, role: role as Role } }
  },
}

export const sessionCookie = (role: Role | 'stale' | 'forged') =>
  role === 'stale'
    ? 'pm_session=stale.admin.x'
    : role === 'forged'
      ? 'pm_session=forged'
      : `pm_session=test.${role}.tester`

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

export function bootPws(env: Env = {}, clock?: () => number): PwsTest {
  const u = bootForTest(definePws(testSessions, clock), env) as TestUnit<unknown>
  const t: PwsTest = {
    u,
    get: (path, role = 'viewer') => u.request(path, { headers: { cookie: sessionCookie(role) } }),
    send: (method, path, body, role = 'operator', headers = {}) =>
      u.send(method, path, body, { cookie: sessionCookie(role), ...headers }),
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

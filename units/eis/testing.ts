/** Shared by EIS's tests: configuration, credentials and fixtures. */
import type { Env } from '../../common/runtime.ts'
import { bootForTest } from '../../test/harness.ts'
import { eis } from './index.ts'
import { METHOD_PREFIX } from './paths.ts'
import type { EisDeps } from './service/deps.ts'
import { embeddedErp } from './service/erp.ts'

export const INTERNAL_TOKEN = 'internal-token-0123456789'
export const MCP_KEY = 'mcp-key-0123456789abcdef'
export const SECRETS = {
  PAYMENT_PROVIDER_A_WEBHOOK_SECRET: 'provider-a-secret-0123456789',
  PAYMENT_PROVIDER_B_WEBHOOK_SECRET: 'provider-b-secret-0123456789',
  AUTOMATION_SHARED_SECRET: 'automation-secret-0123456789',
  ERP_API_SHARED_SECRET: 'erp-api-secret-0123456789ab',
  TICKETING_WEBHOOK_SECRET: 'ticketing-secret-0123456789',
}
export const BASE_ENV: Env = { EIS_INTERNAL_TOKEN: INTERNAL_TOKEN, EIS_MCP_KEY: MCP_KEY, ...SECRETS }

/** EIS's services over a booted unit, for paths whose routes are signed (tests call them directly). */
export function depsOf(
  u: { ctx: { db: EisDeps['db']; log: EisDeps['log'] } },
  over: Partial<EisDeps> = {},
): EisDeps {
  return {
    db: u.ctx.db,
    log: u.ctx.log,
    erp: embeddedErp(u.ctx.db),
    runtimeHost: { url: undefined, token: undefined },
    supportHandoff: { url: undefined, token: undefined },
    ticketing: { baseUrl: undefined, token: undefined },
    timeoutMs: 2000,
    approvalTtlS: 3600,
    now: () => Date.now(),
    kickDispatch: () => {},
    ...over,
  }
}

export const bootEis = (env: Env = {}) => bootForTest(eis, { ...BASE_ENV, ...env })
export type EisUnit = ReturnType<typeof bootEis>

export const method = (name: string) => `${METHOD_PREFIX}${name}`
export const internal = { authorization: `Bearer ${INTERNAL_TOKEN}` }

/** Call an internal method as a trusted caller. */
export const call = (u: EisUnit, name: string, body?: unknown) =>
  u.send('POST', method(name), body ?? {}, internal)

export const FACTS = [
  {
    technical_subject: 'alice',
    business_identity_id: 'BI-1',
    lifecycle_state: 'active',
    lifecycle_changed_at: '2026-01-02T00:00:00.000Z',
    project_tool_eligibility: 'eligible',
    project_manager_role: 'manager',
    project_manager_projects: ['alpha'],
  },
  {
    technical_subject: 'alice-old',
    business_identity_id: 'BI-1',
    lifecycle_state: 'active',
    lifecycle_changed_at: '2025-01-01T00:00:00.000Z',
    project_tool_eligibility: 'eligible',
  },
  {
    technical_subject: 'bob',
    lifecycle_state: 'suspended',
    lifecycle_changed_at: '2026-01-01T00:00:00.000Z',
    project_tool_eligibility: 'eligible',
  },
  {
    technical_subject: 'Administrator',
    lifecycle_state: 'active',
    lifecycle_changed_at: '2026-01-01T00:00:00.000Z',
    project_tool_eligibility: 'eligible',
    special_posture: { kind: 'break_glass', reason: 'bootstrap' },
  },
]
export const factsFile = (facts: unknown[] = FACTS) => `${facts.map((f) => JSON.stringify(f)).join('\n')}\n`

/** Shared by EIS's tests: configuration, credentials and fixtures. */

import type { SQL } from 'drizzle-orm'
import { hmacHex, signBody } from '../../common/signature.ts'
import type { Env } from '../../runtime/run.ts'
import { bootForTestAsync } from '../../test/harness.ts'
// The exact builder WEB forwards with: EIS must accept what it produces (CONTRACTS.md §4).
import { contactPayload } from '../web/rules/delivery.ts'
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
  u: { ctx: { storage: EisDeps['storage']; log: EisDeps['log'] } },
  over: Partial<EisDeps> = {},
): EisDeps {
  return {
    storage: u.ctx.storage,
    log: u.ctx.log,
    erp: embeddedErp(u.ctx.storage),
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

/** EIS booted in-process on the driver SVC_TEST_DRIVER names (a fresh sqld each on libsql). */
export const bootEis = (env: Env = {}) => bootForTestAsync(eis, { ...BASE_ENV, ...env })
export type EisUnit = Awaited<ReturnType<typeof bootEis>>

/** One SQL statement on the unit's database, on either driver (tests that change state behind its back). */
export const runSql = (u: EisUnit, statement: SQL) => u.ctx.storage.transaction((tx) => tx.run(statement))

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

/** POST a body signed as EIS's webhooks expect: `X-Signature` = hex HMAC-SHA256 of the exact text. */
export function signedPost(
  u: EisUnit,
  name: string,
  body: unknown,
  secret: string,
  headers: Record<string, string> = {},
) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body)
  return u.request(method(name), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signBody(hmacHex(), secret, raw), ...headers },
    body: raw,
  })
}

const SITE = {
  tool_key: 'public-website',
  public_base_url: 'https://example.org',
  runtime_kind: 'bun-elysia-function-runtime',
}

/** A contact intake exactly as WEB forwards it. */
export const webContact = (email = 'Ada@Example.org', extra: Record<string, string> = {}) =>
  contactPayload(
    {
      intakeId: crypto.randomUUID(),
      receivedAt: new Date().toISOString(),
      name: 'Ada',
      email,
      interest: 'erp',
      message: 'Hello',
      optional: { company: 'ACME', ...extra },
    },
    SITE,
  )

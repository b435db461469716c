import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { importFacts } from '../service/identity.ts'
import { bootEis, call, type EisUnit, factsFile, internal, method } from '../testing.ts'

let u: EisUnit
beforeEach(async () => {
  u = await bootEis()
})
afterEach(async () => {
  await u.dispose()
})

const load = async (text = factsFile()) => {
  const r = await importFacts(u.ctx.storage, text, 'test.jsonl')
  expect(r.ok).toBe(true)
}

describe('access fact', () => {
  test('needs the internal token, checked before the body', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0000000000' },
      { authorization: 'Basic x' },
    ] as Record<string, string>[]) {
      const res = await u.send('POST', method('identity_projections.project_tool_access_fact'), {}, headers)
      expect(res.status).toBe(401)
      expect((await res.json()).error.code).toBe('unauthorized')
    }
  })

  test('exactly one identifier, else 400', async () => {
    for (const body of [{}, { technical_subject: 'alice', business_identity_id: 'BI-1' }]) {
      const res = await call(u, 'identity_projections.project_tool_access_fact', body)
      expect(res.status).toBe(400)
      expect((await res.json()).error.code).toBe('exactly_one_identifier')
    }
  })

  test('an unknown subject gets a 200 fail-closed fact', async () => {
    const res = await call(u, 'identity_projections.project_tool_access_fact', {
      technical_subject: 'nobody',
    })
    expect(res.status).toBe(200)
    const { message } = await res.json()
    expect(message).toMatchObject({
      contract_version: 2,
      technical_subject: 'nobody',
      subject_known: false,
      project_tool_login_allowed: false,
      project_tool_eligibility: 'unknown_subject',
      project_manager_allowed: false,
      fail_closed_reason: 'unknown_subject',
      projection_version: 'none',
    })
  })

  test('loaded facts: active eligible dominant subject may log in; the rest fail closed with a reason', async () => {
    await load()
    const fact = async (body: object) =>
      (await (await call(u, 'identity_projections.project_tool_access_fact', body)).json()).message
    expect(await fact({ technical_subject: 'alice' })).toMatchObject({
      project_tool_login_allowed: true,
      project_tool_eligibility: 'eligible',
      project_manager_role: 'manager',
      project_manager_allowed: true,
      project_manager_projects: ['alpha'],
      dominance: 'dominant',
    })
    expect(await fact({ technical_subject: 'alice-old' })).toMatchObject({
      project_tool_login_allowed: false,
      fail_closed_reason: 'shadowed',
      dominated_by: 'alice',
    })
    expect(await fact({ technical_subject: 'bob' })).toMatchObject({
      project_tool_login_allowed: false,
      fail_closed_reason: 'lifecycle_blocked',
      lifecycle_state: 'suspended',
    })
    // A business identity resolves to its dominant subject.
    expect((await fact({ business_identity_id: 'BI-1' })).technical_subject).toBe('alice')
    expect((await fact({ business_identity_id: 'BI-404' })).project_tool_login_allowed).toBe(false)
  })
})

describe('batches', () => {
  test('limit 1..500 (default 100) in the JSON body, else 400', async () => {
    await load()
    for (const limit of [0, 501, 1.5, 'x']) {
      const res = await call(u, 'identity_projections.project_tool_access_fact_batch', { limit })
      expect(res.status).toBe(400)
    }
    // No body at all: the defaults (Frappe clients often post nothing).
    const bare = await u.request(method('identity_projections.project_tool_access_fact_batch'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...internal },
    })
    expect(bare.status).toBe(200)
    const all = (await bare.json()).message
    expect(all.count).toBe(4)
    expect(all.next_after).toBeNull()
    const first = (await (await call(u, 'identity_projections.lifecycle_fact_batch', { limit: 2 })).json())
      .message
    expect(first.facts.map((f: { technical_subject: string }) => f.technical_subject)).toEqual([
      'Administrator',
      'alice',
    ])
    expect(first.next_after).toBe('alice')
    const next = (
      await (
        await call(u, 'identity_projections.lifecycle_fact_batch', { limit: 2, after: first.next_after })
      ).json()
    ).message
    expect(next.facts.map((f: { technical_subject: string }) => f.technical_subject)).toEqual([
      'alice-old',
      'bob',
    ])
    expect(next.facts[0]).toEqual({
      technical_subject: 'alice-old',
      business_identity_id: 'BI-1',
      lifecycle_state: 'active',
      lifecycle_changed_at: '2025-01-01T00:00:00.000Z',
      dominance: 'shadowed',
      dominated_by: 'alice',
    })
  })
})

describe('bootstrap principal truth', () => {
  test('defaults to Administrator when unset, to EIS_BOOTSTRAP_SUBJECT when set', async () => {
    const before = (await (await call(u, 'identity_projections.keystore_bootstrap_principal_truth')).json())
      .message
    expect(before).toMatchObject({
      technical_subject: 'Administrator',
      default_source: 'built_in_default',
      principal_present: false,
      bootstrap_allowed: false,
    })
    await load()
    const after = (
      await (await call(u, 'identity_projections.keystore_bootstrap_principal_truth', {})).json()
    ).message
    expect(after).toMatchObject({
      technical_subject: 'Administrator',
      principal_present: true,
      bootstrap_allowed: true,
    })
    expect(after.projection_ref.source).toBe('test.jsonl')
    const configured = await u.restart({ EIS_BOOTSTRAP_SUBJECT: 'bob' })
    u = configured
    const bob = (await (await call(u, 'identity_projections.keystore_bootstrap_principal_truth')).json())
      .message
    expect(bob).toMatchObject({
      technical_subject: 'bob',
      default_source: 'EIS_BOOTSTRAP_SUBJECT',
      is_configured_default: true,
      bootstrap_allowed: false,
    })
  })
})

test('a facts file with a bad line loads nothing and names the line', async () => {
  const text = `${factsFile()}{"technical_subject":"x"}\nnot json\n`
  const r = await importFacts(u.ctx.storage, text, 'bad.jsonl')
  expect(r.ok).toBe(false)
  if (!r.ok) expect(r.problems.map((p) => p.line)).toEqual([5, 6])
  const batch = (await (await call(u, 'identity_projections.project_tool_access_fact_batch')).json()).message
  expect(batch.count).toBe(0)
})

test('integration status and healthz are open and name no secret', async () => {
  const res = await u.request(method('health.integration_status'))
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain('secret-0123456789')
  expect(JSON.parse(text).message).toMatchObject({
    service: 'eis',
    status: 'ok',
    database: 'ok',
    erp_backend: 'embedded',
  })
  expect(JSON.parse(text).message.integrations.payment_provider_a).toEqual({ configured: true })
  expect(await (await u.request('/healthz')).json()).toEqual({
    status: 'ok',
    service: 'eis',
    mcp: { configured: true },
  })
})

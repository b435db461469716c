/** The read views over the example host: federation, handoff and tool policies, voice, dispatch, outbox, OpenAPI. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fakePeer, type Json, json, type TestUnit } from '../../test/harness.ts'
import { bearer, bootLocal, exampleHostCopy, INTERNAL_ROUTES, TOKENS } from './testing.ts'

const RD = bearer(TOKENS.read)
const W = bearer(TOKENS.write)
let u: TestUnit<unknown>
let dir: string
beforeAll(async () => {
  dir = exampleHostCopy()
  u = (await bootLocal({ RMS_RUNTIME_HOST_DIR: dir })) as TestUnit<unknown>
})
afterAll(async () => {
  await u.dispose()
})
const get = async (path: string) => {
  const res = await u.request(path, { headers: RD })
  expect(res.status).toBe(200)
  return (await res.json()) as Json
}

describe('federation views', () => {
  test('catalog by agent id, readiness, delegations', async () => {
    const one = await get('/api/v1/agent-runtime/catalog/a-support-desk')
    expect(one.agent.agent_slug).toBe('support-desk')
    expect(one.federation).toMatchObject({
      parentage_status: 'attached',
      root_agent_id: 'a-orchestrator',
      depth: 2,
      admitted: true,
    })
    expect(one.readiness).toEqual({
      agent_id: 'a-support-desk',
      agent_slug: 'support-desk',
      ready: true,
      reasons: [],
    })
    expect((await u.request('/api/v1/agent-runtime/catalog/a-nobody', { headers: RD })).status).toBe(404)
    const readiness = await get('/api/v1/agent-runtime/readiness')
    expect(readiness).toMatchObject({
      status: 'ready',
      federation_state: 'federated',
      ready_count: 5,
      not_ready_count: 0,
    })
    const delegations = await get('/api/v1/agent-runtime/delegations')
    expect(delegations.count).toBe(2)
    const state = await get('/api/v1/agent-runtime/delegation-state')
    expect(state.counts).toEqual({ accepted: 1, proposed: 1 })
  })

  test('team handoff policies carry every field the spec lists', async () => {
    const all = await get('/api/v1/agent-runtime/team-handoff-policies')
    expect(all.count).toBe(5)
    const p = (await get('/api/v1/agent-runtime/team-handoff-policies/support-desk')).policy
    expect(p).toEqual({
      agent_id: 'a-support-desk',
      agent_slug: 'support-desk',
      team_id: 'support',
      team_assignment_mode: 'explicit',
      delegation_scope: 'same_team',
      max_depth: 2,
      same_team_handoff: 'require_acceptance',
      cross_team_handoff: 'escalate_only',
      transitions: {
        accept: 'receiver_confirms',
        reject: 'return_to_sender',
        expire_after_s: 1800,
        escalate_to: 'human_operator',
      },
      circular_handoff: 'fail_closed',
      projection_posture: { missing: 'fail_closed', stale: 'fail_closed', conflicting: 'fail_closed' },
      state: 'active',
      fail_closed_reason: null,
    })
    expect(
      (await u.request('/api/v1/agent-runtime/team-handoff-policies/nobody', { headers: RD })).status,
    ).toBe(404)
  })

  test('a zombie on the host is locked out everywhere it matters', async () => {
    const path = join(dir, 'agents/a-research-worker.json')
    const original = await Bun.file(path).text()
    writeFileSync(path, original.replace('"lifecycle_state": "active"', '"lifecycle_state": "zombie"'))
    try {
      const catalog = await get('/api/v1/agent-runtime/catalog')
      expect(catalog.federation_state).toBe('degraded')
      expect(catalog.fail_closed_markers).toContainEqual({
        marker: 'zombie_lockout',
        agent_ids: ['a-research-worker'],
        effect: 'agent locked out: declared zombie or still active under a retired ancestor',
      })
      const readiness = await get('/api/v1/agent-runtime/readiness')
      expect(readiness.status).toBe('degraded')
      const preview = (await (
        await u.send('POST', '/api/v1/control-agent/dispatch-preview', { domain_id: 'research' }, W)
      ).json()) as Json
      expect(preview.selected_agent_id).toBe('a-ops-coordinator')
      expect(preview.candidates.find((c: Json) => c.agent_id === 'a-research-worker')).toMatchObject({
        eligible: false,
        reasons: ['zombie_lockout', 'lifecycle_zombie'],
      })
    } finally {
      writeFileSync(path, original)
    }
  })
})

describe('tool profiles and agent tool policies', () => {
  test('profiles, and a policy with every spec field, with agent overrides applied', async () => {
    expect((await get('/api/v1/tool-profiles')).items.map((p: Json) => p.profile_id)).toEqual([
      'operator-sandbox',
      'read-only',
      'support-desk',
    ])
    const p = (await get('/api/v1/agent-tool-policies/billing-clerk')).policy
    expect(p).toMatchObject({
      tool_profile_id: 'support-desk',
      sandbox_approval_posture: 'human_required',
      bounded_change_scope: { max_changes_per_run: 5, paths: ['tickets/*'] },
      escalation_mode: 'human_operator',
      escalation_target: 'billing-lead',
      stale_projection_action: 'fail_closed',
      state: 'active',
      projection: { state: 'local', version: null, agent_lane_read: false },
    })
    expect(p.policy_hash).toMatch(/^[0-9a-f]{64}$/)
    expect((await get('/api/v1/agent-tool-policies')).count).toBe(5)
  })
})

describe('voice', () => {
  test('targets, default, per agent (own or default), governance with consent expiry', async () => {
    const targets = await get('/api/v1/voice/targets')
    expect(targets).toMatchObject({ count: 2, default_target: 'vt-default' })
    expect((await get('/api/v1/voice/targets/default')).target.target_id).toBe('vt-default')
    const own = await get('/api/v1/voice/targets/support-desk')
    expect(own).toMatchObject({ resolution: 'agent', agent_slug: 'support-desk', usable: false })
    expect(own.target.target_id).toBe('vt-support')
    const fallback = await get('/api/v1/voice/targets/research-worker')
    expect(fallback).toMatchObject({ resolution: 'default', usable: true })
    expect((await u.request('/api/v1/voice/targets/nobody', { headers: RD })).status).toBe(404)
    const gov = await get('/api/v1/voice/library-governance')
    expect(gov.reconsent_required).toEqual(['vt-support'])
    expect(gov.items.find((g: Json) => g.target_id === 'vt-support')).toMatchObject({
      identity_lifecycle_state: 'active',
      consent_state: 'expired',
      reconsent_required: true,
      brand_voice_pack: 'brand-pack-2026',
      inheritance: { tenant: 'inherit', team: 'override' },
      retention: { retention_days: 365, deletion_policy: 'delete_on_retire' },
      usable: false,
    })
    expect(gov.items[0].rerecord_triggers.length).toBeGreaterThan(0)
    expect(gov.items[0].reclone_triggers.length).toBeGreaterThan(0)
    expect(gov.items[0].audit_history_refs.length).toBeGreaterThan(0)
  })
})

describe('dispatch preview', () => {
  test('classifies, picks one agent deterministically, dispatches nothing, says why it refuses', async () => {
    const pick = (await (
      await u.send(
        'POST',
        '/api/v1/control-agent/dispatch-preview',
        { text: 'summarize this research report' },
        W,
      )
    ).json()) as Json
    expect(pick).toMatchObject({
      dispatched: false,
      domain_id: 'research',
      classification: 'classified',
      selected_agent_id: 'a-research-worker',
      refused_reason: null,
    })
    const amb = (await (
      await u.send('POST', '/api/v1/control-agent/dispatch-preview', { text: 'invoice ticket' }, W)
    ).json()) as Json
    expect(amb).toMatchObject({ selected_agent_id: null, refused_reason: 'ambiguous_classification' })
    const none = (await (
      await u.send('POST', '/api/v1/control-agent/dispatch-preview', {}, W)
    ).json()) as Json
    expect(none.refused_reason).toBe('no_text_or_domain')
    expect(
      (await u.send('POST', '/api/v1/control-agent/dispatch-preview', { domain_id: 'nope' }, W)).status,
    ).toBe(404)
    expect(
      (await u.send('POST', '/api/v1/control-agent/dispatch-preview', { text: 'x', agent: 'a' }, W)).status,
    ).toBe(400)
  })
})

describe('outbox', () => {
  test('audit events are delivered to the event sink by the control agent, and counted', async () => {
    const sink = fakePeer(() => json({ ok: true }))
    const v = (await bootLocal({ RMS_EVENT_SINK_URL: sink.url })) as TestUnit<unknown>
    try {
      const before = await (await v.request('/metrics', { headers: RD })).text()
      expect(before).toContain('svc_rms_outbox_events{state="pending",unit="rms"} 1')
      const r = await v.send('POST', '/api/v1/control-agent/reconcile', {}, W)
      expect(r.status).toBe(200)
      expect(sink.requests).toHaveLength(1)
      expect(JSON.parse(sink.requests[0]!.body)).toMatchObject({ kind: 'desired.adopted', subject: 'rms' })
      expect(sink.requests[0]!.headers.get('x-svc-event-id')).toBeTruthy()
      const after = await (await v.request('/metrics', { headers: RD })).text()
      expect(after).toContain('svc_rms_outbox_events{state="delivered",unit="rms"} 1')
      expect(after).toContain('svc_rms_reconcile_runs_total{outcome="ok",unit="rms"} 1')
    } finally {
      await v.dispose()
      sink.stop()
    }
  })
})

describe('self-description', () => {
  test('open routes need no token; the OpenAPI document lists every internal route', async () => {
    for (const path of [
      '/health',
      '/ready',
      '/version',
      '/api/v1/version',
      '/platform-manifest.json',
      '/openapi.json',
    ]) {
      expect((await u.request(path)).status).toBe(200)
    }
    const doc = (await (await u.request('/openapi.json')).json()) as Json
    for (const r of INTERNAL_ROUTES) {
      const path = r.path
        .replace('/support/profiles', '/{domain_id}/profiles')
        .replace('/research/setup', '/{domain_id}/setup')
        .replace('/catalog/a-orchestrator', '/catalog/{agent_id}')
        .replace(/\/(orchestrator|support-desk)(?=$|\/)/, '/{agent_slug}')
        .replace(/no-such-proposal/, '{proposal_id}')
        .replace('no-such-approval', '{approval_id}')
      const op = doc.paths[path]?.[r.method.toLowerCase()]
      expect(op, `${r.method} ${path}`).toBeDefined()
    }
    const version = (await (await u.request('/version')).json()) as Json
    expect(version).toMatchObject({
      service: 'rms',
      api_anchor: '/api/v1',
      branch_tag: 'main',
      migration_head: expect.any(String),
    })
    expect(version.image_tag).toMatch(/^sha-[0-9a-f]{12}|^sha-unknown/)
  })
})

describe('cached catalog views', () => {
  test('catalog and tool profiles carry an ETag per caller; If-None-Match with it is a 304', async () => {
    const host = exampleHostCopy()
    const v = (await bootLocal({
      RMS_RUNTIME_HOST_DIR: host,
      RMS_HOST_SCAN_CACHE_MS: '60000',
    })) as TestUnit<unknown>
    try {
      for (const path of ['/api/v1/agent-runtime/catalog', '/api/v1/tool-profiles']) {
        const first = await v.request(path, { headers: RD })
        expect(first.status).toBe(200)
        const etag = first.headers.get('etag') ?? ''
        expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/)
        const body = await first.json()
        expect(body.authority.subject).toBe('user:reader')
        const again = await v.request(path, { headers: { ...RD, 'if-none-match': etag } })
        expect(again.status).toBe(304)
        expect(await again.text()).toBe('')
        // Another caller's document names another subject: another tag, never the reader's bytes.
        const other = await v.request(path, { headers: { ...W, 'if-none-match': etag } })
        expect(other.status).toBe(200)
        expect((await other.json()).authority.subject).toBe('user:writer')
        expect(other.headers.get('etag')).not.toBe(etag)
      }
    } finally {
      await v.dispose()
    }
  })
})

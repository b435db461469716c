/** Drift and patches on a temporary runtime-host directory, end to end through the routes. */
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Json, TestUnit } from '../../test/harness.ts'
import { bearer, bootLocal, exampleHostCopy, TOKENS } from './testing.ts'

const W = bearer(TOKENS.write)
const RD = bearer(TOKENS.read)

let units: TestUnit<unknown>[] = []
afterEach(async () => {
  for (const u of units) await u.dispose()
  units = []
})
async function boot(hostDir: string) {
  const u = (await bootLocal({ RMS_RUNTIME_HOST_DIR: hostDir })) as TestUnit<unknown>
  units.push(u)
  return u
}
const get = async (u: TestUnit<unknown>, path: string) => {
  const res = await u.request(path, { headers: RD })
  expect(res.status).toBe(200)
  return (await res.json()) as Json
}
const post = async (u: TestUnit<unknown>, path: string, body: unknown, status = 200) => {
  const res = await u.send('POST', path, body, W)
  const json = (await res.json()) as Json
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}
const readDoc = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json
/** A plan change that renames the example host's research agent. */
const renameResearch = (agent: Json, displayName: string) => ({
  op: 'upsert',
  kind: 'agent',
  resource_id: 'a-research-worker',
  document: { ...agent, display_name: displayName },
})

describe('runtime host', () => {
  test('a fresh data dir is seeded from the example host and adopted as the desired state', async () => {
    const u = (await bootLocal()) as TestUnit<unknown>
    units.push(u)
    const inv = await get(u, '/api/v1/runtime/inventory')
    expect(inv.host_dir).toBe(join(u.dataDir, 'runtime-host'))
    expect(inv.runtime_mode).toBe('federated')
    expect(inv.persistence_mode).toBe('workspace_files')
    expect(inv.counts).toMatchObject({
      host: 1,
      agent: 5,
      team: 2,
      tool_profile: 3,
      voice_target: 2,
      domain: 3,
      delegation: 2,
    })
    expect(inv.agents.filter((a: Json) => a.persistent).length).toBe(2)
    expect(existsSync(join(u.dataDir, 'runtime-host/workspaces/support-desk'))).toBe(true)
    const drift = await get(u, '/api/v1/drift/summary')
    expect(drift).toMatchObject({ state: 'in_sync', severity: 'none', total: 0 })
    const audit = await get(u, '/api/v1/audit/events?kind=desired.')
    expect(audit.events[0].kind).toBe('desired.adopted')
    const ready = (await (await u.request('/ready')).json()) as Json
    expect(ready.runtime_host).toMatchObject({ readable: true, seeded_from_example: true })
    // /ready is open: it never names the directory (the authenticated inventory does).
    expect(JSON.stringify(ready)).not.toContain(u.dataDir)
  })

  test('an operator-given host directory is never seeded', async () => {
    const dir = join(exampleHostCopy(), '..', 'absent')
    const u = await boot(dir)
    expect(existsSync(dir)).toBe(false)
    const ready = await u.request('/ready')
    expect(ready.status).toBe(503)
    const body = (await ready.json()) as Json
    expect(body.runtime_host).toMatchObject({ readable: false, seeded_from_example: false })
    expect(JSON.stringify(body)).not.toContain(dir)
    expect((await get(u, '/api/v1/runtime/inventory')).agents).toEqual([])
    expect((await get(u, '/api/v1/agent-runtime/catalog')).federation_state).toBe('empty')
  })

  test('drift: changed, missing, unmanaged and invalid files, each with a severity', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    // A cosmetic change is low; a guarded field is high; a missing persistent agent is critical.
    const research = readDoc(dir, 'agents/a-research-worker.json')
    writeFileSync(
      join(dir, 'agents/a-research-worker.json'),
      JSON.stringify({ ...research, display_name: 'Renamed' }),
    )
    const profile = readDoc(dir, 'tool-profiles/read-only.json')
    writeFileSync(
      join(dir, 'tool-profiles/read-only.json'),
      JSON.stringify({ ...profile, tools: [...profile.tools, 'shell'] }),
    )
    rmSync(join(dir, 'agents/a-support-desk.json'))
    writeFileSync(
      join(dir, 'agents/a-rogue.json'),
      JSON.stringify({ ...research, agent_id: 'a-rogue', agent_slug: 'rogue' }),
    )
    writeFileSync(join(dir, 'voice-targets/vt-default.json'), '{ not json')
    const d = await get(u, '/api/v1/drift/summary')
    const by = (id: string) => d.items.find((i: Json) => i.resource_id === id)
    expect(by('a-research-worker')).toMatchObject({
      drift: 'changed',
      severity: 'low',
      fields: ['display_name'],
    })
    expect(by('read-only')).toMatchObject({ drift: 'changed', severity: 'high', fields: ['tools'] })
    expect(by('a-support-desk')).toMatchObject({ drift: 'missing_on_host', severity: 'critical' })
    expect(by('a-rogue')).toMatchObject({ drift: 'unmanaged_on_host', severity: 'high' })
    expect(by('vt-default')).toMatchObject({
      drift: 'invalid_on_host',
      severity: 'high',
      reason: 'not valid JSON',
    })
    expect(d).toMatchObject({
      state: 'drifted',
      severity: 'critical',
      total: 5,
      counts: { low: 1, medium: 0, high: 3, critical: 1 },
    })
    expect(d.items[0].severity).toBe('critical')
    const inv = await get(u, '/api/v1/runtime/inventory')
    expect(inv.invalid_files).toEqual([
      {
        kind: 'voice_target',
        id: 'vt-default',
        file: 'voice-targets/vt-default.json',
        reason: 'not valid JSON',
      },
    ])
    const topo = await get(u, '/api/v1/topology/diff')
    expect(topo.in_sync).toBe(false)
    expect(topo.nodes_added).toEqual(['a-rogue'])
    expect(topo.nodes_removed).toEqual(['a-support-desk'])
    expect(topo.nodes_changed).toEqual([])

    // Plan: rewrite the four managed resources, skip the unmanaged file unless pruning.
    const plan = await post(u, '/api/v1/runtime-host/patch/plan', {})
    expect(plan.operations.map((o: Json) => `${o.op} ${o.file}`).sort()).toEqual([
      'create agents/a-support-desk.json',
      'update agents/a-research-worker.json',
      'update tool-profiles/read-only.json',
      'update voice-targets/vt-default.json',
    ])
    expect(plan.skipped).toEqual([
      { kind: 'agent', resource_id: 'a-rogue', drift: 'unmanaged_on_host', severity: 'high' },
    ])
    expect(plan.plan_hash).toMatch(/^[0-9a-f]{64}$/)
    // A read-only token cannot apply.
    const refused = await u.send('POST', '/api/v1/runtime-host/patch/apply', { plan_id: plan.plan_id }, RD)
    expect(refused.status).toBe(403)
    const applied = await post(u, '/api/v1/runtime-host/patch/apply', {
      plan_id: plan.plan_id,
      plan_hash: plan.plan_hash,
    })
    expect(applied.rollout).toMatchObject({ status: 'applied', plan_id: plan.plan_id, actor: 'user:writer' })
    expect(applied.drift).toMatchObject({ state: 'drifted', total: 1 })
    expect(readDoc(dir, 'agents/a-research-worker.json').display_name).toBe('Research worker')
    expect(readDoc(dir, 'agents/a-support-desk.json').persistent).toBe(true)
    expect(readDoc(dir, 'voice-targets/vt-default.json').target_id).toBe('vt-default')
    expect(existsSync(join(dir, 'agents/a-rogue.json'))).toBe(true)
    // Applying the same plan again is refused.
    const again = await u.send('POST', '/api/v1/runtime-host/patch/apply', { plan_id: plan.plan_id }, W)
    expect(again.status).toBe(409)
    // Pruning removes the unmanaged agent; then the host is in sync.
    const prune = await post(u, '/api/v1/runtime-host/patch/plan', { prune_unmanaged: true })
    expect(prune.operations).toMatchObject([{ op: 'delete', file: 'agents/a-rogue.json' }])
    await post(u, '/api/v1/runtime-host/patch/apply', { plan_id: prune.plan_id })
    expect(existsSync(join(dir, 'agents/a-rogue.json'))).toBe(false)
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('in_sync')

    const history = await get(u, '/api/v1/rollouts/history')
    expect(history.total).toBe(2)
    const rolloutAudit = await get(u, '/api/v1/rollouts/audit')
    expect(rolloutAudit.events.map((e: Json) => e.kind)).toEqual([
      'rollout.applied',
      'rollout.planned',
      'rollout.applied',
      'rollout.planned',
    ])
    expect(rolloutAudit.events[0]).toMatchObject({
      subject: 'user:writer',
      authority_source: 'local',
      outcome: 'applied',
    })
  })

  test('a plan goes stale when the host changes before apply', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    const agent = readDoc(dir, 'agents/a-research-worker.json')
    const plan = await post(u, '/api/v1/runtime-host/patch/plan', { changes: [renameResearch(agent, 'R2')] })
    expect(plan.operations).toHaveLength(1)
    writeFileSync(
      join(dir, 'teams/ops.json'),
      JSON.stringify({ ...readDoc(dir, 'teams/ops.json'), title: 'Ops!' }),
    )
    const res = await u.send('POST', '/api/v1/runtime-host/patch/apply', { plan_id: plan.plan_id }, W)
    expect(res.status).toBe(409)
    expect(((await res.json()) as Json).error.code).toBe('plan_stale')
    expect(readDoc(dir, 'agents/a-research-worker.json').display_name).toBe('Research worker')
    const wrongHash = await post(u, '/api/v1/runtime-host/patch/plan', {})
    const bad = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/apply',
      { plan_id: wrongHash.plan_id, plan_hash: '0'.repeat(64) },
      W,
    )
    expect(bad.status).toBe(409)
  })

  test('two concurrent applies: one rollout, the other finds the plan applied or stale', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    const agent = readDoc(dir, 'agents/a-research-worker.json')
    const change = (name: string) => renameResearch(agent, name)
    // The same plan twice, and two plans from the same base: exactly one apply of each pair wins.
    const one = await post(u, '/api/v1/runtime-host/patch/plan', { changes: [change('R3')] })
    const same = await Promise.all(
      [1, 2].map(() => u.send('POST', '/api/v1/runtime-host/patch/apply', { plan_id: one.plan_id }, W)),
    )
    expect(same.map((r) => r.status).sort()).toEqual([200, 409])
    const [p1, p2] = await Promise.all(
      ['R4', 'R5'].map((n) => post(u, '/api/v1/runtime-host/patch/plan', { changes: [change(n)] })),
    )
    const rival = await Promise.all(
      [p1, p2].map((p) => u.send('POST', '/api/v1/runtime-host/patch/apply', { plan_id: p.plan_id }, W)),
    )
    expect(rival.map((r) => r.status).sort()).toEqual([200, 409])
    const loser = (await rival.find((r) => r.status === 409)!.json()) as Json
    expect(loser.error.code).toBe('plan_stale')
    const history = await get(u, '/api/v1/rollouts/history')
    expect(history.items.filter((r: Json) => r.status === 'applied')).toHaveLength(2)
    const winner = rival[0]!.status === 200 ? 'R4' : 'R5'
    expect(readDoc(dir, 'agents/a-research-worker.json').display_name).toBe(winner)
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('in_sync')
  })
  test('with a long read window, a process reads its own applied desired state at once', async () => {
    const dir = exampleHostCopy()
    const u = await bootLocal({ RMS_RUNTIME_HOST_DIR: dir, RMS_HOST_SCAN_CACHE_MS: '60000' })
    units.push(u)
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('in_sync') // both copies now held
    const agent = readDoc(dir, 'agents/a-research-worker.json')
    const plan = await post(u, '/api/v1/runtime-host/patch/plan', {
      changes: [renameResearch(agent, 'Windowed')],
    })
    await post(u, '/api/v1/runtime-host/patch/apply', { plan_id: plan.plan_id })
    // A desired state kept from before the apply would show the new host file as drift.
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('in_sync')
    expect(readDoc(dir, 'agents/a-research-worker.json').display_name).toBe('Windowed')
  })

  test('changes: desired documents are validated and may not break references', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    const agent = readDoc(dir, 'agents/a-research-worker.json')
    const invalid = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      {
        changes: [
          {
            op: 'upsert',
            kind: 'agent',
            resource_id: 'a-research-worker',
            document: { ...agent, agent_class: 'boss' },
          },
        ],
      },
      W,
    )
    expect(invalid.status).toBe(422)
    expect(((await invalid.json()) as Json).error.code).toBe('invalid_changes')
    const mismatch = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      { changes: [{ op: 'upsert', kind: 'agent', resource_id: 'a-other', document: agent }] },
      W,
    )
    expect(mismatch.status).toBe(422)
    const broken = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      { changes: [{ op: 'remove', kind: 'tool_profile', resource_id: 'read-only' }] },
      W,
    )
    expect(broken.status).toBe(422)
    const b = (await broken.json()) as Json
    expect(b.error.code).toBe('invalid_desired_state')
    expect(b.error.details).toContain('agent/a-orchestrator: tool profile read-only is not desired')
    const host = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      { changes: [{ op: 'remove', kind: 'host', resource_id: 'host' }] },
      W,
    )
    expect(host.status).toBe(422)
  })

  test('desired state, plans and rollouts persist across a restart', async () => {
    const dir = exampleHostCopy()
    let u = await boot(dir)
    const agent = readDoc(dir, 'agents/a-research-worker.json')
    const plan = await post(u, '/api/v1/runtime-host/patch/plan', {
      changes: [renameResearch(agent, 'Persisted')],
    })
    units = []
    u = (await u.restart()) as TestUnit<unknown>
    units.push(u)
    await post(u, '/api/v1/runtime-host/patch/apply', { plan_id: plan.plan_id })
    units = []
    u = (await u.restart()) as TestUnit<unknown>
    units.push(u)
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('in_sync')
    expect((await get(u, '/api/v1/rollouts/history')).total).toBe(1)
    expect(readDoc(dir, 'agents/a-research-worker.json').display_name).toBe('Persisted')
  })

  test('an unreadable host: inventory says so, plans fail closed, federation falls back to the desired state', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    rmSync(dir, { recursive: true })
    const inv = await get(u, '/api/v1/runtime/inventory')
    expect(inv.readable).toBe(false)
    expect(inv.agents).toHaveLength(5)
    const plan = await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, W)
    expect(plan.status).toBe(503)
    const catalog = await get(u, '/api/v1/agent-runtime/catalog')
    expect(catalog).toMatchObject({ source: 'desired_state_fallback', federation_state: 'degraded' })
    expect(catalog.fail_closed_markers.map((m: Json) => m.marker)).toContain('degraded_fallback')
    expect(catalog.agents.every((a: Json) => !a.admitted)).toBe(true)
    const dispatch = await post(u, '/api/v1/control-agent/dispatch-preview', { domain_id: 'research' })
    expect(dispatch.refused_reason).toBe('degraded_fallback')
    const ready = await u.request('/ready')
    expect(ready.status).toBe(503)
    expect((await get(u, '/api/v1/drift/summary')).state).toBe('unknown')
  })
})

describe('classification and setup', () => {
  test('classify, preview and perform a domain setup', async () => {
    const dir = exampleHostCopy()
    const u = await boot(dir)
    const c = await post(u, '/api/v1/classify', { text: 'The customer wants a refund for this ticket' })
    expect(c).toMatchObject({
      status: 'classified',
      domain_id: 'support',
      eligible_agent_ids: ['a-support-desk'],
    })
    const amb = await post(u, '/api/v1/classify', { text: 'invoice ticket' })
    expect(amb).toMatchObject({ status: 'ambiguous', domain_id: null })
    const none = await post(u, '/api/v1/classify', { text: 'bake a cake' })
    expect(none).toMatchObject({ status: 'unclassified', domain_id: null, candidates: [] })
    const domains = await get(u, '/api/v1/domains')
    expect(domains.items.map((d: Json) => d.domain_id)).toEqual(['billing', 'research', 'support'])
    const profiles = await get(u, '/api/v1/domains/billing/profiles')
    expect(profiles.items[0].profile_id).toBe('billing-reminders')
    expect((await u.request('/api/v1/domains/nope/profiles', { headers: RD })).status).toBe(404)

    const preview = await post(u, '/api/v1/setup/preview', {
      domain_id: 'billing',
      profile_id: 'billing-reminders',
    })
    expect(preview).toMatchObject({
      agents: [{ agent_id: 'a-billing-reminders', action: 'create' }],
      changes: 1,
      reference_problems: [],
    })
    expect(preview.operations).toMatchObject([{ op: 'create', file: 'agents/a-billing-reminders.json' }])
    expect(existsSync(join(dir, 'agents/a-billing-reminders.json'))).toBe(false)

    const setup = await post(u, '/api/v1/domains/billing/setup', { profile_id: 'billing-reminders' })
    expect(setup.rollout.status).toBe('applied')
    expect(setup.drift.state).toBe('in_sync')
    const doc = readDoc(dir, 'agents/a-billing-reminders.json')
    expect(doc).toMatchObject({ team_id: 'support', domain_id: 'billing', lifecycle_state: 'active' })
    const twice = await post(u, '/api/v1/domains/billing/setup', { profile_id: 'billing-reminders' })
    expect(twice.agents).toEqual([{ agent_id: 'a-billing-reminders', action: 'unchanged' }])
    expect(twice.rollout).toBeNull()
    expect((await u.send('POST', '/api/v1/domains/billing/setup', { profile_id: 'x' }, W)).status).toBe(404)
  })
})

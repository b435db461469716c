import { afterEach, describe, expect, test } from 'bun:test'
import type { UnitContract } from '../../../common/contract.ts'
import { bootForTestAsync, type FakePeer, fakePeer, json, type TestUnit } from '../../../test/harness.ts'
import { makePrs } from '../index.ts'
import { CHECKLIST_ITEMS } from '../rules/admission.ts'
import { contractIn, fixtureContracts, fixtureRepo } from '../testing.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies in tests
type Body = any

const open: { units: TestUnit<unknown>[]; peers: FakePeer[] } = { units: [], peers: [] }
afterEach(async () => {
  for (const u of open.units.splice(0)) await u.dispose()
  for (const p of open.peers.splice(0)) p.stop()
})

async function boot(
  contracts: UnitContract[] = fixtureContracts(),
  env: Record<string, string> = {},
  dataDir?: string,
) {
  const unit = await bootForTestAsync(
    makePrs(contracts),
    { PRS_REPO_DIR: fixtureRepo(contracts), PRS_VERIFY_TIMEOUT_MS: '500', ...env },
    dataDir,
  )
  open.units.push(unit as TestUnit<unknown>)
  return unit
}

const checklist = Object.fromEntries(CHECKLIST_ITEMS.map((i) => [i.key, 'pass']))

/** PRS applying for admission of itself: the registered tool with its own contract's values. */
function prsInput(target: string): Body {
  return {
    tool_identity: { tool_key: 'platform-registry', capability_class: 'control_plane' },
    docs: {
      entrypoint: 'docs/units/prs.md',
      tool_profile: 'docs/units/prs.md',
      integrations: 'docs/units/prs.md#integrations',
      capabilities: 'docs/units/prs.md',
      api: 'docs/units/prs.md',
      open_source_inventory: 'docs/units/prs.md',
    },
    producer_families: contractIn(fixtureContracts(), 'prs').produces.map((f) => f.family),
    consumer_families: contractIn(fixtureContracts(), 'prs').consumes.map((f) => f.family),
    compatibility_mode: 'BACKWARD_TRANSITIVE',
    lifecycle_posture: 'stable',
    verify: {
      entrypoint: 'bun test units/prs',
      readiness_surfaces: ['/health', '/api/v1/platform/services'],
      live_verification_target: target,
    },
    checklist: { ...checklist },
  }
}

const upPeer = () => {
  const peer = fakePeer(() => json({ status: 'ok' }))
  open.peers.push(peer)
  return peer
}

describe('POST /api/v1/tools/admission/dry-run', () => {
  test('an empty input is a 400 naming every missing item', async () => {
    const u = await boot()
    const res = await u.send('POST', '/api/v1/tools/admission/dry-run', {})
    expect(res.status).toBe(400)
    const body: Body = await res.json()
    expect(body.error.code).toBe('admission_input_incomplete')
    expect(body.error.details.missing).toEqual([
      'tool_identity.tool_key',
      'tool_identity.capability_class',
      'docs.entrypoint',
      'docs.tool_profile',
      'docs.integrations',
      'docs.capabilities',
      'docs.api',
      'docs.open_source_inventory',
      'producer_families',
      'consumer_families',
      'compatibility_mode',
      'lifecycle_posture',
      'verify.entrypoint',
      'verify.readiness_surfaces',
      'verify.live_verification_target',
      ...CHECKLIST_ITEMS.map((i) => `checklist.${i.key}`),
    ])
  })

  test('an incomplete input names what is missing and what is invalid', async () => {
    const u = await boot()
    const input = prsInput('prs')
    delete input.docs.api
    delete input.checklist.secrets_outside_repository
    input.compatibility_mode = 'SIDEWAYS'
    input.checklist.invented_item = 'pass'
    const res = await u.send('POST', '/api/v1/tools/admission/dry-run', input)
    expect(res.status).toBe(400)
    const body: Body = await res.json()
    expect(body.error.details.missing).toEqual(['docs.api', 'checklist.secrets_outside_repository'])
    expect(body.error.details.invalid.map((i: Body) => i.item)).toEqual([
      'compatibility_mode',
      'checklist.invented_item',
    ])
    expect(body.error.message).toContain('docs.api')
  })

  test('a non-object body, a wrong content type and malformed JSON are 4xx', async () => {
    const u = await boot()
    expect((await u.send('POST', '/api/v1/tools/admission/dry-run', [1, 2])).status).toBe(400)
    const wrongType = await u.request('/api/v1/tools/admission/dry-run', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    })
    expect(wrongType.status).toBe(415)
    const malformed = await u.request('/api/v1/tools/admission/dry-run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"tool_identity":',
    })
    expect(malformed.status).toBe(400)
  })

  test('a complete input against a live target that answers is admissible, step by step, and persists nothing', async () => {
    const peer = upPeer()
    const u = await boot(fixtureContracts(), { SVC_UNIT_URLS: `prs=${peer.url}` })
    const before = await (await u.request('/api/v1/tools/host-snapshot')).json()
    const res = await u.send('POST', '/api/v1/tools/admission/dry-run', prsInput('prs'))
    expect(res.status).toBe(200)
    const body: Body = await res.json()
    expect(body.steps.map((s: Body) => [s.name, s.verdict])).toEqual([
      ['schema', 'pass'],
      ['compatibility', 'pass'],
      ['matrix', 'pass'],
      ['docs_standard', 'pass'],
      ['verify', 'pass'],
      ['drift', 'pass'],
    ])
    expect(body).toMatchObject({ verdict: 'admissible', dry_run: true, persisted: false })
    expect(typeof body.generated_at).toBe('string')
    expect(body.contract_version).toStartWith('c1-')
    expect(peer.requests.map((r) => r.path).sort()).toEqual(['/api/v1/platform/services', '/health'])
    const after = await (await u.request('/api/v1/tools/host-snapshot')).json()
    expect(after.database).toEqual(before.database)
  })

  test('a target that does not answer is a blocked verify step, not a pretended pass', async () => {
    const peer = upPeer()
    peer.stop()
    const u = await boot(fixtureContracts(), { SVC_UNIT_URLS: `prs=${peer.url}` })
    const body: Body = await (await u.send('POST', '/api/v1/tools/admission/dry-run', prsInput('prs'))).json()
    const verify = body.steps.find((s: Body) => s.name === 'verify')
    expect(verify.verdict).toBe('blocked')
    expect(verify.reasons[0]).toContain('not reachable')
    expect(body.verdict).not.toBe('admissible')
  })

  test('a target that answers 503 fails verify; an unknown target is blocked without a request', async () => {
    const peer = fakePeer((r) => (r.path === '/health' ? json({ ok: true }) : json({ error: 'down' }, 503)))
    open.peers.push(peer)
    const u = await boot(fixtureContracts(), { SVC_UNIT_URLS: `prs=${peer.url}` })
    const failed: Body = await (
      await u.send('POST', '/api/v1/tools/admission/dry-run', prsInput('prs'))
    ).json()
    expect(failed.verdict).toBe('refused')
    expect(failed.steps[4].reasons).toEqual(['/api/v1/platform/services on prs: answered 503'])
    const count = peer.requests.length
    const unknown: Body = await (
      await u.send('POST', '/api/v1/tools/admission/dry-run', prsInput('http://169.254.169.254/'))
    ).json()
    expect(unknown.steps[4].verdict).toBe('blocked')
    expect(peer.requests.length).toBe(count)
  })

  test('a failed checklist item, NONE on a stable tool, an orphan family and missing docs each fail their step', async () => {
    const peer = upPeer()
    const u = await boot(fixtureContracts(), { SVC_UNIT_URLS: `prs=${peer.url}` })
    const input = prsInput('prs')
    input.checklist.fail_closed_documented = 'fail'
    input.compatibility_mode = 'NONE'
    input.consumer_families.push('nobody.produces_this')
    input.docs.open_source_inventory = 'docs/absent.md'
    const body: Body = await (await u.send('POST', '/api/v1/tools/admission/dry-run', input)).json()
    const byName = Object.fromEntries(body.steps.map((s: Body) => [s.name, s]))
    expect(byName.schema.reasons[0]).toContain('fail_closed_documented')
    expect(byName.compatibility.reasons[0]).toContain('stable tool cannot opt out')
    expect(byName.matrix.reasons).toEqual([
      'consumed family nobody.produces_this has no producer in the matrix',
    ])
    expect(byName.docs_standard.reasons).toEqual([
      'docs.open_source_inventory: docs/absent.md is not in the owner repository',
    ])
    expect(body.verdict).toBe('refused')
  })

  test('changing a contract changes the verdict: the same input is refused once RMS stops producing a family', async () => {
    const peer = upPeer()
    const input = prsInput('prs')
    input.consumer_families.push('execution.approval_lane')
    const u1 = await boot(fixtureContracts(), { SVC_UNIT_URLS: `prs=${peer.url}` })
    const first: Body = await (await u1.send('POST', '/api/v1/tools/admission/dry-run', input)).json()
    expect(first.steps[2].verdict).toBe('pass')

    const changed = fixtureContracts()
    const rms = contractIn(changed, 'rms')
    rms.produces = rms.produces.filter((f) => f.family !== 'execution.approval_lane')
    const u2 = await boot(changed, { SVC_UNIT_URLS: `prs=${peer.url}` })
    const second: Body = await (await u2.send('POST', '/api/v1/tools/admission/dry-run', input)).json()
    expect(second.steps[2]).toMatchObject({
      verdict: 'fail',
      reasons: ['consumed family execution.approval_lane has no producer in the matrix'],
    })
    expect(second.verdict).toBe('refused')
    expect(second.contract_version).not.toBe(first.contract_version)
  })

  test('a registered tool that drops a family others require fails compatibility and matrix', async () => {
    const peer = upPeer()
    const u = await boot(fixtureContracts(), { SVC_UNIT_URLS: `rms=${peer.url}` })
    const rms = contractIn(fixtureContracts(), 'rms')
    const input = prsInput('rms')
    input.tool_identity = { tool_key: 'runtime-management', capability_class: 'runtime_management' }
    input.docs = Object.fromEntries(Object.keys(input.docs).map((k) => [k, 'docs/units/rms.md']))
    input.producer_families = rms.produces.map((f) => f.family).filter((f) => f !== 'execution.approval_lane')
    input.consumer_families = rms.consumes.map((f) => f.family)
    input.compatibility_mode = 'FULL'
    input.verify = {
      entrypoint: 'bun test units/rms',
      readiness_surfaces: ['/health'],
      live_verification_target: 'rms',
    }
    const body: Body = await (await u.send('POST', '/api/v1/tools/admission/dry-run', input)).json()
    expect(body.steps[1].verdict).toBe('fail')
    expect(body.incompatibilities[0]).toMatchObject({
      type: 'FAMILY_REMOVED',
      location: '/produces/execution.approval_lane',
    })
    expect(body.steps[2].reasons).toEqual(['family execution.approval_lane is dropped but required by als'])
  })
})

describe('POST /api/v1/contracts/compatibility/check', () => {
  const check = (u: Awaited<ReturnType<typeof boot>>, body: unknown) =>
    u.send('POST', '/api/v1/contracts/compatibility/check', body)

  test('the registered contract is compatible with itself under its registered mode', async () => {
    const u = await boot()
    const res = await check(u, {
      subject_kind: 'unit',
      subject: 'rms',
      proposed: contractIn(fixtureContracts(), 'rms'),
    })
    expect(res.status).toBe(200)
    const body: Body = await res.json()
    expect(body).toMatchObject({
      is_compatible: true,
      compatibility_mode: 'BACKWARD',
      mode_source: 'registered',
      compared_versions: ['1.0.0'],
      incompatibilities: [],
    })
  })

  test('a unit proposal that drops a required family is incompatible under FORWARD with a verbose reason', async () => {
    const u = await boot()
    const proposed = contractIn(fixtureContracts(), 'rms')
    proposed.produces = proposed.produces.filter((f) => f.family !== 'execution.approval_lane')
    const body: Body = await (
      await check(u, { subject_kind: 'unit', subject: 'rms', proposed, compatibility_mode: 'FORWARD' })
    ).json()
    expect(body.is_compatible).toBe(false)
    expect(body.mode_source).toBe('request')
    expect(body.messages[0]).toContain('type:FAMILY_REMOVED')
    expect(body.messages.at(-1)).toBe("{compatibility: 'FORWARD'}")
  })

  test('a family proposal with a new required field is BACKWARD-incompatible', async () => {
    const u = await boot()
    const decl = structuredClone(
      contractIn(fixtureContracts(), 'rms').produces.find((f) => f.family === 'execution.approval_lane')!,
    )
    decl.fields.tenant_ref = { type: 'string', required: true }
    const body: Body = await (
      await check(u, { subject_kind: 'family', subject: 'execution.approval_lane', proposed: decl })
    ).json()
    expect(body.is_compatible).toBe(false)
    expect(body.compared_versions).toEqual(['rms@1.0.0'])
    expect(body.incompatibilities[0]).toMatchObject({
      type: 'READER_FIELD_MISSING_IN_WRITER',
      direction: 'backward',
    })
  })

  test('a subject with no registered version is compatible and says so', async () => {
    const u = await boot()
    const decl = {
      family: 'brand.new_family',
      version: '1.0.0',
      kind: 'api',
      description: 'new',
      surfaces: [],
      fields: {},
    }
    const body: Body = await (
      await check(u, { subject_kind: 'family', subject: 'brand.new_family', proposed: decl })
    ).json()
    expect(body).toMatchObject({ is_compatible: true, registered_versions: 0 })
    expect(body.messages[0]).toContain('no registered version')
  })

  test('bad input: missing fields, unknown mode, invalid contract, subject mismatch', async () => {
    const u = await boot()
    const missing = await check(u, { subject: 'rms' })
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as Body).error.code).toBe('validation_failed')
    const mode = await check(u, {
      subject_kind: 'unit',
      subject: 'rms',
      proposed: {},
      compatibility_mode: 'SOMETIMES',
    })
    expect(mode.status).toBe(400)
    const invalid = await check(u, { subject_kind: 'unit', subject: 'rms', proposed: { unit: 'rms' } })
    expect(invalid.status).toBe(422)
    const inv: Body = await invalid.json()
    expect(inv.error.code).toBe('invalid_contract')
    expect(inv.error.details.length).toBeGreaterThan(1)
    const mismatch = await check(u, {
      subject_kind: 'unit',
      subject: 'als',
      proposed: contractIn(fixtureContracts(), 'rms'),
    })
    expect(mismatch.status).toBe(400)
    expect(((await mismatch.json()) as Body).error.code).toBe('subject_mismatch')
    const badFamily = await check(u, { subject_kind: 'family', subject: 'x.y', proposed: { family: 'x.y' } })
    expect(badFamily.status).toBe(422)
  })

  test('transitive modes compare against every contract the repository has shipped', async () => {
    const v1 = fixtureContracts()
    const first = await boot(v1)
    const dataDir = first.dataDir
    await first.close()
    // The repository moves on: the approval lane loses its optional-free `stale` field.
    const v2 = fixtureContracts()
    const lane = contractIn(v2, 'rms').produces.find((f) => f.family === 'execution.approval_lane')!
    delete lane.fields.stale
    lane.version = '1.1.0'
    // The same database: the data directory, or on a server the same server.
    const same: Record<string, string> =
      first.storage.driver === 'libsql' ? { DATABASE_URL: first.storage.location } : {}
    const u = await boot(v2, same, dataDir)
    const proposed = structuredClone(lane)
    proposed.version = '1.2.0'
    const plain: Body = await (
      await check(u, {
        subject_kind: 'family',
        subject: 'execution.approval_lane',
        proposed,
        compatibility_mode: 'FORWARD',
      })
    ).json()
    expect(plain.is_compatible).toBe(true)
    const transitive: Body = await (
      await check(u, {
        subject_kind: 'family',
        subject: 'execution.approval_lane',
        proposed,
        compatibility_mode: 'FORWARD_TRANSITIVE',
      })
    ).json()
    expect(transitive.compared_versions).toEqual(['rms@1.0.0', 'rms@1.1.0'])
    expect(transitive.is_compatible).toBe(false)
    expect(transitive.incompatibilities[0]).toMatchObject({
      against_version: '1.0.0',
      location: '/families/execution.approval_lane/fields/stale',
    })
  })
})

import { describe, expect, test } from 'bun:test'
import { platformManifest } from '../../../common/contract.ts'
import { contractIn, fixtureContracts } from '../testing.ts'
import {
  contractVersionOf,
  deriveCombinationProfiles,
  deriveDependencyGraph,
  deriveMatrix,
  deriveOptionalSlices,
  deriveVoiceContracts,
} from './derive.ts'
import { docsFindings } from './docs.ts'
import { deriveDrift, type Observation } from './drift.ts'

const obs = (
  unit: string,
  surface: Observation['surface'],
  body: unknown,
  ok = true,
  status = 200,
): Observation => ({
  unit,
  surface,
  url: `http://127.0.0.1:1/${surface}`,
  observed_at: '2026-11-22T06:00:00.000Z',
  ok,
  status,
  reason: ok ? null : status ? 'bad_status' : 'unreachable',
  message: null,
  latency_ms: 1,
  body,
})

describe('matrix derivation', () => {
  test('the repository contracts give a matrix with the families ALS reads', () => {
    const m = deriveMatrix(fixtureContracts())
    expect(m.producer_families).toContain('registry.contract_matrix')
    expect(m.producer_families).toContain('execution.approval_lane')
    expect(m.consumer_families).toContain('registry.contract_matrix')
    expect(m.unresolved).toEqual([])
    const cell = m.cells.find((c) => c.family === 'execution.approval_lane')!
    expect(cell.producers).toEqual(['rms'])
    expect(cell.consumers).toEqual([{ unit: 'als', required: true }])
    expect(m.external_families.map((e) => e.family)).toContain('identity.authority_projection')
  })

  test('changing one contract changes the matrix and the contract version', () => {
    const before = fixtureContracts()
    const after = fixtureContracts()
    const rms = contractIn(after, 'rms')
    rms.produces = rms.produces.filter((f) => f.family !== 'execution.approval_lane')
    expect(contractVersionOf(after)).not.toBe(contractVersionOf(before))
    const m = deriveMatrix(after)
    expect(m.producer_families).not.toContain('execution.approval_lane')
    expect(m.unresolved).toEqual([{ family: 'execution.approval_lane', consumers: ['als'], required: true }])
    const graph = deriveDependencyGraph(after)
    expect(graph.unresolved).toHaveLength(1)
    expect(graph.edges.some((e) => e.from === 'als' && e.to === 'rms')).toBe(false)
  })

  test('a new consumer appears in its cell; a new external family is not unresolved', () => {
    const cs = fixtureContracts()
    contractIn(cs, 'web').consumes.push({
      family: 'registry.contract_matrix',
      required: false,
      source: 'suite',
    })
    contractIn(cs, 'web').consumes.push({ family: 'outside.thing', required: true, source: 'external' })
    const m = deriveMatrix(cs)
    expect(m.cells.find((c) => c.family === 'registry.contract_matrix')!.consumers).toContainEqual({
      unit: 'web',
      required: false,
    })
    expect(m.external_families).toContainEqual({ family: 'outside.thing', consumers: ['web'] })
    expect(m.unresolved).toEqual([])
  })
})

describe('graph, profiles, slices, voice', () => {
  test('required dependency cycles are found and block a start order', () => {
    const cs = fixtureContracts()
    expect(deriveDependencyGraph(cs).required_cycles).toEqual([])
    expect(deriveDependencyGraph(cs).start_order).not.toBeNull()
    contractIn(cs, 'rms').consumes.push({ family: 'learning.signals', required: true, source: 'suite' })
    const g = deriveDependencyGraph(cs)
    expect(g.required_cycles).toContainEqual(['als', 'rms'])
    expect(g.start_order).toBeNull()
  })

  test('a profile whose required member loses its producer becomes incomplete', () => {
    const cs = fixtureContracts()
    expect(deriveCombinationProfiles(cs).every((p) => p.status === 'complete')).toBe(true)
    const prs = contractIn(cs, 'prs')
    prs.produces = prs.produces.filter((f) => f.family !== 'registry.voice_event_contracts')
    const voice = deriveCombinationProfiles(cs).find((p) => p.profile_key === 'voice_stack')!
    expect(voice.status).toBe('incomplete')
    expect(voice.missing_families).toEqual(['registry.voice_event_contracts'])
  })

  test('a slice that is off by default but required by someone is a conflict', () => {
    const cs = fixtureContracts()
    expect(deriveOptionalSlices(cs).every((s) => s.status === 'consistent')).toBe(true)
    contractIn(cs, 'eis').consumes.push({
      family: 'project.adapter_sandbox',
      required: true,
      source: 'suite',
    })
    const slice = deriveOptionalSlices(cs).find((s) => s.slice_key === 'pws.adapter_sandbox_writes')!
    expect(slice.status).toBe('conflict')
    expect(slice.required_by).toEqual([{ unit: 'eis', family: 'project.adapter_sandbox' }])
  })

  test('voice contracts carry TEL’s call events and RMS voice targets', () => {
    const v = deriveVoiceContracts(fixtureContracts())
    expect(v.families.map((f) => f.family)).toEqual(
      expect.arrayContaining(['voice.targets', 'voice.call_events']),
    )
    expect(v.events.map((e) => e.name)).toContain('voice_call_started')
  })
})

describe('drift derivation', () => {
  const urls = { rms: 'http://127.0.0.1:18086', pws: 'http://127.0.0.1:18082' }
  const docsAllReady = (cs: ReturnType<typeof fixtureContracts>) =>
    docsFindings(cs, () => '## What\n## Routes\n## Configuration\n## Decisions\n## Not done\n## Benchmarks')

  test('a manifest derived from the contract is clean; a changed contract makes it drift', () => {
    const cs = fixtureContracts()
    const manifest = platformManifest(contractIn(cs, 'rms'))
    const latest = [obs('rms', 'liveness', { status: 'ok' }), obs('rms', 'manifest', manifest)]
    const clean = deriveDrift(cs, latest, docsAllReady(cs), urls)
    expect(clean.items.filter((i) => i.unit === 'rms')).toEqual([])

    contractIn(cs, 'rms').version = '2.0.0'
    contractIn(cs, 'rms').produces.pop()
    const drift = deriveDrift(cs, latest, docsAllReady(cs), urls)
    const rms = drift.items.filter((i) => i.unit === 'rms')
    expect(drift.status).toBe('blocking')
    expect(rms.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        'manifest contract_version contradicts the contract',
        expect.stringContaining(
          'manifest producer_families contradicts the contract: missing none; extra execution.approval_lane',
        ),
      ]),
    )
  })

  test('a down unit is unobserved, not drift; a 404 liveness is blocking drift', () => {
    const cs = fixtureContracts()
    const down = deriveDrift(cs, [obs('rms', 'liveness', null, false, 0)], docsAllReady(cs), urls)
    expect(down.items.filter((i) => i.unit === 'rms')).toEqual([])
    expect(down.unobserved).toContainEqual(expect.objectContaining({ unit: 'rms' }))
    const missing = deriveDrift(cs, [obs('rms', 'liveness', null, false, 404)], docsAllReady(cs), urls)
    expect(missing.items.find((i) => i.unit === 'rms')?.kind).toBe('liveness_route_missing')
  })

  test('membership facts that contradict the admitted surface are blocking', () => {
    const cs = fixtureContracts()
    const latest = [obs('pws', 'liveness', {}), obs('pws', 'membership_facts', { auth_mode: 'basic_auth' })]
    const d = deriveDrift(cs, latest, docsAllReady(cs), urls)
    expect(d.items).toContainEqual(
      expect.objectContaining({
        unit: 'pws',
        kind: 'identity_surface_contradicts_contract',
        severity: 'blocking',
      }),
    )
  })

  test('missing docs are warnings naming the file', () => {
    const cs = fixtureContracts()
    const d = deriveDrift(
      cs,
      [],
      docsFindings(cs, () => null),
      {},
    )
    expect(d.status).toBe('warnings')
    expect(d.items[0]).toMatchObject({
      kind: 'docs_entrypoint_missing',
      message: 'docs/units/rms.md is not in the repository',
    })
  })
})

describe('docs standard check', () => {
  test('headings satisfy sections by their words; a title with a paragraph is a tool profile', async () => {
    const { sectionsOf } = await import('./docs.ts')
    const doc = '# PRS: registry\n\nWhat it is.\n\n## Routes\n## Configuration\n## Not done\n'
    expect(sectionsOf(doc, ['tool_profile', 'api', 'configuration', 'decisions', 'not_done'])).toEqual([
      'tool_profile',
      'api',
      'configuration',
      'not_done',
    ])
    expect(sectionsOf('# Title\n## Routes\n', ['tool_profile'])).toEqual([])
  })
})

describe('docs that contradict the contract', () => {
  test('a doc stating another port or liveness route is blocking drift; the right ones are clean', () => {
    const cs = fixtureContracts()
    const doc = (text: string) => (path: string) => (path === 'docs/units/web.md' ? text : null)
    const good = docsFindings(cs, doc('# WEB\n\nPort 18080, liveness `GET /health`. Small.\n'))
    expect(deriveDrift(cs, [], good, {}).items.filter((i) => i.severity === 'blocking')).toEqual([])
    const bad = docsFindings(cs, doc('# WEB\n\nPort 18081, liveness `GET /healthz`. Small.\n'))
    const items = deriveDrift(cs, [], bad, {}).items.filter((i) => i.severity === 'blocking')
    expect(items.map((i) => i.message)).toEqual([
      'docs/units/web.md states port 18081, the contract declares 18080',
      'docs/units/web.md states liveness /healthz, the contract declares /health',
    ])
    const rms = docsFindings(cs, (p) =>
      p === 'docs/units/rms.md' ? '# RMS\n\nPort 8080 inside its container.\n' : null,
    )
    expect(deriveDrift(cs, [], rms, {}).blocking_count).toBe(0)
  })
})

import { describe, expect, test } from 'bun:test'
import { catalogProblems, shippedBreakingChanges, shippedNodeTypes } from '../catalog/index.ts'
import type { N8nWorkflow } from '../service/automation.ts'
import { upgradeImpact } from './impact.ts'
import { validateWorkflow } from './validate.ts'
import { compareVersions, inUpgradeRange, versionsBehind } from './versions.ts'

const wf = (
  nodes: N8nWorkflow['nodes'],
  connections: N8nWorkflow['connections'] = {},
  active = false,
): N8nWorkflow => ({
  id: 'w',
  name: 'W',
  active,
  nodes,
  connections,
})

describe('the breaking-changes catalog', () => {
  test('the shipped catalog is valid, its ids unique, and every node type it names is one n8n ships', () => {
    expect(catalogProblems(shippedBreakingChanges)).toEqual([])
    const known = new Set(Object.keys(shippedNodeTypes.types))
    // The only types n8n 2.8.4 no longer ships are the ones the 2.0.0 notes say were removed.
    const unknown = shippedBreakingChanges.entries.flatMap((e) =>
      e.node_types.filter((t) => !known.has(t)).map((t) => `${e.id}:${t}`),
    )
    expect(unknown).toEqual([
      'n8n-2.0.0-start-node-removed:n8n-nodes-base.start',
      'n8n-2.0.0-retired-service-nodes-removed:n8n-nodes-base.spontit',
      'n8n-2.0.0-retired-service-nodes-removed:n8n-nodes-base.crowdDev',
      'n8n-2.0.0-retired-service-nodes-removed:n8n-nodes-base.crowdDevTrigger',
      'n8n-2.0.0-retired-service-nodes-removed:n8n-nodes-base.kitemaker',
      'n8n-2.0.0-retired-service-nodes-removed:n8n-nodes-base.automizy',
    ])
  })

  test('entries are in release order, so the catalog reads like n8n’s notes', () => {
    const versions = shippedBreakingChanges.entries.map((e) => e.version)
    expect([...versions].sort(compareVersions)).toEqual(versions)
  })

  test('a real 1.x entry is found for a workflow using its node, only when the upgrade crosses its release', () => {
    const w = wf([
      { name: 'Board', type: 'n8n-nodes-base.mondayCom', typeVersion: 1 },
      { name: 'Other', type: 'n8n-nodes-base.set', typeVersion: 3 },
    ])
    const across = upgradeImpact(shippedBreakingChanges.entries, [w], '1.20.0', '1.30.0')
    expect(across.workflows[0]?.affected_nodes.map((a) => `${a.node}:${a.change_id}`)).toEqual([
      'Board:n8n-1.24.0-monday-column-values',
    ])
    expect(across.workflows[0]?.max_severity).toBe('high')
    const after = upgradeImpact(shippedBreakingChanges.entries, [w], '1.24.0', '1.30.0')
    expect(after.workflows[0]?.affected_nodes).toEqual([])
  })

  test('a broken catalog is refused: bad severity, bad version, duplicate id', () => {
    const entry = shippedBreakingChanges.entries[0]
    expect(
      catalogProblems({ ...shippedBreakingChanges, entries: [{ ...entry, severity: 'urgent' }] }),
    ).not.toEqual([])
    expect(
      catalogProblems({ ...shippedBreakingChanges, entries: [{ ...entry, version: '2.0' }] }),
    ).not.toEqual([])
    expect(catalogProblems({ ...shippedBreakingChanges, entries: [entry, entry] })).toEqual([
      `/entries: duplicate id ${entry?.id}`,
    ])
  })
})

describe('impact', () => {
  test('type-version bounds, parameter matches and disabled nodes decide which nodes are affected', () => {
    const catalog = [
      {
        id: 'c1',
        version: '2.0.0',
        title: 't',
        description: 'd',
        node_types: ['n8n-nodes-base.code'],
        type_versions: { max: 1 },
        severity: 'high' as const,
        auto_migratable: false,
        migration: 'm',
      },
      {
        id: 'c2',
        version: '2.0.0',
        title: 't',
        description: 'd',
        node_types: ['n8n-nodes-base.code'],
        parameter_match: { language: ['python'] },
        severity: 'low' as const,
        auto_migratable: true,
        migration: 'm',
      },
      {
        id: 'c3',
        version: '3.0.0',
        title: 't',
        description: 'd',
        node_types: ['n8n-nodes-base.code'],
        severity: 'critical' as const,
        auto_migratable: false,
        migration: 'm',
      },
    ]
    const w = wf([
      { name: 'old', type: 'n8n-nodes-base.code', typeVersion: 1 },
      { name: 'new', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { language: 'python' } },
      { name: 'off', type: 'n8n-nodes-base.code', typeVersion: 1, disabled: true },
    ])
    const i = upgradeImpact(catalog, [w], '1.0.0', '2.5.0')
    expect(i.workflows[0]?.affected_nodes.map((a) => `${a.node}:${a.change_id}`)).toEqual([
      'old:c1',
      'new:c2',
    ])
    expect(i.workflows[0]?.max_severity).toBe('high')
    expect(i.workflows[0]?.auto_migratable).toBe(false)
    expect(i.totals).toMatchObject({ affected_nodes: 2, manual_nodes: 1 })
    // The range is (from, to]: a change at `from` is already behind, one at `to` is included.
    expect(
      upgradeImpact(catalog, [w], '2.0.0', '3.0.0').workflows[0]?.affected_nodes.map((a) => a.change_id),
    ).toEqual(['c3', 'c3'])
  })
})

describe('validate', () => {
  const types = shippedNodeTypes
  test('missing credentials: a credential reference without an id, and a type that requires one', () => {
    const required = Object.entries(types.types).find(([, v]) => v.credentials.length > 0)
    expect(required).toBeDefined()
    const [type, info] = required as [string, { credentials: string[]; versions: number[] }]
    const r = validateWorkflow(
      wf([
        { name: 'needs', type, typeVersion: info.versions[0] },
        {
          name: 'ref',
          type: 'n8n-nodes-base.httpRequest',
          typeVersion: 4.2,
          credentials: { httpBasicAuth: { name: 'basic' } },
        },
      ]),
      types,
    )
    expect(r.issues.filter((i) => i.code === 'missing_credentials').map((i) => i.node)).toEqual([
      'needs',
      'ref',
    ])
  })

  test('unknown types and type versions, duplicate names; a clean workflow passes', () => {
    const r = validateWorkflow(
      wf([
        { name: 'a', type: 'n8n-nodes-community.thing', typeVersion: 1 },
        { name: 'b', type: 'n8n-nodes-base.set', typeVersion: 9 },
        { name: 'b', type: 'n8n-nodes-base.set', typeVersion: 3.4 },
      ]),
      types,
    )
    expect(r.issues.map((i) => i.code).sort()).toEqual([
      'duplicate_node_name',
      'unknown_node_type',
      'unknown_type_version',
    ])
    const clean = validateWorkflow(
      wf(
        [
          { name: 'T', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 },
          { name: 'S', type: 'n8n-nodes-base.set', typeVersion: 3.4 },
        ],
        { T: { main: [[{ node: 'S', type: 'main', index: 0 }]] } },
        true,
      ),
      types,
    )
    expect(clean).toMatchObject({ valid: true, errors: 0, warnings: 0 })
  })
})

describe('versions', () => {
  test('compare numerically, pre-releases first, ranges half-open', () => {
    expect(compareVersions('1.10.0', '1.9.9')).toBeGreaterThan(0)
    expect(compareVersions('2.0.0-rc.1', '2.0.0')).toBeLessThan(0)
    expect(compareVersions('v2.8.4', '2.8.4')).toBe(0)
    expect(inUpgradeRange('2.0.0', '1.60.0', '2.0.0')).toBe(true)
    expect(inUpgradeRange('1.60.0', '1.60.0', '2.0.0')).toBe(false)
    expect(versionsBehind('1.60.0', '2.8.4')).toEqual({ majors: 1, minors: 8 })
    expect(versionsBehind('2.1.0', '2.8.4')).toEqual({ majors: 0, minors: 7 })
    expect(() => compareVersions('latest', '1.0.0')).toThrow()
  })
})

/** The shipped example host: embedded for the compiled executable, valid, and a small federation. */
import { describe, expect, test } from 'bun:test'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { EXAMPLE_HOST_FILES } from './example-host.ts'
import type { AgentDoc } from './model/host.ts'
import { federationContract } from './rules/federation.ts'
import { scanHost } from './service/host.ts'
import { referenceProblems } from './service/runtime.ts'

const EXAMPLE_DIR = join(import.meta.dir, '../../examples/runtime-host')

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [relative(EXAMPLE_DIR, path)]
  })
}

describe('example runtime host', () => {
  test('every file of examples/runtime-host is embedded (and nothing else)', () => {
    expect(Object.keys(EXAMPLE_HOST_FILES).sort()).toEqual(
      walk(EXAMPLE_DIR)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    )
  })

  test('every file validates, references resolve, and the federation is healthy with persistent agents', () => {
    const snap = scanHost(EXAMPLE_DIR)
    expect(snap.invalid).toEqual([])
    const desired = new Map(
      [...snap.resources].map(([k, r]) => [k, { kind: r.kind, id: r.id, doc: r.doc, hash: r.hash }]),
    )
    expect(referenceProblems(desired)).toEqual([])
    const agents = [...snap.resources.values()]
      .filter((r) => r.kind === 'agent')
      .map((r) => r.doc as AgentDoc)
    const fed = federationContract({
      federation_id: 'example-federation',
      agents,
      desiredParents: new Map(),
      fallbackReason: null,
    })
    expect(fed.federation_state).toBe('federated')
    expect(agents.filter((a) => a.persistent).length).toBeGreaterThanOrEqual(1)
  })
})

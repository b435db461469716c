import { describe, expect, test } from 'bun:test'
import { contractProblems, platformManifest } from '../common/contract.ts'
import { ContractFileError, rawContracts, unitContracts, validateContracts } from './contracts.ts'

const NAMES = ['rms', 'als', 'pws', 'web', 'nds', 'eis', 'wta', 'mailbox', 'prs', 'tel', 'mem']
const PORTS: Record<string, [number, string]> = {
  rms: [18086, '/health'],
  als: [18096, '/health'],
  pws: [18082, '/healthz'],
  web: [18080, '/health'],
  nds: [18084, '/v1/health/live'],
  eis: [18088, '/healthz'],
  wta: [18090, '/api/v1/health'],
  mailbox: [18091, '/healthz'],
  prs: [18092, '/health'],
}

describe('unit contracts', () => {
  test('every unit ships a contract that passes the schema and the cross-field rules', () => {
    expect(unitContracts.map((c) => c.unit)).toEqual(NAMES)
    for (const [unit, raw] of Object.entries(rawContracts)) {
      expect({ unit, problems: contractProblems(raw) }).toEqual({ unit, problems: [] })
    }
  })

  test('ports and liveness routes match docs/conventions.md §1', () => {
    for (const c of unitContracts) {
      const expected = PORTS[c.unit]
      if (!expected) {
        expect(c.identity.kind).toBe('cli')
        continue
      }
      expect([c.ports[0]?.port, c.liveness]).toEqual(expected)
    }
    expect(unitContracts.find((c) => c.unit === 'rms')?.ports[0]).toMatchObject({
      policy: 'static-required',
      container_port: 8080,
    })
  })

  test('every suite-sourced consumed family has a producer in the suite', () => {
    const produced = new Set(unitContracts.flatMap((c) => c.produces.map((f) => f.family)))
    for (const c of unitContracts) {
      for (const f of c.consumes.filter((x) => x.source === 'suite')) {
        expect({ unit: c.unit, family: f.family, produced: produced.has(f.family) }).toMatchObject({
          produced: true,
        })
      }
    }
  })

  test('a broken contract is refused with every problem named', () => {
    const broken = structuredClone(rawContracts.web) as Record<string, unknown>
    delete broken.version
    broken.compatibility_mode = 'SIDEWAYS'
    expect(() => validateContracts({ web: broken })).toThrow(ContractFileError)
    const problems = contractProblems(broken)
    expect(problems.some((p) => p.path === '/version')).toBe(true)
    expect(problems.some((p) => p.path === '/compatibility_mode')).toBe(true)
  })

  test('cross-field rules: an event of an unproduced family, a folder/unit mismatch', () => {
    const c = structuredClone(rawContracts.als) as { events: { family: string }[] }
    c.events[0]!.family = 'nobody.produces_this'
    expect(contractProblems(c).map((p) => p.path)).toContain('/events')
    expect(() => validateContracts({ rms: rawContracts.als })).toThrow(/expected "rms"/)
  })

  test('the manifest derived from a contract carries what PRS reads back', () => {
    const rms = unitContracts.find((c) => c.unit === 'rms')!
    const m = platformManifest(rms)
    expect(m.runtime_contract.port_policy).toBe('static-required')
    expect(m.producer_families).toContain('execution.approval_lane')
    expect(m.contract_version).toBe(rms.version)
  })
})

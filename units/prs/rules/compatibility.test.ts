import { describe, expect, test } from 'bun:test'
import type { FieldSpec } from '../../../common/contract.ts'
import { contractIn, fixtureContracts } from '../testing.ts'
import { checkFamily, checkUnit, readerProblems, verboseMessages } from './compatibility.ts'
import { requiredByFrom } from './derive.ts'

const f = (fields: Record<string, FieldSpec>, version = '1.0.0') => ({ version, fields })
const v1 = f({ id: { type: 'string', required: true }, count: { type: 'integer', required: true } })

describe('family compatibility (Confluent semantics)', () => {
  test('adding an optional field passes every mode', () => {
    const next = f({ ...v1.fields, note: { type: 'string', required: false } }, '1.1.0')
    for (const mode of ['BACKWARD', 'FORWARD', 'FULL', 'FULL_TRANSITIVE'] as const)
      expect(checkFamily(next, [{ version: '1.0.0', document: v1 }], mode)).toEqual([])
  })

  test('adding a required field breaks BACKWARD only', () => {
    const next = f({ ...v1.fields, owner: { type: 'string', required: true } })
    const reg = [{ version: '1.0.0', document: v1 }]
    expect(checkFamily(next, reg, 'BACKWARD').map((i) => i.type)).toEqual(['READER_FIELD_MISSING_IN_WRITER'])
    expect(checkFamily(next, reg, 'FORWARD')).toEqual([])
    expect(checkFamily(next, reg, 'FULL')).toHaveLength(1)
    expect(checkFamily(next, reg, 'NONE')).toEqual([])
  })

  test('removing a required field breaks FORWARD only', () => {
    const next = f({ id: v1.fields.id! })
    const reg = [{ version: '1.0.0', document: v1 }]
    expect(checkFamily(next, reg, 'BACKWARD')).toEqual([])
    const fwd = checkFamily(next, reg, 'FORWARD')
    expect(fwd).toEqual([
      expect.objectContaining({
        type: 'READER_FIELD_MISSING_IN_WRITER',
        location: '/fields/count',
        direction: 'forward',
      }),
    ])
  })

  test('integer widens to number for readers, not back', () => {
    const widened = f({ id: v1.fields.id!, count: { type: 'number', required: true } })
    const reg = [{ version: '1.0.0', document: v1 }]
    expect(checkFamily(widened, reg, 'BACKWARD')).toEqual([])
    expect(checkFamily(widened, reg, 'FORWARD').map((i) => i.type)).toEqual(['TYPE_MISMATCH'])
  })

  test('transitive modes check every registered version, plain modes only the latest', () => {
    const v0 = f(
      { id: { type: 'string', required: true }, legacy: { type: 'string', required: true } },
      '0.9.0',
    )
    const reg = [
      { version: '0.9.0', document: v0 },
      { version: '1.0.0', document: v1 },
    ]
    const next = f({ ...v1.fields }, '1.1.0')
    expect(checkFamily(next, reg, 'FORWARD')).toEqual([])
    const t = checkFamily(next, reg, 'FORWARD_TRANSITIVE')
    expect(t).toEqual([expect.objectContaining({ against_version: '0.9.0', location: '/fields/legacy' })])
    expect(verboseMessages(t, 'FORWARD_TRANSITIVE')[0]).toStartWith(
      'Incompatibility{type:READER_FIELD_MISSING_IN_WRITER',
    )
  })

  test('optional writer field under a required reader field is reported', () => {
    const p = readerProblems(
      { a: { type: 'string', required: true } },
      { a: { type: 'string', required: false } },
      '',
    )
    expect(p.map((x) => x.type)).toEqual(['REQUIRED_FIELD_MAY_BE_ABSENT'])
  })
})

describe('unit compatibility', () => {
  test('dropping a family other units require is FORWARD-incompatible and names them', () => {
    const cs = fixtureContracts()
    const current = contractIn(cs, 'rms')
    const proposed = structuredClone(current)
    proposed.produces = proposed.produces.filter((x) => x.family !== 'execution.approval_lane')
    const reg = [{ version: current.version, document: current }]
    expect(checkUnit(proposed, reg, 'BACKWARD', requiredByFrom(cs))).toEqual([])
    const found = checkUnit(proposed, reg, 'FULL', requiredByFrom(cs))
    expect(found).toEqual([
      expect.objectContaining({
        type: 'FAMILY_REMOVED',
        message: expect.stringContaining('als requires it'),
      }),
    ])
  })

  test('moving a static-required port or the liveness route is incompatible in every mode but NONE', () => {
    const cs = fixtureContracts()
    const current = contractIn(cs, 'rms')
    const proposed = structuredClone(current)
    proposed.ports[0]!.port = 18087
    proposed.liveness = '/healthz'
    const reg = [{ version: current.version, document: current }]
    expect(checkUnit(proposed, reg, 'BACKWARD', requiredByFrom(cs)).map((i) => i.type)).toEqual([
      'STATIC_PORT_CHANGED',
      'LIVENESS_ROUTE_CHANGED',
    ])
    expect(checkUnit(proposed, reg, 'NONE', requiredByFrom(cs))).toEqual([])
  })

  test('event payload: adding a field breaks BACKWARD, removing breaks FORWARD', () => {
    const cs = fixtureContracts()
    const current = contractIn(cs, 'als')
    const added = structuredClone(current)
    added.events[0]!.payload_fields.push('tenant_ref')
    const reg = [{ version: current.version, document: current }]
    expect(checkUnit(added, reg, 'BACKWARD', requiredByFrom(cs)).map((i) => i.type)).toEqual([
      'EVENT_FIELD_ADDED',
    ])
    expect(checkUnit(added, reg, 'FORWARD', requiredByFrom(cs))).toEqual([])
  })
})

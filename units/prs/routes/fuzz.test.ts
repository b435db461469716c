import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { bootForTestAsync } from '../../../test/harness.ts'
import { makePrs } from '../index.ts'
import { CHECKLIST_ITEMS } from '../rules/admission.ts'
import { contractIn, fixtureContracts, fixtureRepo } from '../testing.ts'

const contracts = fixtureContracts()
const u = await bootForTestAsync(makePrs(contracts), { PRS_REPO_DIR: fixtureRepo(contracts) })
afterAll(() => u.dispose())

const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.double())
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 12 }), tie('value'), { maxKeys: 5 }),
  ),
})).value

/** Valid-looking inputs with one part replaced by noise, to reach past the first validation. */
const admissionLike = fc.record({
  tool_identity: fc.oneof(
    json,
    fc.constant({ tool_key: 'platform-registry', capability_class: 'control_plane' }),
  ),
  docs: fc.oneof(
    json,
    fc.constant({
      entrypoint: '../../etc/passwd.md',
      tool_profile: '/abs.md',
      integrations: 'a.md',
      capabilities: 'x',
      api: 'docs/units/prs.md',
      open_source_inventory: 'docs/units/prs.md',
    }),
  ),
  producer_families: fc.oneof(
    json,
    fc.array(fc.constantFrom('registry.contract_matrix', 'x.y', 'bad key'), { maxLength: 3 }),
  ),
  consumer_families: fc.oneof(json, fc.constant([])),
  compatibility_mode: fc.oneof(json, fc.constantFrom('FULL', 'NONE', 'BACKWARD_TRANSITIVE')),
  lifecycle_posture: fc.oneof(json, fc.constant('stable')),
  verify: fc.oneof(
    json,
    fc.constant({ entrypoint: 'x', readiness_surfaces: ['/health'], live_verification_target: 'nowhere' }),
  ),
  checklist: fc.oneof(json, fc.constant(Object.fromEntries(CHECKLIST_ITEMS.map((i) => [i.key, 'pass'])))),
  contract: fc.oneof(json, fc.constant(contractIn(contracts, 'web'))),
})

describe('POST routes never answer 5xx', () => {
  test('admission dry-run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(json, admissionLike), async (body) => {
        const res = await u.send('POST', '/api/v1/tools/admission/dry-run', body)
        expect(res.status).toBeLessThan(500)
      }),
      { numRuns: 150 },
    )
  })

  test('compatibility check', async () => {
    const rms = contractIn(contracts, 'rms')
    const body = fc.record({
      subject_kind: fc.oneof(json, fc.constantFrom('unit', 'family')),
      subject: fc.oneof(json, fc.constantFrom('rms', 'execution.approval_lane', 'nope')),
      proposed: fc.oneof(json, fc.constant(rms), fc.constant(rms.produces[1])),
      compatibility_mode: fc.oneof(fc.constantFrom('FULL_TRANSITIVE', 'NONE'), json),
    })
    await fc.assert(
      fc.asyncProperty(fc.oneof(json, body), async (b) => {
        const res = await u.send('POST', '/api/v1/contracts/compatibility/check', b)
        expect(res.status).toBeLessThan(500)
      }),
      { numRuns: 150 },
    )
  })
})

import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { canonicalHash } from '../../common/hash.ts'
import { migrations } from '../../db/migrations/prs/index.ts'
import { openEmbeddedStorage, type Storage } from '../../db/storage.ts'
import { tempDir } from '../../test/harness.ts'
import { registerContracts, registeredVersions, versionCount } from './store.ts'
import { contractIn, fixtureContracts } from './testing.ts'

const open: Storage[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
})

function storage(): Storage {
  const s = openEmbeddedStorage(join(tempDir('svc-prs-store-'), 'prs.sqlite'), migrations)
  open.push(s)
  return s
}

/** The same document with its keys in reverse order: other text, the same canonical JSON. */
const reordered = <T extends object>(doc: T): T => Object.fromEntries(Object.entries(doc).reverse()) as T

describe('registerContracts', () => {
  test('registers every unit contract and produced family once; a restart with the same contracts adds nothing', async () => {
    const s = storage()
    const contracts = fixtureContracts()
    const subjects = contracts.reduce((n, c) => n + 1 + c.produces.length, 0)
    expect(await registerContracts(s, contracts, '2026-11-24T00:00:00.000Z')).toBe(subjects)
    expect(await versionCount(s)).toBe(subjects)
    expect(await registerContracts(s, fixtureContracts(), '2026-11-25T00:00:00.000Z')).toBe(0)
    expect(await versionCount(s)).toBe(subjects)
    const web = contractIn(contracts, 'web')
    const [stored] = await registeredVersions(s, 'unit', 'web')
    expect(stored).toEqual({
      version: web.version,
      document: web,
      first_seen_at: '2026-11-24T00:00:00.000Z',
      hash: canonicalHash(web),
    })
  })

  test('a changed family document is a new version beside the old one; a re-laid-out one is not', async () => {
    const s = storage()
    await registerContracts(s, fixtureContracts(), '2026-11-24T00:00:00.000Z')
    const before = await versionCount(s)
    const changed = fixtureContracts()
    const prs = contractIn(changed, 'prs')
    const family = prs.produces[0]
    if (!family) throw new Error('PRS produces no family')
    family.version = `${family.version}-next`
    // the unit document holds the family, so it changes too: two new versions
    expect(await registerContracts(s, changed, '2026-11-25T00:00:00.000Z')).toBe(2)
    const versions = await registeredVersions(s, 'family', `prs:${family.family}`)
    expect(versions.map((v) => v.first_seen_at)).toEqual([
      '2026-11-24T00:00:00.000Z',
      '2026-11-25T00:00:00.000Z',
    ])
    expect(versions[1]?.version).toBe(family.version)

    const relaid = fixtureContracts().map(reordered)
    expect(await registerContracts(s, relaid, '2026-11-26T00:00:00.000Z')).toBe(0)
    expect(await versionCount(s)).toBe(before + 2)
  })
})

import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { STATUS_MAX_AGE_MS } from '../../../db/snapshot.ts'
import { writeElsewhere } from '../../../db/testing.ts'
import { importFacts } from '../service/identity.ts'
import { bootEis, type EisUnit, FACTS, factsFile, method } from '../testing.ts'

let u: EisUnit
beforeEach(async () => {
  u = await bootEis()
})
afterEach(async () => {
  await u.dispose()
})

const STATUS = method('health.integration_status')
const status = async () => (await (await u.request(STATUS)).json()).message

describe('integration status: a snapshot of bounded age', () => {
  test("EIS's own writes show at once; a write behind its back within STATUS_MAX_AGE_MS", async () => {
    expect((await status()).documents.identity_facts).toBe(0)
    const r = await importFacts(u.ctx.storage, factsFile(), 'test.jsonl')
    expect(r.ok).toBe(true)
    const taken = performance.now()
    expect((await status()).documents.identity_facts).toBe(FACTS.length)

    await writeElsewhere(
      u.storage,
      `INSERT INTO identity_facts (technical_subject, fact, lifecycle_changed_at, import_id, imported_at)
       VALUES ('zoe', '{}', '2026-01-01T00:00:00Z', 'elsewhere', '2026-01-01T00:00:00Z')`,
    )
    const seen = (await status()).documents.identity_facts
    // Within the bound the snapshot may still be served; past it, the other write shows.
    if (performance.now() - taken < STATUS_MAX_AGE_MS) expect(seen).toBe(FACTS.length)
    await Bun.sleep(STATUS_MAX_AGE_MS + 20)
    expect((await status()).documents.identity_facts).toBe(FACTS.length + 1)
  })

  test('served as bytes with a strong ETag; If-None-Match gets 304', async () => {
    const first = await u.request(STATUS)
    const taken = performance.now()
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[^"]+"$/)
    const again = await u.request(STATUS, { headers: { 'if-none-match': etag ?? '' } })
    // Within the bound it is the same snapshot, not sent again.
    if (performance.now() - taken < STATUS_MAX_AGE_MS) {
      expect(again.status).toBe(304)
      expect(await again.text()).toBe('')
    }
  })

  test('a database that stops answering shows as degraded within the bound', async () => {
    expect((await status()).database).toBe('ok')
    await u.storage.close()
    await Bun.sleep(STATUS_MAX_AGE_MS + 20)
    expect(await status()).toMatchObject({ status: 'degraded', database: 'unavailable' })
  })
})

/** Migration 0002/0003: activate and rollback keys stored before the shared store keep replaying. */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { runIdempotent } from '../../db/idempotency.ts'
import { migrations } from '../../db/migrations/als/index.ts'
import { openDatabase } from '../../db/sqlite.ts'
import { openEmbeddedStorage } from '../../db/storage.ts'
import { tempDir } from '../../test/harness.ts'

test('rows of als_idempotency move to idempotency_keys, fingerprint and answer kept', async () => {
  const path = join(tempDir('svc-als-mig-'), 'als.sqlite')
  const old = openDatabase(path, migrations.slice(0, 2))
  old.sqlite.run(
    `INSERT INTO als_idempotency (operation, idempotency_key, proposal_id, request_hash, response, created_at)
     VALUES ('activate', 'k1', 'p1', 'h1', '{"proposal_id":"p1"}', '2026-01-01T00:00:00.000Z'),
            ('rollback', 'k0', 'p0', NULL, '{"proposal_id":"p0"}', '2025-01-01T00:00:00.000Z')`,
  )
  old.close()
  const storage = openEmbeddedStorage(path, migrations)
  const never = async () => {
    throw new Error('a stored answer must be replayed, not run again')
  }
  const replay = await runIdempotent(storage, { scope: 'activate', key: 'k1', fingerprint: 'h1' }, never)
  expect(replay.replayed).toBe(true)
  expect(new TextDecoder().decode(replay.response.body)).toBe('{"proposal_id":"p1"}')
  await expect(
    runIdempotent(storage, { scope: 'activate', key: 'k1', fingerprint: 'other' }, never),
  ).rejects.toMatchObject({ status: 409 })
  const any = await runIdempotent(storage, { scope: 'rollback', key: 'k0', fingerprint: 'any' }, never)
  expect(any.replayed).toBe(true)
  expect(
    await storage.db.all(sql`SELECT name FROM sqlite_master WHERE name = 'als_idempotency'`),
  ).toHaveLength(0)
  await storage.close()
})

/** Migration 0002/0003: activate and rollback keys stored before the shared store keep replaying. */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { idempotencyStatements } from '../../db/idempotency.ts'
import { migrations } from '../../db/migrations/als/index.ts'
import { openDatabase } from '../../db/sqlite.ts'
import { tempDir } from '../../test/harness.ts'
import { findIdempotent } from './store.ts'

test('rows of als_idempotency move to idempotency_keys, fingerprint and answer kept', () => {
  const path = join(tempDir('svc-als-mig-'), 'als.sqlite')
  const old = openDatabase(path, migrations.slice(0, 2))
  old.sqlite.run(
    `INSERT INTO als_idempotency (operation, idempotency_key, proposal_id, request_hash, response, created_at)
     VALUES ('activate', 'k1', 'p1', 'h1', '{"proposal_id":"p1"}', '2026-01-01T00:00:00.000Z'),
            ('rollback', 'k0', 'p0', NULL, '{"proposal_id":"p0"}', '2025-01-01T00:00:00.000Z')`,
  )
  old.close()
  const db = openDatabase(path, migrations)
  const q = { idempotency: idempotencyStatements(db.db) } as Parameters<typeof findIdempotent>[0]
  const replay = findIdempotent(q, { scope: 'activate', key: 'k1', fingerprint: 'h1' })
  expect(replay.state).toBe('replay')
  if (replay.state === 'replay')
    expect(new TextDecoder().decode(replay.response.body)).toBe('{"proposal_id":"p1"}')
  expect(findIdempotent(q, { scope: 'activate', key: 'k1', fingerprint: 'other' }).state).toBe('conflict')
  expect(findIdempotent(q, { scope: 'rollback', key: 'k0', fingerprint: 'any' }).state).toBe('replay')
  expect(db.sqlite.query("SELECT name FROM sqlite_master WHERE name = 'als_idempotency'").all()).toHaveLength(
    0,
  )
  db.close()
})

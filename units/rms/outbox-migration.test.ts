/** Migrations 0001/0002: audit events queued before the shared outbox keep their state and ids. */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { migrations } from '../../db/migrations/rms/index.ts'
import { outboxSummary } from '../../db/outbox.ts'
import { openDatabase } from '../../db/sqlite.ts'
import { tempDir } from '../../test/harness.ts'
import { EVENT_SINK, outboxCounts } from './store.ts'

test('rows of outbox move to outbox_messages (target event-sink), state, attempts and error kept', async () => {
  const path = join(tempDir('svc-rms-mig-'), 'rms.sqlite')
  const old = openDatabase(path, migrations.slice(0, 1))
  const rows: [string, string, number, string | null][] = [
    ['e1', 'pending', 4, 'unreachable: connection refused'],
    ['e2', 'delivered', 1, null],
  ]
  for (const [id, state, attempts, error] of rows) {
    old.sqlite.run(
      `INSERT INTO outbox (event_id, payload, state, attempts, next_attempt_at, last_error, delivered_at, created_at)
       VALUES (?, ?, ?, ?, '2026-01-01T00:01:00.000Z', ?, NULL, '2026-01-01T00:00:00.000Z')`,
      [id, `{"event_id":"${id}"}`, state, attempts, error],
    )
  }
  old.close()
  const db = openDatabase(path, migrations)
  expect(await outboxCounts(db.db)).toEqual({ pending: 1, delivered: 1, dead: 0 })
  expect(await outboxSummary(db.db, EVENT_SINK)).toMatchObject({
    lastError: 'unreachable: connection refused',
  })
  expect(
    db.sqlite.query("SELECT target, payload, attempts, headers FROM outbox_messages WHERE id = 'e1'").get(),
  ).toEqual({ target: 'event-sink', payload: '{"event_id":"e1"}', attempts: 4, headers: '{}' })
  expect(db.sqlite.query("SELECT name FROM sqlite_master WHERE name = 'outbox'").get()).toBeNull()
  db.close()
})

/** Migrations 0001/0002: contact deliveries stored before the shared outbox keep their state. */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { migrations } from '../../db/migrations/web/index.ts'
import { outboxSummary } from '../../db/outbox.ts'
import { openDatabase } from '../../db/sqlite.ts'
import { tempDir } from '../../test/harness.ts'
import { CONTACT_TARGET } from './store.ts'

test('rows of contact_deliveries move to outbox_messages, state, attempts and error kept', async () => {
  const path = join(tempDir('svc-web-mig-'), 'web.sqlite')
  const old = openDatabase(path, migrations.slice(0, 1))
  const rows: [string, string][] = [
    ['i1', 'pending'],
    ['i2', 'delivered'],
  ]
  for (const [id, state] of rows) {
    old.sqlite.run(
      `INSERT INTO contact_intakes (intake_id, received_at, name, email, interest, message, optional, delivery)
       VALUES (?, '2026-01-01T00:00:00.000Z', 'n', 'e@x.org', 'support', 'm', '{}', 'webhook')`,
      [id],
    )
    old.sqlite.run(
      `INSERT INTO contact_deliveries (intake_id, payload, state, attempts, next_attempt_at, last_error, created_at)
       VALUES (?, '{"p":1}', ?, 3, '2026-01-01T00:01:00.000Z', 'bad_status: peer answered 502', '2026-01-01T00:00:00.000Z')`,
      [id, state],
    )
  }
  old.close()
  const db = openDatabase(path, migrations)
  expect(await outboxSummary(db.db, CONTACT_TARGET)).toMatchObject({
    pending: 1,
    delivered: 1,
    lastError: 'bad_status: peer answered 502',
  })
  expect(db.sqlite.query("SELECT payload, attempts FROM outbox_messages WHERE id = 'i1'").get()).toEqual({
    payload: '{"p":1}',
    attempts: 3,
  })
  db.close()
})

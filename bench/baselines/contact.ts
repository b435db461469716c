/**
 * Baseline for the contact intake: the same work with no framework — parse the JSON body, ask
 * siteverify over HTTP, insert one row into SQLite (WAL) before answering.
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'

const verifyUrl = process.env.TURNSTILE_VERIFY_URL ?? ''
const db = new Database(join(process.env.BASELINE_DATA_DIR ?? '.', 'baseline.sqlite'), { create: true })
db.run('PRAGMA busy_timeout = 5000')
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = NORMAL')
db.run(
  'CREATE TABLE IF NOT EXISTS intakes (id TEXT PRIMARY KEY, received_at TEXT NOT NULL, body TEXT NOT NULL)',
)
const insert = db.prepare('INSERT INTO intakes (id, received_at, body) VALUES (?, ?, ?)')

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    if (req.method !== 'POST') return Response.json({ ok: true })
    const body = (await req.json()) as Record<string, string>
    const verdict = await fetch(verifyUrl, {
      method: 'POST',
      body: new URLSearchParams({ secret: 's', response: body['cf-turnstile-response'] ?? '' }),
    }).then((r) => r.json() as Promise<{ success: boolean }>)
    if (!verdict.success) return Response.json({ ok: false }, { status: 401 })
    const id = Bun.randomUUIDv7()
    insert.run(id, new Date().toISOString(), JSON.stringify(body))
    return Response.json({ ok: true, intake_id: id, delivery: 'mailto', message: 'ok' })
  },
})
process.on('SIGTERM', () => {
  server.stop(true)
  db.close()
  process.exit(0)
})

/**
 * Baseline: a bare Bun.serve route that parses a JSON body and inserts one row into SQLite (WAL,
 * synchronous=NORMAL), committed before the answer. The floor any write route is compared with.
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'

const db = new Database(join(process.env.BASELINE_DATA_DIR ?? '.', 'baseline.sqlite'), { create: true })
db.run('PRAGMA busy_timeout = 5000')
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = NORMAL')
db.run('CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY, received_at TEXT NOT NULL, body TEXT NOT NULL)')
const insert = db.prepare('INSERT INTO rows (id, received_at, body) VALUES (?, ?, ?)')

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    const path = new URL(req.url).pathname
    if (path === '/health') return Response.json({ ok: true })
    if (req.method !== 'POST') return new Response('not found', { status: 404 })
    const body = await req.json()
    const id = Bun.randomUUIDv7()
    insert.run(id, new Date().toISOString(), JSON.stringify(body))
    return Response.json({ ok: true, id })
  },
})
process.on('SIGTERM', () => {
  server.stop(true)
  db.close()
  process.exit(0)
})

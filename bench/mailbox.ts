/**
 * `bun run bench mailbox`: the mailbox adapter's publish route against a bare Bun.serve baseline
 * that does the same work: read the body counting bytes against the 131072-byte limit, parse
 * the JSON, check the topic, insert the message into SQLite (WAL), answer 202 with its id.
 * The baseline is this file run with MAILBOX_BENCH_BASELINE=1. Baseline and unit alternate
 * round by round (BENCH_ROUNDS, default 3). No downstream is configured (storage only).
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { compare, type Result, report, startUnit } from './lib.ts'

const LIMIT = 131_072
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/

function serveBaseline() {
  const db = new Database(join(process.env.SVC_DATA_DIR ?? '.', 'baseline.sqlite'), { create: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run(
    'CREATE TABLE IF NOT EXISTS m (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE, topic TEXT, message TEXT, headers TEXT, size INTEGER, at TEXT)',
  )
  const insert = db.prepare('INSERT INTO m (id, topic, message, headers, size, at) VALUES (?, ?, ?, ?, ?, ?)')
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return Response.json({ ok: true })
      if (path !== '/publish' || req.method !== 'POST') return new Response('not found', { status: 404 })
      const bytes = new Uint8Array(await req.arrayBuffer())
      if (bytes.byteLength > LIMIT) return new Response('payload too large', { status: 413 })
      let body: { topic?: unknown; message?: unknown; headers?: unknown }
      try {
        body = JSON.parse(new TextDecoder().decode(bytes))
      } catch {
        return Response.json({ error: { code: 'malformed_body', message: 'not JSON' } }, { status: 400 })
      }
      if (typeof body.topic !== 'string' || !TOPIC.test(body.topic) || body.message == null)
        return Response.json({ error: { code: 'validation_failed', message: 'bad body' } }, { status: 400 })
      const id = Bun.randomUUIDv7()
      const at = new Date().toISOString()
      insert.run(
        id,
        body.topic,
        JSON.stringify(body.message),
        JSON.stringify(body.headers ?? {}),
        bytes.byteLength,
        at,
      )
      return Response.json(
        {
          ok: true,
          message_id: id,
          topic: body.topic,
          size_bytes: bytes.byteLength,
          received_at: at,
          forwarding: 'not_configured',
        },
        { status: 202 },
      )
    },
  })
  process.on('SIGTERM', () => {
    server.stop(true)
    db.close()
    process.exit(0)
  })
}

if (process.env.MAILBOX_BENCH_BASELINE === '1') serveBaseline()

export default async function main(): Promise<string> {
  const spec = {
    method: 'POST' as const,
    path: '/publish',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      topic: 'orders',
      message: { order: 'bench-0', lines: 3, note: 'an ordinary small message' },
    }),
    uniqueBody: JSON.stringify({
      topic: 'orders',
      message: { order: 'bench-{n}', lines: 3, note: 'an ordinary small message' },
    }),
  }
  const rows: Result[] = []
  const base = await startUnit('baseline:bun-serve', '/healthz', { MAILBOX_BENCH_BASELINE: '1' }, [
    process.execPath,
    'bench/mailbox.ts',
  ])
  const mailbox = await startUnit('mailbox', '/healthz', { LOG_LEVEL: 'warn' })
  try {
    rows.push(...(await compare(base, mailbox, 'POST /publish', spec)))
  } finally {
    await Promise.all([base.stop(), mailbox.stop()])
  }
  return report('Mailbox adapter', rows, [
    'Both sides measure the body against 131072 bytes, parse it, check the topic and insert one SQLite row per request before answering 202.',
    'The unit also runs the shared wire (request ids, content type, logging, metrics), TypeBox validation of the body and the answer, and the credentials check (open here); bodies with a length are not copied.',
  ])
}

import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { Writable } from 'node:stream'
import { createClient } from '@libsql/client/web'
import { sql } from 'drizzle-orm'
import { drizzle as drizzleBun } from 'drizzle-orm/bun-sqlite'
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql/web'
import { Elysia, t } from 'elysia'
import { StorageClosedError } from '../db/storage.ts'
import type { TestResponse } from '../test/harness.ts'
import { AppError, isStorageUnavailable } from './errors.ts'
import { createLogger, errorFields } from './logger.ts'
import { createHttpMetrics } from './metrics.ts'
import { MAX_JSON_DEPTH, stampedHeaders, wire } from './wire.ts'

/** The wire with a silent log and a 1 KiB body limit, for tests that only look at responses. */
const silentWire = () =>
  wire({ unit: 't', log: createLogger('t', 'silent'), metrics: createHttpMetrics('t'), maxBodyBytes: 1024 })

/** An info logger whose lines are kept. */
function loggedLines() {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { lines, log: createLogger('t', 'info', sink) }
}

function appWithLog() {
  const { lines, log } = loggedLines()
  const app = new Elysia()
    .use(wire({ unit: 't', log, metrics: createHttpMetrics('t'), maxBodyBytes: 64 * 1024 }))
    .get('/boom', () => {
      throw new Error('secret internals at /work/main/x.ts')
    })
    .get('/wrong', () => ({ n: 'not a number' }) as unknown as { n: number }, {
      response: { 200: t.Object({ n: t.Number() }) },
    })
    .get('/conflict', () => {
      throw new AppError(409, 'version_conflict', 'Stale.', { current: 2 }, { remediation: ['refresh'] })
    })
    .post('/echo', ({ body }) => body, { body: t.Object({ token: t.String({ minLength: 40 }) }) })
    .post('/any', ({ body }) => ({ got: body ?? null }), { body: t.Optional(t.Unknown()) })
    .get('/list', ({ query }) => query, {
      query: t.Object({
        kind: t.Optional(t.Union([t.Literal('open'), t.Literal('closed')])),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
      }),
    })
    .post('/options', ({ body }) => body, {
      body: t.Object({ dry_run: t.Optional(t.Boolean({ default: false })) }),
    })
  return { app, lines }
}

const call = (
  app: { handle(r: Request): Promise<Response> },
  path: string,
  init?: RequestInit,
): Promise<TestResponse> => app.handle(new Request(`http://localhost${path}`, init))

describe('wire', () => {
  test('an unexpected error is a 500 envelope without the stack or message', async () => {
    const { app } = appWithLog()
    const res = await call(app, '/boom')
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text).error.code).toBe('internal_error')
    expect(text).not.toContain('secret internals')
    expect(text).not.toContain('/work/')
  })

  test('a response that breaks its own schema is a 500, not a client error', async () => {
    const { app } = appWithLog()
    expect((await call(app, '/wrong')).status).toBe(500)
  })

  test('AppError extra fields sit beside error', async () => {
    const { app } = appWithLog()
    const res = await call(app, '/conflict')
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({
      remediation: ['refresh'],
      error: { code: 'version_conflict', message: 'Stale.', details: { current: 2 } },
    })
  })

  test('one JSON log line per request with id, route, status, duration; input values never logged', async () => {
    const { app, lines } = appWithLog()
    const token = 'tok-'.repeat(5)
    await call(app, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer hunter2', 'x-request-id': 'r-1' },
      body: JSON.stringify({ token }),
    })
    await Bun.sleep(20)
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request')
    expect(entry).toMatchObject({ req_id: 'r-1', method: 'POST', route: '/echo', status: 400, unit: 't' })
    expect(typeof entry.duration_ms).toBe('number')
    const all = lines.join('')
    expect(all).not.toContain('hunter2')
    expect(all).not.toContain(token)
  })

  const postJson = (app: { handle(r: Request): Promise<Response> }, path: string, text: string) =>
    call(app, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })

  test('JSON nested past the limit is a 400 envelope', async () => {
    const { app } = appWithLog()
    const deep = `{"token":${'['.repeat(20_000)}${']'.repeat(20_000)}}`
    const res = await postJson(app, '/echo', deep)
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('body_too_deep')
    const edge = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`
    expect((await postJson(app, '/any', edge(MAX_JSON_DEPTH))).status).toBe(200)
    expect((await postJson(app, '/any', edge(MAX_JSON_DEPTH + 1))).status).toBe(400)
  })

  test('a lone surrogate in a string or key is a 400 envelope; a paired one is accepted', async () => {
    const { app } = appWithLog()
    for (const text of ['{"token":"\\ud800"}', '{"\\udc00":1}']) {
      const res = await postJson(app, '/any', text)
      expect(res.status).toBe(400)
      expect((await res.json()).error.code).toBe('invalid_unicode')
    }
    const ok = await postJson(app, '/any', '["\\ud83d\\ude00"]')
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ got: ['😀'] })
  })

  test('malformed JSON is a 400 envelope; an empty body on an optional-body route is accepted', async () => {
    const { app } = appWithLog()
    const bad = await postJson(app, '/any', '{"a":')
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe('malformed_body')
    const empty = await postJson(app, '/any', '')
    expect(empty.status).toBe(200)
    const required = await postJson(app, '/echo', '')
    expect(required.status).toBe(400)
  })

  test('validation details name the field, the expectation and the allowed values of an enum', async () => {
    const { app } = appWithLog()
    const details = async (path: string) => (await (await call(app, path)).json()).error.details
    expect(await details('/list?kind=')).toEqual([
      { path: '/kind', message: "kind: expected one of 'open', 'closed'" },
    ])
    for (const limit of ['-1', 'abc', '1.5']) {
      expect(await details(`/list?limit=${limit}`)).toEqual([
        { path: '/limit', message: 'limit: expected an integer >= 1, <= 100' },
      ])
    }
  })

  test('a value whose own keys shadow Object.prototype is refused with a 400 naming the field', async () => {
    const { app } = appWithLog()
    for (const value of [
      { toString: [] },
      { toString: [], valueOf: [] },
      { constructor: 1, __proto__: [] },
    ]) {
      const res = await postJson(app, '/echo', JSON.stringify({ token: value }))
      expect(res.status).toBe(400)
      expect((await res.json()).error.details).toEqual([
        { path: '/token', message: 'token: expected a string of length >= 40' },
      ])
    }
  })

  test('an object body with defaults refuses every body that is not an object', async () => {
    const { app } = appWithLog()
    for (const text of ['[1,2,3]', '"hello"', '42', 'null', 'true']) {
      const res = await postJson(app, '/options', text)
      expect(res.status).toBe(400)
      expect((await res.json()).error.details).toEqual([{ path: '/', message: 'body: expected an object' }])
    }
    expect(await (await postJson(app, '/options', '{}')).json()).toEqual({ dry_run: false })
  })

  test('a unit may replace the 413 body; the status, request id and log line stay', async () => {
    const app = new Elysia()
      .use(
        wire({
          unit: 'm',
          log: createLogger('m', 'silent'),
          metrics: createHttpMetrics('m'),
          maxBodyBytes: 1024,
          payloadTooLarge: () =>
            new Response('payload too large', { headers: { 'content-type': 'text/plain; charset=utf-8' } }),
        }),
      )
      .post('/publish', ({ body }) => body, { body: t.Object({ topic: t.String() }) })
    for (const body of [JSON.stringify({ topic: 'x'.repeat(2000) }), chunkedBody(2000)]) {
      const res = await call(app, '/publish', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'big-1' },
        body,
      })
      expect(res.status).toBe(413)
      expect(res.headers.get('x-request-id')).toBe('big-1')
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(await res.text()).toBe('payload too large')
    }
    const { app: plain } = appWithLog()
    const res = await postJson(plain, '/any', JSON.stringify('x'.repeat(100_000)))
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('payload_too_large')
  })
})

/** A body with no length: counted on the bytes read. */
function chunkedBody(bytes: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(JSON.stringify({ topic: 'y'.repeat(bytes) })))
      controller.close()
    },
  })
}

describe('the shared response headers on every kind of answer', () => {
  test('objects, built responses, peers’ responses (immutable headers), 304s, errors and 404s all carry the request id and nosniff', async () => {
    const peer = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('from the peer') })
    try {
      const app = new Elysia()
        .use(silentWire())
        .get('/object', () => ({ ok: true }))
        .get('/built', () => new Response('built', { headers: { 'content-type': 'text/plain' } }))
        .get('/not-modified', () => new Response(null, { status: 304, headers: { etag: '"x"' } }))
        .get('/passed-on', () => fetch(`http://127.0.0.1:${peer.port}/`))
        .get('/refused', () => {
          throw new AppError(409, 'conflict', 'No.')
        })
      for (const [path, status] of [
        ['/object', 200],
        ['/built', 200],
        ['/not-modified', 304],
        ['/passed-on', 200],
        ['/refused', 409],
        ['/nowhere', 404],
      ] as const) {
        const res = await call(app, path, { headers: { 'x-request-id': `id-${path.slice(1)}` } })
        expect({ path, status: res.status }).toEqual({ path, status })
        expect({ path, id: res.headers.get('x-request-id') }).toEqual({ path, id: `id-${path.slice(1)}` })
        expect({ path, nosniff: res.headers.get('x-content-type-options') }).toEqual({
          path,
          nosniff: 'nosniff',
        })
      }
      // Without a caller's id each answer gets a fresh one.
      const a = await call(app, '/built')
      const b = await call(app, '/built')
      expect(a.headers.get('x-request-id')).toBeTruthy()
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'))
    } finally {
      peer.stop(true)
    }
  })
})

describe('responses a route builds with stampedHeaders', () => {
  const base = new Headers({ 'content-type': 'text/plain', 'x-content-type-options': 'nosniff' })
  const app = new Elysia()
    .use(silentWire())
    .onTransform(({ set }) => {
      set.headers['x-mark'] = 'from-a-hook'
    })
    .get('/built', ({ set }) => new Response('hi', { headers: stampedHeaders(set, base) }))

  test('carry the request id once, nosniff, and what hooks put in set.headers', async () => {
    const res = await app.handle(
      new Request('http://localhost/built', { headers: { 'x-request-id': 'given-1' } }),
    )
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('hi')
    expect(res.headers.get('x-request-id')).toBe('given-1')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('x-mark')).toBe('from-a-hook')
    expect(res.headers.get('content-type')).toBe('text/plain')
    // The prepared headers are copied, never changed.
    expect(base.has('x-request-id')).toBe(false)
    const other = await app.handle(new Request('http://localhost/built'))
    expect(other.headers.get('x-request-id')).not.toBe('given-1')
  })
})

describe('a database that is unavailable answers 503, not 500, wherever it is read', () => {
  /** The error a real driver throws, caught. */
  const caught = async (f: () => unknown): Promise<unknown> => {
    try {
      await f()
    } catch (err) {
      return err
    }
    throw new Error('expected a failure')
  }

  function appFailingWith(error: () => Promise<unknown>) {
    const { lines, log } = loggedLines()
    const app = new Elysia()
      .use(wire({ unit: 't', log, metrics: createHttpMetrics('t'), maxBodyBytes: 1024 }))
      .get('/read', async () => {
        throw await error()
      })
    return { app, lines }
  }

  test('bun:sqlite on a closed handle, and a libSQL server nobody listens on, are 503 persistence_unavailable', async () => {
    const closed = async () => {
      const db = drizzleBun({ client: new Database(':memory:') })
      db.$client.close()
      return caught(() => db.all(sql`select 1`))
    }
    const refused = async () => {
      const client = createClient({ url: 'http://127.0.0.1:1' })
      try {
        return await caught(() => drizzleLibsql({ client }).all(sql`select ${'secret@example.com'}`))
      } finally {
        client.close()
      }
    }
    for (const error of [closed, refused, async () => new StorageClosedError()]) {
      const { app, lines } = appFailingWith(error)
      const res = await app.handle(new Request('http://localhost/read'))
      expect(res.status).toBe(503)
      const body = (await res.json()) as { error: { code: string } }
      expect(body.error.code).toBe('persistence_unavailable')
      await Bun.sleep(1)
      // Logged as a failure, without the statement's parameters (request data).
      expect(lines.join('')).toContain('request failed')
      expect(lines.join('')).not.toContain('secret@example.com')
    }
  })

  test('a statement the database refuses (a constraint, a syntax error) stays a 500: that is a defect', async () => {
    const db = drizzleBun({ client: new Database(':memory:') })
    db.run(sql`create table t (a text primary key)`)
    db.run(sql`insert into t values ('x')`)
    const constraint = await caught(() => db.run(sql`insert into t values ('x')`))
    const syntax = await caught(() => db.run(sql`selec 1`))
    for (const error of [constraint, syntax, new Error('plain')]) {
      expect(isStorageUnavailable(error)).toBe(false)
      const { app } = appFailingWith(async () => error)
      expect((await app.handle(new Request('http://localhost/read'))).status).toBe(500)
    }
    expect(isStorageUnavailable({ code: 'SQLITE_FULL' })).toBe(true)
    expect(isStorageUnavailable({ code: 'SQLITE_IOERR_WRITE' })).toBe(true)
    expect(isStorageUnavailable(new Error('wrapped', { cause: { code: 'SQLITE_BUSY' } }))).toBe(true)
  })

  test("errorFields keeps a failed query's statement and cause but not its parameters", () => {
    const err = new Error('Failed query: insert into leads values (?, ?)\nparams: ada@example.com,hunter2', {
      cause: Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT' }),
    })
    const fields = errorFields(err)
    const text = JSON.stringify(fields)
    expect(text).toContain('insert into leads values (?, ?)')
    expect(text).toContain('SQLITE_CONSTRAINT')
    expect(text).not.toContain('ada@example.com')
    expect(text).not.toContain('hunter2')
    expect(String(fields.stack)).toContain('    at ')
  })
})

import { describe, expect, test } from 'bun:test'
import { Writable } from 'node:stream'
import { Elysia, t } from 'elysia'
import { AppError } from './errors.ts'
import { createLogger } from './logger.ts'
import { createHttpMetrics } from './metrics.ts'
import { wire } from './wire.ts'

function appWithLog() {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const log = createLogger('t', 'info', sink)
  const app = new Elysia()
    .use(wire({ unit: 't', log, metrics: createHttpMetrics('t'), maxBodyBytes: 1024 }))
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
  return { app, lines }
}

const call = (app: { handle(r: Request): Promise<Response> }, path: string, init?: RequestInit) =>
  app.handle(new Request(`http://localhost${path}`, init))

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
})

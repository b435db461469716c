import { expect, test } from 'bun:test'
import { BatchedLines, createLogger, type RequestLine, requestLineWriter } from './logger.ts'

function capture() {
  const lines: string[] = []
  return { lines, write: (s: string) => void lines.push(s) }
}

const LINE: RequestLine = {
  req_id: 'req "quoted" \\ id',
  method: 'GET',
  route: '/api/v1/x/:id',
  status: 200,
  duration_ms: 1.25,
}

test('the request line is exactly the line pino writes for the same fields', () => {
  // An id that needs escaping, a plain one (written as it is), a route that needs escaping.
  const lines = [LINE, { ...LINE, req_id: '019ab5f0-1234-7abc-8def-0123456789ab', route: '/a"b\\c' }]
  const viaPino = capture()
  const direct = capture()
  const write = requestLineWriter(createLogger('prs', 'info', direct))
  for (const line of [...lines, ...lines]) {
    createLogger('prs', 'info', viaPino).info(line, 'request')
    write('info', line)
  }
  const strip = (s: string | undefined) => JSON.parse(s ?? '{}') as Record<string, unknown>
  expect(direct.lines).toHaveLength(4)
  for (let i = 0; i < 4; i++) {
    const { time: t1, ...a } = strip(viaPino.lines[i])
    const { time: t2, ...b } = strip(direct.lines[i])
    expect(b).toEqual(a)
    expect(Object.keys(strip(direct.lines[i]))).toEqual(Object.keys(strip(viaPino.lines[i])))
    expect(typeof t2).toBe('string')
    expect(Date.parse(t2 as string)).not.toBeNaN()
    expect(direct.lines[i]?.endsWith('\n')).toBe(true)
  }
})

test('the request line honours the level: debug lines are dropped at info', () => {
  const out = capture()
  const write = requestLineWriter(createLogger('web', 'info', out))
  write('debug', LINE)
  expect(out.lines).toEqual([])
  write('info', LINE)
  expect(out.lines).toHaveLength(1)
})

test('log lines of one event-loop turn reach the descriptor together when the turn ends, in order', async () => {
  const { closeSync, openSync, readFileSync } = await import('node:fs')
  const { join } = await import('node:path')
  const { tempDir } = await import('../test/harness.ts')
  const file = join(tempDir(), 'out.log')
  const fd = openSync(file, 'w')
  try {
    const out = new BatchedLines(fd)
    out.write('one\n')
    out.write('two\n')
    expect(readFileSync(file, 'utf8')).toBe('')
    await new Promise((r) => setImmediate(r))
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
    out.write('three\n')
    out.flush()
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n')
    // A logger on it writes the same JSON lines pino would.
    requestLineWriter(createLogger('web', 'info', out))('info', LINE)
    out.flushSync()
    const last = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? ''
    expect(JSON.parse(last)).toMatchObject({ unit: 'web', req_id: LINE.req_id, msg: 'request' })
  } finally {
    closeSync(fd)
  }
})

test('a full pipe delays lines, never drops or splits them; partial writes resume at the right byte', async () => {
  const { constants, openSync, readSync, closeSync } = await import('node:fs')
  const { join } = await import('node:path')
  const { spawnSync } = await import('node:child_process')
  const { tempDir } = await import('../test/harness.ts')
  const fifo = join(tempDir(), 'pipe')
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
  // Read-write and non-blocking: the open does not wait for a reader, and a full pipe is EAGAIN.
  const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const out = new BatchedLines(fd)
    // 200 lines of ~2 KB with two-byte characters: far more than the pipe holds (64 KiB).
    const body = 'é'.repeat(1000)
    for (let i = 0; i < 200; i++) out.write(`${i} ${body}\n`)
    out.flushSync()
    const chunks: Buffer[] = []
    for (let tries = 0; tries < 1000; tries++) {
      const buf = Buffer.alloc(65536)
      try {
        const n = readSync(reader, buf)
        if (n > 0) chunks.push(buf.subarray(0, n))
      } catch {
        // EAGAIN: nothing to read yet
      }
      if (Buffer.concat(chunks).toString('utf8').split('\n').length > 200) break
      await Bun.sleep(2)
    }
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(200)
    expect(lines).toEqual(Array.from({ length: 200 }, (_, i) => `${i} ${body}`))
  } finally {
    closeSync(fd)
    closeSync(reader)
  }
})

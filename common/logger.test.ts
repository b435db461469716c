import { expect, test } from 'bun:test'
import { createLogger, type RequestLine, requestLineWriter } from './logger.ts'

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
  const viaPino = capture()
  const direct = capture()
  createLogger('prs', 'info', viaPino).info(LINE, 'request')
  requestLineWriter(createLogger('prs', 'info', direct))('info', LINE)
  const strip = (s: string | undefined) => JSON.parse(s ?? '{}') as Record<string, unknown>
  const { time: t1, ...a } = strip(viaPino.lines[0])
  const { time: t2, ...b } = strip(direct.lines[0])
  expect(b).toEqual(a)
  expect(Object.keys(strip(direct.lines[0]))).toEqual(Object.keys(strip(viaPino.lines[0])))
  expect(typeof t2).toBe('string')
  expect(Date.parse(t2 as string)).not.toBeNaN()
  expect(direct.lines[0]?.endsWith('\n')).toBe(true)
})

test('the request line honours the level: debug lines are dropped at info', () => {
  const out = capture()
  const write = requestLineWriter(createLogger('web', 'info', out))
  write('debug', LINE)
  expect(out.lines).toEqual([])
  write('info', LINE)
  expect(out.lines).toHaveLength(1)
})

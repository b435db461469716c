/** Regression tests against the real `svc` process: the listener and the body limit (issue 10). */
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { type RunningUnit, runUnitProcess, tempDir } from './harness.ts'

const ROOT = join(import.meta.dir, '..')
const running: RunningUnit[] = []
afterAll(async () => {
  for (const u of running) await u.stop()
})
const MAX = 1024 * 1024

/** A body sent without a length (chunked), in 64 KiB pieces. */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  const piece = new Uint8Array(64 * 1024).fill(0x20)
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close()
      const n = Math.min(piece.byteLength, bytes - sent)
      sent += n
      controller.enqueue(piece.subarray(0, n))
    },
  })
}

test('defect 2: a second unit on a port already in use exits 2 with one line naming host and port', async () => {
  const first = await runUnitProcess('web', '/health', { SVC_DATA_DIR: tempDir() })
  running.push(first)
  const port = new URL(first.url).port
  const second = Bun.spawnSync([process.execPath, 'bin/svc.ts', 'unit', 'web'], {
    cwd: ROOT,
    env: { ...process.env, SVC_ENV: 'test', SVC_DATA_DIR: tempDir(), PORT: port, HOST: '127.0.0.1' },
  })
  expect(second.exitCode).toBe(2)
  expect(second.stderr.toString().trim().split('\n')).toEqual([
    `svc web: cannot listen on 127.0.0.1:${port}: the port is in use`,
  ])
  expect((await fetch(`${first.url}/health`)).status).toBe(200)
})

test('defect 4: every oversize body, with a length or chunked, gets the 413 envelope with a request id, and is logged', async () => {
  const unit = await runUnitProcess('web', '/health', {
    SVC_DATA_DIR: tempDir(),
    SVC_MAX_BODY_BYTES: String(MAX),
  })
  const post = (body: Uint8Array | ReadableStream<Uint8Array>, id: string) =>
    fetch(`${unit.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id },
      body,
    })
  const cases: [string, () => Uint8Array | ReadableStream<Uint8Array>][] = [
    ['length-1.5MiB', () => new Uint8Array(1.5 * MAX).fill(0x20)],
    ['length-3MiB', () => new Uint8Array(3 * MAX).fill(0x20)],
    ['chunked-1.5MiB', () => chunked(1.5 * MAX)],
    ['chunked-3MiB', () => chunked(3 * MAX)],
  ]
  for (const [id, body] of cases) {
    const res = await post(body(), id)
    expect(res.status).toBe(413)
    expect(res.headers.get('x-request-id')).toBe(id)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large')
  }
  const small = await post(chunked(1000), 'chunked-small')
  expect(small.status).toBe(400)
  expect(((await small.json()) as { error: { code: string } }).error.code).toBe('malformed_body')
  expect(await unit.stop()).toBe(0)
  const logged = (await unit.output())
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { req_id?: string; status?: number })
  for (const [id] of cases) expect(logged.find((l) => l.req_id === id)).toMatchObject({ status: 413 })
})

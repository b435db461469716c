/**
 * Baseline: a bare Bun.serve that answers each path with the very bytes a unit answered it with
 * (captured by bench/tax.ts into REPLAY_FILE: status, headers, body). The floor of a read route:
 * no routing beyond a map lookup, the headers prepared once, nothing computed. With
 * REPLAY_HEADERS=content-type it sends the content type alone, as earlier runs did.
 */
import { readFileSync } from 'node:fs'

interface Captured {
  status: number
  contentType: string
  headers?: [string, string][]
  body: string
}

const allHeaders = process.env.REPLAY_HEADERS !== 'content-type'

const captured = JSON.parse(readFileSync(process.env.REPLAY_FILE ?? '', 'utf8')) as Record<string, Captured>
const answers = new Map(
  Object.entries(captured).map(([path, c]) => [
    path,
    // A Blob, as the units' cached views keep their bytes: a response over a byte array copies them.
    {
      status: c.status,
      headers: new Headers(allHeaders && c.headers ? c.headers : [['content-type', c.contentType]]),
      body: new Blob([Buffer.from(c.body, 'base64')]),
    },
  ]),
)

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  fetch(req) {
    const url = req.url
    const start = url.indexOf('/', url.indexOf('//') + 2)
    const a = answers.get(url.slice(start))
    if (a === undefined) return new Response('not found', { status: 404 })
    return new Response(a.body, { status: a.status, headers: a.headers })
  },
})
process.on('SIGTERM', () => {
  server.stop(true)
  process.exit(0)
})

/**
 * Baseline: a bare Bun.serve that answers each path with the very bytes a unit answered it with
 * (captured by bench/tax.ts into REPLAY_FILE: status, content type, body). The floor of a read
 * route: no routing beyond a map lookup, no headers beyond the content type, nothing computed.
 */
import { readFileSync } from 'node:fs'

interface Captured {
  status: number
  contentType: string
  body: string
}

const captured = JSON.parse(readFileSync(process.env.REPLAY_FILE ?? '', 'utf8')) as Record<string, Captured>
const answers = new Map(
  Object.entries(captured).map(([path, c]) => [
    path,
    // A Blob, as the units' cached views keep their bytes: a response over a byte array copies them.
    {
      status: c.status,
      headers: { 'content-type': c.contentType },
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

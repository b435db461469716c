/** Baseline: a bare Bun.serve route answering a small JSON document, nothing else. */
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  fetch(req) {
    const path = new URL(req.url).pathname
    if (path === '/health')
      return Response.json({ ok: true, status: 'ok', checked_at: new Date().toISOString() })
    return new Response('not found', { status: 404 })
  },
})
process.on('SIGTERM', () => {
  server.stop(true)
  process.exit(0)
})

export {}

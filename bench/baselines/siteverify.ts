/** A local stand-in for Turnstile siteverify that accepts every token (benchmarks only). */
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  fetch: () => Response.json({ success: true, 'error-codes': [], hostname: 'localhost' }),
})
process.on('SIGTERM', () => {
  server.stop(true)
  process.exit(0)
})

export {}

/**
 * `bun run bench web`: WEB against bare Bun.serve baselines in the same run.
 *   GET /health       vs bench/baselines/health.ts
 *   POST /api/contact vs bench/baselines/contact.ts (same JSON, same siteverify call, same insert)
 * plus RSS after load and the compiled executable's cold start to the first 200. Baseline and unit
 * alternate round by round (BENCH_ROUNDS, default 3) so a noisy moment on the shared cores hits
 * both sides.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { coldStartMs, compare, type Result, ROOT, ROUNDS, report, startBaseline, startUnit } from './lib.ts'

export default async function main(): Promise<string> {
  const siteverify = await startBaseline('siteverify', '/')
  const verifyEnv = { TURNSTILE_VERIFY_URL: `${siteverify.url}/siteverify` }
  const rows: Result[] = []
  const contactBody = JSON.stringify({
    name: 'Bench Mark',
    email: 'bench@example.com',
    interest: 'support',
    message: 'A benchmark message of ordinary length, the kind people actually send.',
    'cf-turnstile-response': 'bench-token',
  })
  const contactSpec = {
    method: 'POST' as const,
    path: '/api/contact',
    headers: { 'content-type': 'application/json' },
    body: contactBody,
  }
  try {
    const web = await startUnit('web', '/health', {
      ...verifyEnv,
      PUBLIC_BASE_URL: 'https://www.example.com',
      TURNSTILE_SECRET_KEY: 'bench-secret-not-a-test-key',
    })
    const base = await startBaseline('health', '/health')
    const contactBase = await startBaseline('contact', '/', verifyEnv)
    try {
      rows.push(...(await compare(base, web, 'GET /health', { path: '/health' })))
      rows.push(...(await compare(contactBase, web, 'POST /api/contact', contactSpec)))
    } finally {
      await Promise.all([web.stop(), base.stop(), contactBase.stop()])
    }
  } finally {
    await siteverify.stop()
  }

  const exe = join(ROOT, 'dist', 'svc')
  const notes: string[] = []
  if (existsSync(exe)) {
    const runs: number[] = []
    for (let i = 0; i < 7; i++) runs.push(await coldStartMs([exe, 'unit', 'web'], '/health'))
    runs.sort((a, b) => a - b)
    notes.push(
      `Compiled executable cold start to first 200 on /health: median ${runs[3]} ms (runs: ${runs.join(', ')} ms).`,
    )
  } else {
    notes.push('dist/svc not built: run `bun run build` first to measure the compiled cold start.')
  }
  notes.push(
    `Baseline and WEB alternate for ${ROUNDS} rounds per scenario (BENCH_ROUNDS); the table shows each side's median round, the round-by-round requests/s in brackets, and the median of the per-round ratios. CPU µs/req is the server's user+system time per request (median round).`,
    'WEB runs from source (`bun bin/svc.ts unit web`) in production posture with info logging to a discarded stdout; GET /health is a probe route, logged at debug, so it writes no log line.',
  )
  return report('WEB', rows, notes)
}

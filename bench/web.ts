/**
 * `bun run bench web`: WEB against bare Bun.serve baselines in the same run.
 *   GET /health       vs bench/baselines/health.ts
 *   POST /api/contact vs bench/baselines/contact.ts (same JSON, same siteverify call, same insert)
 * plus RSS after load and the compiled executable's cold start to the first 200.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { coldStartMs, drive, type Result, ROOT, report, startBaseline, startUnit } from './lib.ts'

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
    const base = await startBaseline('health', '/health')
    rows.push(await drive(base, 'GET /health', { path: '/health' }))
    await base.stop()

    const web = await startUnit('web', '/health', {
      ...verifyEnv,
      PUBLIC_BASE_URL: 'https://www.example.com',
      TURNSTILE_SECRET_KEY: 'bench-secret-not-a-test-key',
    })
    rows.push(await drive(web, 'GET /health', { path: '/health' }))
    rows.push(await drive(web, 'POST /api/contact', contactSpec))
    await web.stop()

    const contactBase = await startBaseline('contact', '/', verifyEnv)
    rows.push(await drive(contactBase, 'POST /api/contact', contactSpec))
    await contactBase.stop()
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
  return report('WEB', rows, notes)
}

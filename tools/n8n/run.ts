#!/usr/bin/env bun
/**
 * `npx bun tools/n8n/run.ts [install dir]`: start a real n8n (default install: tools/n8n, else
 * WTA_N8N_DIR), create its owner and an API key, import units/wta/examples, run `svc wta`
 * commands against it, print what they answered, stop n8n. Exit 0 when every command ran.
 */
import { join } from 'node:path'
import { startN8n } from './lib.ts'

const ROOT = join(import.meta.dir, '..', '..')
const dir = process.argv[2] ?? process.env.WTA_N8N_DIR ?? import.meta.dir
const n8n = await startN8n(dir, join(ROOT, 'units', 'wta', 'examples'))
console.log(
  `n8n ${n8n.version} at ${n8n.url} ready in ${n8n.startMs} ms; imported ${Object.keys(n8n.imported).length} workflows`,
)
const env = {
  ...process.env,
  SVC_DATA_DIR: join(ROOT, 'data', 'n8n-run'),
  WTA_AUTOMATION_URL: n8n.url,
  WTA_AUTOMATION_API_KEY: n8n.apiKey,
  WTA_AUTOMATION_VERSION: n8n.version,
  WTA_UPSTREAM_FILE: join(ROOT, 'units', 'wta', 'fixtures', 'upstream-2.8.4.json'),
}
let failed = 0
try {
  for (const args of [
    ['health'],
    ['status'],
    ['workflows'],
    ['baseline'],
    ['upgrade', 'impact', '--from', '1.60.0'],
    ['upgrade', 'alerts'],
  ]) {
    const proc = Bun.spawnSync([process.execPath, 'bin/svc.ts', 'wta', ...args], {
      cwd: ROOT,
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    console.log(
      `\n$ svc wta ${args.join(' ')}   (exit ${proc.exitCode})\n${proc.stdout.toString()}${proc.stderr.toString()}`,
    )
    if (proc.exitCode === 2) failed++
  }
} finally {
  await n8n.stop()
}
process.exit(failed === 0 ? 0 : 1)

import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runUnitProcess, tempDir } from '../../test/harness.ts'
import { fakeN8n } from './testing.ts'

describe('the real wta process', () => {
  test('bun run unit wta answers from the tool, guards with the token, and stops cleanly on SIGTERM', async () => {
    const n8n = fakeN8n()
    const dataDir = tempDir('svc-wta-proc-')
    const token = 'wta-process-token-0123456789'
    const proc = await runUnitProcess('wta', '/api/v1/health', {
      SVC_DATA_DIR: dataDir,
      WTA_AUTOMATION_URL: n8n.url,
      WTA_AUTOMATION_API_KEY: n8n.apiKey,
      SVC_API_TOKEN: token,
    })
    try {
      const health = (await (await fetch(`${proc.url}/api/v1/health`)).json()) as {
        automation_reachable: boolean
      }
      expect(health.automation_reachable).toBe(true)
      expect((await fetch(`${proc.url}/api/v1/workflows`)).status).toBe(401)
      const list = (await (
        await fetch(`${proc.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        data: { count: number }
      }
      expect(list.data.count).toBe(3)
      // The observer started with the process and logs to logs/events.jsonl.
      const log = join(dataDir, 'logs', 'events.jsonl')
      for (let i = 0; i < 100 && !existsSync(log); i++) await Bun.sleep(50)
      expect(readFileSync(log, 'utf8')).toContain('"kind":"observer.started"')
    } finally {
      expect(await proc.stop()).toBe(0)
      n8n.stop()
    }
    const output = await proc.output()
    expect(output).not.toContain(n8n.apiKey)
    expect(output).not.toContain(token)
  }, 20_000)
})

describe('the real svc wta command', () => {
  test('bun bin/svc.ts wta validate --file prints the verdict and exits 1 on an invalid workflow', () => {
    const run = (file: string) =>
      Bun.spawnSync(
        [
          process.execPath,
          'bin/svc.ts',
          'wta',
          'validate',
          '--file',
          join('units', 'wta', 'examples', file),
          '--json',
        ],
        {
          cwd: join(import.meta.dir, '..', '..'),
          env: { ...process.env, SVC_DATA_DIR: tempDir('svc-wta-cli-') },
        },
      )
    const ok = run('webhook-to-http.json')
    expect(ok.exitCode).toBe(0)
    expect(JSON.parse(ok.stdout.toString()).data.valid).toBe(true)
    const bad = run('code-env-sync.json')
    expect(bad.exitCode).toBe(1)
    expect(JSON.parse(bad.stdout.toString()).data.issues.map((i: { code: string }) => i.code)).toContain(
      'dangling_connection',
    )
  }, 20_000)
})

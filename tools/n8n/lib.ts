/**
 * Start a real n8n for tests: on a free port of 127.0.0.1, with a throwaway user folder, an owner
 * created through n8n's own REST (`/rest/owner/setup`), an API key from `/rest/api-keys`, and the
 * shipped example workflows imported through the public API. The install lives in its own folder
 * (tools/n8n, `npm ci --prefix tools/n8n`, or WTA_N8N_DIR), never in the project's dependencies.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RealN8n {
  url: string
  apiKey: string
  version: string
  /** Ids of the imported example workflows, by name. */
  imported: Record<string, string>
  /** How long start-up, owner, key and import took. */
  startMs: number
  logs(): string
  /** Activate a workflow through the public API (its triggers start listening). */
  activate(id: string): Promise<void>
  stop(): Promise<void>
}

const OWNER = { email: 'owner@wta.test', firstName: 'WTA', lastName: 'Owner', password: 'Wta-test-0wner' }
const SCOPES = [
  'workflow:read',
  'workflow:list',
  'workflow:create',
  'execution:read',
  'execution:list',
  'tag:read',
  'tag:list',
]
/** n8n answers /healthz after ~30 s and its REST routes ~15 s later on this machine. */
const START_TIMEOUT_MS = 240_000

function freePort(): number {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = server.port as number
  server.stop(true)
  return port
}

export function n8nBin(installDir: string): string {
  return join(installDir, 'node_modules', 'n8n', 'bin', 'n8n')
}

export async function startN8n(installDir: string, examplesDir: string): Promise<RealN8n> {
  const started = Date.now()
  const home = mkdtempSync(join(tmpdir(), 'wta-n8n-'))
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const proc = Bun.spawn(['node', n8nBin(installDir), 'start'], {
    cwd: installDir,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      N8N_USER_FOLDER: home,
      N8N_PORT: String(port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_DIAGNOSTICS_ENABLED: 'false',
      N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
      N8N_TEMPLATES_ENABLED: 'false',
      N8N_PERSONALIZATION_ENABLED: 'false',
      N8N_SECURE_COOKIE: 'false',
      N8N_HIRING_BANNER_ENABLED: 'false',
      N8N_RUNNERS_ENABLED: 'false',
      DB_SQLITE_POOL_SIZE: '1',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) output += decoder.decode(chunk)
  }
  void drain(proc.stdout)
  void drain(proc.stderr)
  const stop = async () => {
    proc.kill('SIGTERM')
    const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000)
    await proc.exited
    clearTimeout(killer)
    rmSync(home, { recursive: true, force: true })
  }
  try {
    // Poll the owner-setup route itself: /healthz answers well before the REST routes exist.
    let cookie = ''
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`n8n exited ${proc.exitCode}:\n${output.slice(-2000)}`)
      if (Date.now() - started > START_TIMEOUT_MS)
        throw new Error(`n8n did not come up in ${START_TIMEOUT_MS} ms:\n${output.slice(-2000)}`)
      const res = await fetch(`${url}/rest/owner/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(OWNER),
      }).catch(() => undefined)
      // While starting, n8n answers every path with a 200 HTML page: only a JSON answer counts.
      if (res?.ok && (res.headers.get('content-type') ?? '').includes('json')) {
        cookie = (res.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ')
        break
      }
      await Bun.sleep(1000)
    }
    const key = await fetch(`${url}/rest/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ label: 'wta', expiresAt: null, scopes: SCOPES }),
    })
    if (!key.ok) throw new Error(`n8n refused the API key: ${key.status} ${await key.text()}`)
    const apiKey = ((await key.json()) as { data: { rawApiKey: string } }).data.rawApiKey
    const imported: Record<string, string> = {}
    for (const file of readdirSync(examplesDir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const w = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as Record<string, unknown>
      const res = await fetch(`${url}/api/v1/workflows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-n8n-api-key': apiKey },
        body: JSON.stringify({
          name: w.name,
          nodes: w.nodes,
          connections: w.connections,
          settings: w.settings,
        }),
      })
      if (!res.ok) throw new Error(`n8n refused ${file}: ${res.status} ${await res.text()}`)
      imported[String(w.name)] = ((await res.json()) as { id: string }).id
    }
    // n8n 2.x tells its version (versionCli) to signed-in users only.
    const settings = (await (await fetch(`${url}/rest/settings`, { headers: { cookie } })).json()) as {
      data?: { versionCli?: string }
    }
    return {
      url,
      apiKey,
      version: settings.data?.versionCli ?? 'unknown',
      imported,
      startMs: Date.now() - started,
      logs: () => output,
      async activate(id) {
        const res = await fetch(`${url}/api/v1/workflows/${id}/activate`, {
          method: 'POST',
          headers: { 'x-n8n-api-key': apiKey },
        })
        if (!res.ok) throw new Error(`n8n refused to activate ${id}: ${res.status} ${await res.text()}`)
      },
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}

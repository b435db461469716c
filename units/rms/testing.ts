/** Test fixtures shared by the RMS tests: a fake projection layer and a booted RMS wired to it. */
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../common/runtime.ts'
import { bootForTest, type FakePeer, fakePeer, json, tempDir } from '../../test/harness.ts'
import { rms } from './index.ts'

export const TOKENS = {
  read: 'read-token-0001',
  write: 'write-token-0001',
  reviewer: 'write-token-0002',
  unknown: 'unknown-token-0001',
} as const

export const AGENT = { id: 'a-research-worker', slug: 'research-worker', subject: 'agent:research-worker' }
export const AGENT_NO_READ = { id: 'a-orchestrator', slug: 'orchestrator', subject: 'agent:orchestrator' }

export interface ProjectionLayer {
  peer: FakePeer
  version: string
  down: boolean
  setVersion(v: string): void
  resolves(): number
}

/** A projection layer (CONTRACTS.md §4) that knows four tokens and projects two agents. */
export function projectionLayer(opts: { expiresInS?: number } = {}): ProjectionLayer {
  const subjects: Record<string, { subject: string; read: boolean; write: boolean }> = {
    [TOKENS.read]: { subject: 'user:reader', read: true, write: false },
    [TOKENS.write]: { subject: 'user:writer', read: true, write: true },
    [TOKENS.reviewer]: { subject: 'user:reviewer', read: true, write: true },
  }
  const state: ProjectionLayer = {
    version: 'pv-1',
    down: false,
    setVersion(v) {
      state.version = v
    },
    resolves: () => state.peer.requests.filter((r) => r.path === '/api/v1/authority/resolve').length,
    peer: fakePeer((req) => {
      if (state.down) return new Response('unavailable', { status: 503 })
      if (req.path === '/api/v1/authority/resolve') {
        const { token } = JSON.parse(req.body) as { token: string }
        const s = subjects[token]
        if (!s) return json({ error: 'unknown token' }, 404)
        return json({
          ...s,
          projection_version: state.version,
          expires_at: new Date(Date.now() + (opts.expiresInS ?? 3600) * 1000).toISOString(),
        })
      }
      if (req.path === '/api/v1/tool-policy-projection') {
        return json({
          projection_version: state.version,
          agents: [
            { agent_id: AGENT.id, agent_slug: AGENT.slug, subject_ref: AGENT.subject, read: true },
            {
              agent_id: AGENT_NO_READ.id,
              agent_slug: AGENT_NO_READ.slug,
              subject_ref: AGENT_NO_READ.subject,
              read: false,
            },
          ],
        })
      }
      return json({ error: 'no route' }, 404)
    }),
  }
  return state
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
export const agentLane = (version: string, agentId = AGENT.id) => ({
  'x-svc-acting-agent-id': agentId,
  'x-svc-policy-projection-version': version,
})

/** RMS booted against a projection layer, on a fresh data dir seeded from the example host. */
export function bootWithProjection(layer: ProjectionLayer, env: Env = {}) {
  return bootForTest(rms, {
    SVC_CONTEXT_BASE_URL: layer.peer.url,
    RMS_AUTHORITY_TIMEOUT_MS: '500',
    RMS_HOST_SCAN_CACHE_MS: '0',
    ...env,
  })
}

export const LOCAL_TOKENS = `${TOKENS.read}:user:reader:r,${TOKENS.write}:user:writer:rw,${TOKENS.reviewer}:user:reviewer:rw`

/** RMS in local-token mode (no projection layer), as development and test allow. */
export function bootLocal(env: Env = {}) {
  return bootForTest(rms, { RMS_LOCAL_TOKENS: LOCAL_TOKENS, RMS_HOST_SCAN_CACHE_MS: '0', ...env })
}

/** A copy of the example host in a temp dir, for tests that edit host files. */
export function exampleHostCopy(): string {
  const dir = join(tempDir('svc-rms-host-'), 'host')
  cpSync(join(import.meta.dir, '../../examples/runtime-host'), dir, { recursive: true })
  return dir
}

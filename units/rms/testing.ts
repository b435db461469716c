/** Test fixtures shared by the RMS tests: a fake projection layer and a booted RMS wired to it. */
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../runtime/run.ts'
import { bootForTestAsync, type FakePeer, fakePeer, json, tempDir } from '../../test/harness.ts'
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

/** A projection layer (docs/conventions.md §4) that knows four tokens and projects two agents. */
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
  return bootForTestAsync(rms, {
    SVC_CONTEXT_BASE_URL: layer.peer.url,
    RMS_AUTHORITY_TIMEOUT_MS: '500',
    RMS_AUTHORITY_RETRY_MS: '0',
    RMS_HOST_SCAN_CACHE_MS: '0',
    ...env,
  })
}

export const LOCAL_TOKENS = `${TOKENS.read}:user:reader:r,${TOKENS.write}:user:writer:rw,${TOKENS.reviewer}:user:reviewer:rw`

/** RMS in local-token mode (no projection layer), as development and test allow. */
export function bootLocal(env: Env = {}) {
  return bootForTestAsync(rms, { RMS_LOCAL_TOKENS: LOCAL_TOKENS, RMS_HOST_SCAN_CACHE_MS: '0', ...env })
}

/** A copy of the example host in a temp dir, for tests that edit host files. */
export function exampleHostCopy(): string {
  const dir = join(tempDir('svc-rms-host-'), 'host')
  cpSync(join(import.meta.dir, '../../examples/runtime-host'), dir, { recursive: true })
  return dir
}

export type Level = 'read' | 'write'
export interface RouteCase {
  method: 'GET' | 'POST'
  path: string
  level: Level
  body?: unknown
}

const R = (path: string): RouteCase => ({ method: 'GET', path, level: 'read' })
const RP = (path: string, body: unknown): RouteCase => ({ method: 'POST', path, level: 'read', body })
const W = (path: string, body: unknown = {}): RouteCase => ({ method: 'POST', path, level: 'write', body })

/** Every internal route of the spec's RMS Endpoints part, plus the execution approvals lane. */
export const INTERNAL_ROUTES: RouteCase[] = [
  RP('/api/v1/classify', { text: 'a refund ticket from a customer' }),
  RP('/api/v1/setup/preview', { domain_id: 'research', profile_id: 'research-pair' }),
  R('/api/v1/domains'),
  R('/api/v1/domains/support/profiles'),
  W('/api/v1/domains/research/setup', { profile_id: 'research-pair' }),
  R('/api/v1/runtime/inventory'),
  R('/api/v1/topology/current'),
  R('/api/v1/topology/diff'),
  R('/api/v1/drift/summary'),
  R('/metrics'),
  W('/api/v1/runtime-host/patch/plan', {}),
  W('/api/v1/runtime-host/patch/apply', { plan_id: 'no-such-plan' }),
  R('/api/v1/agent-runtime/catalog'),
  R('/api/v1/agent-runtime/catalog/a-orchestrator'),
  R('/api/v1/agent-runtime/team-handoff-policies'),
  R('/api/v1/agent-runtime/team-handoff-policies/orchestrator'),
  R('/api/v1/agent-runtime/delegations'),
  R('/api/v1/agent-runtime/delegation-state'),
  R('/api/v1/agent-runtime/readiness'),
  R('/api/v1/audit/events'),
  R('/api/v1/rollouts/audit'),
  R('/api/v1/rollouts/history'),
  R('/api/v1/control-agent/status'),
  R('/api/v1/control-agent/leases'),
  R('/api/v1/control-agent/watchdog'),
  R('/api/v1/control-agent/schedule'),
  W('/api/v1/control-agent/reconcile'),
  W('/api/v1/control-agent/dispatch-preview', { text: 'compare two research reports' }),
  R('/api/v1/persistent-agents'),
  R('/api/v1/persistent-agents/support-desk'),
  R('/api/v1/persistent-agents/support-desk/learning-proposals'),
  W('/api/v1/persistent-agents/support-desk/learning-proposals', {
    change: { summary: 'shorter replies', settings: { tone: 'brief' } },
  }),
  W('/api/v1/persistent-agents/support-desk/learning-proposals/no-such-proposal/review', {
    decision: 'approved',
    reason: 'ok',
  }),
  W('/api/v1/persistent-agents/support-desk/learning-proposals/no-such-proposal/activate'),
  R('/api/v1/tool-profiles'),
  R('/api/v1/agent-tool-policies'),
  R('/api/v1/agent-tool-policies/orchestrator'),
  R('/api/v1/voice/targets'),
  R('/api/v1/voice/targets/default'),
  R('/api/v1/voice/targets/support-desk'),
  R('/api/v1/voice/library-governance'),
  R('/api/v1/workspaces/persistent'),
  W('/api/v1/execution/approvals', {
    proposal_ref: 'als:proposal:1',
    decision: 'pending',
    policy_approved: false,
    human_approved: false,
  }),
  R('/api/v1/execution/approvals'),
  R('/api/v1/execution/approvals/no-such-approval'),
]

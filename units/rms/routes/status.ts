import { Elysia, type Static } from 'elysia'
import { jsonView, timedView } from '../../../common/json-view.ts'
import { nowIso } from '../../../common/time.ts'
import { buildCommit } from '../../../common/version.ts'
import type { Storage } from '../../../db/storage.ts'
import type { AuthorityService } from '../authority.ts'
import type { ControlAgent } from '../control.ts'
import { Health, Manifest, Ready, Version } from '../model.ts'
import type { RuntimeService } from '../service/runtime.ts'

export interface StatusDeps {
  storage: Storage
  version: string
  migrationHead: string
  ephemeral: boolean
  seeded: boolean
  authority: AuthorityService
  runtime: RuntimeService
  control: ControlAgent
  manifest: ReturnType<typeof import('../manifest.ts').shippedManifest>
}

export const CAPABILITY_KEYS = [
  'classification',
  'domain_setup',
  'runtime_inventory',
  'topology',
  'drift',
  'runtime_host_patch',
  'audit',
  'rollouts',
  'control_agent',
  'agent_federation',
  'persistent_agents',
  'learning_proposals',
  'tool_policies',
  'voice',
  'execution_approvals',
]

/** The open self-description routes (spec Authentication §1). */
export const statusRoutes = (deps: StatusDeps) => {
  // Fixed for the life of the process: served as bytes checked and serialized once.
  const versionDoc = {
    service: 'rms' as const,
    version: deps.version,
    api_version: 'v1' as const,
    api_anchor: '/api/v1' as const,
    commit: buildCommit(),
    image_tag: `sha-${buildCommit().slice(0, 12)}`,
    branch_tag: 'main' as const,
    migration_head: deps.migrationHead,
    manifest: { path: '/platform-manifest.json', manifest_version: deps.manifest.manifest_version },
    version_sources: ['package.json', '/platform-manifest.json', 'db/migrations/rms'],
  }
  const version = jsonView(Version, () => versionDoc)
  return new Elysia({ name: 'rms:status' })
    .get(
      '/health',
      timedView(Health, (now) => ({
        status: 'ok' as const,
        service: 'rms' as const,
        version: deps.version,
        checked_at: now,
      })),
      {
        response: { 200: Health },
        detail: { summary: 'Liveness' },
      },
    )
    .get(
      '/ready',
      async ({ set }) => {
        const authority = deps.authority.status()
        // Keep the held projection fresh so /ready reports what the agent lane would see.
        if (authority.projection_layer_configured && authority.tool_policy_projection.state !== 'current') {
          await deps.authority.refreshProjection()
        }
        const a = deps.authority.status()
        const db = await deps.storage.ready()
        const host = deps.runtime.snapshot()
        // The lease and the watchdog live in the database: one that does not answer holds no lease
        // here (the control agent cannot renew it either), so the loop is on standby.
        const control = db
          ? await Promise.all([deps.control.watchdog(), deps.control.holdsLease()]).catch(() => null)
          : null
        const watchdog = control?.[0] ?? { state: 'standby' as const, detail: '' }
        const warnings: string[] = []
        if (!db || !control) warnings.push('the database does not answer: writes fail with 503')
        let degraded = a.degraded
        if (!a.projection_layer_configured) {
          warnings.push(
            a.degraded
              ? 'SVC_CONTEXT_BASE_URL is not set: reads are degraded (local tokens only) and writes fail closed'
              : 'SVC_CONTEXT_BASE_URL is not set: authority comes from RMS_LOCAL_TOKENS (authority_source local)',
          )
        } else if (a.projection_layer_reachable === false) {
          warnings.push(
            'the projection layer is unreachable: reads are degraded, writes and control fail closed',
          )
        }
        if (a.projection_layer_configured && a.tool_policy_projection.state !== 'current') {
          warnings.push(
            `tool-policy projection is ${a.tool_policy_projection.state}: the agent lane fails closed`,
          )
        }
        if (!host.readable)
          warnings.push(
            `runtime host unreadable (${host.error}): federation reads fall back to the desired state`,
          )
        if (host.invalid.length > 0) {
          warnings.push(`${host.invalid.length} runtime host file(s) do not validate`)
          degraded = true
        }
        if (watchdog.state === 'stalled' || watchdog.state === 'overdue') {
          warnings.push(`control-agent watchdog: ${watchdog.detail}`)
          degraded = true
        }
        if (deps.ephemeral) warnings.push('the database is in memory: desired state is lost on restart')
        const status = !db || !control || !host.readable ? 'not_ready' : degraded ? 'degraded' : 'ready'
        if (status === 'not_ready') set.status = 503
        return {
          status: status as 'ready' | 'degraded' | 'not_ready',
          service: 'rms' as const,
          checked_at: nowIso(),
          warnings,
          capability_keys: CAPABILITY_KEYS,
          self_description: {
            health: '/health',
            version: '/version',
            manifest: '/platform-manifest.json',
            openapi: '/openapi.json',
          },
          authority: a,
          persistence: {
            database: db && control !== null,
            mode: deps.ephemeral ? ('ephemeral' as const) : ('durable' as const),
            migration_head: deps.migrationHead,
          },
          runtime_host: {
            readable: host.readable,
            error: host.error,
            seeded_from_example: deps.seeded,
          },
          control_agent: {
            loop_running: deps.control.loopRunning(),
            holds_lease: control?.[1] ?? false,
            watchdog: watchdog.state,
          },
        } satisfies Static<typeof Ready>
      },
      { response: Ready, detail: { summary: 'Readiness, authority source and version, warnings' } },
    )
    .get('/version', version, { response: { 200: Version }, detail: { summary: 'Canonical version' } })
    .get('/api/v1/version', version, {
      response: { 200: Version },
      detail: { summary: 'Version (versioned path)' },
    })
    .get('/platform-manifest.json', () => deps.manifest, {
      response: { 200: Manifest },
      detail: { summary: 'Shipped platform manifest' },
    })
}

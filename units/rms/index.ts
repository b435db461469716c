import { join } from 'node:path'
import { Type as T } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import { urlString } from '../../common/config.ts'
import { errorFields } from '../../common/logger.ts'
import { Gauge, PROMETHEUS_CONTENT_TYPE } from '../../common/metrics.ts'
import { migrations } from '../../db/migrations/rms/index.ts'
import type { Storage } from '../../db/storage.ts'
import { defineUnit } from '../../runtime/unit.ts'
import { authorityPlugin, SECURITY_SCHEMES } from './authority.ts'
import { createControlAgent, scrapeSafely } from './control.ts'
import { shippedManifest } from './manifest.ts'
import { meta } from './meta.ts'
import { auditRoutes } from './routes/audit.ts'
import { controlRoutes } from './routes/control.ts'
import { executionRoutes } from './routes/execution.ts'
import { federationRoutes } from './routes/federation.ts'
import { persistentRoutes } from './routes/persistent.ts'
import { policyRoutes } from './routes/policies.ts'
import { READ_ERRORS, runtimeRoutes } from './routes/runtime.ts'
import { setupRoutes } from './routes/setup.ts'
import { statusRoutes } from './routes/status.ts'
import { SEVERITIES } from './rules/drift.ts'
import { parseLocalTokens } from './rules/local-tokens.ts'
import { createAuthority } from './service/authority.ts'
import { createRuntime, seedHostDir } from './service/runtime.ts'
import * as store from './store.ts'

/** The spec's cadence floor: reconcile and watchdog never run more often than once a minute. */
export const MIN_CADENCE_S = 60

const seconds = (min: number, max: number, dflt: number, what: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description: `${what}: seconds ${min}-${max}` })

const env = {
  SVC_CONTEXT_BASE_URL: T.Optional(urlString('the projection layer base URL')),
  SVC_CONTEXT_AUTH_TOKEN: T.Optional(
    T.String({ minLength: 1, description: 'bearer token for the projection layer' }),
  ),
  RMS_LOCAL_TOKENS: T.Optional(
    T.String({
      minLength: 1,
      description: 'token:subject:r|rw entries, comma separated (used when SVC_CONTEXT_BASE_URL is unset)',
    }),
  ),
  RMS_RUNTIME_HOST_DIR: T.Optional(T.String({ minLength: 1, description: 'the runtime host directory' })),
  RMS_AUTHORITY_CACHE_TTL_S: seconds(
    1,
    3600,
    60,
    'bounded age of cached token resolutions and the tool-policy projection',
  ),
  RMS_AUTHORITY_DEGRADED_MAX_AGE_S: seconds(
    0,
    86_400,
    900,
    'how long a cached resolution may serve degraded reads',
  ),
  RMS_AUTHORITY_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 30_000,
    default: 2000,
    description: 'milliseconds 100-30000',
  }),
  RMS_AUTHORITY_RETRY_MS: T.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 2000,
    description: 'milliseconds 0-60000 before a failed projection layer is asked again',
  }),
  RMS_RECONCILE_INTERVAL_S: seconds(MIN_CADENCE_S, 86_400, 120, 'reconcile cadence (never below 60)'),
  RMS_LEASE_DURATION_S: seconds(MIN_CADENCE_S, 86_400, 360, 'reconcile lease duration (above the interval)'),
  RMS_WATCHDOG_INTERVAL_S: seconds(MIN_CADENCE_S, 86_400, 60, 'watchdog cadence (never below 60)'),
  RMS_WATCHDOG_STALL_S: seconds(10, 86_400, 120, 'a reconcile running longer than this is stalled'),
  RMS_APPROVAL_TTL_S: seconds(60, 2_592_000, 86_400, 'default validity of an execution approval'),
  RMS_EVENT_SINK_URL: T.Optional(urlString('where the outbox delivers audit events')),
  RMS_EVENT_SINK_TOKEN: T.Optional(
    T.String({ minLength: 1, description: 'bearer token for the event sink' }),
  ),
  RMS_HOST_SCAN_CACHE_MS: T.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 250,
    description: 'milliseconds 0-60000 a host directory scan is reused by reads',
  }),
  RMS_CONTROL_AGENT_ENABLED: T.Boolean({
    default: true,
    description: 'true or false: run the reconcile loop',
  }),
}

export const rms = defineUnit({
  kind: 'http',
  ...meta,
  securitySchemes: SECURITY_SCHEMES,
  description:
    'Manages an agent runtime host (inventory, topology, drift, patches), runs a control agent, and publishes the federation, policy and voice read contracts. Authority is projected, never local.',
  env,
  migrations,
  libsql: true,
  validate(c) {
    const problems = parseLocalTokens(c.RMS_LOCAL_TOKENS).problems
    if (c.RMS_LEASE_DURATION_S <= c.RMS_RECONCILE_INTERVAL_S) {
      problems.push(
        'RMS_LEASE_DURATION_S: must be longer than RMS_RECONCILE_INTERVAL_S so the holder renews before expiry',
      )
    }
    if (c.SVC_CONTEXT_AUTH_TOKEN && !c.SVC_CONTEXT_BASE_URL) {
      problems.push('SVC_CONTEXT_AUTH_TOKEN: set only together with SVC_CONTEXT_BASE_URL')
    }
    if (c.SVC_ENV === 'production' && c.RMS_LOCAL_TOKENS && /:(rw|w)(,|$)/.test(c.RMS_LOCAL_TOKENS)) {
      problems.push(
        'RMS_LOCAL_TOKENS: write tokens are not allowed in production (local tokens serve degraded reads only)',
      )
    }
    return problems
  },
  build(ctx) {
    const c = ctx.config
    const production = c.SVC_ENV === 'production'
    const hostDir = c.RMS_RUNTIME_HOST_DIR ?? join(c.SVC_DATA_DIR, 'runtime-host')
    const seeded = c.RMS_RUNTIME_HOST_DIR ? false : seedHostDir(hostDir)
    const ephemeral = c.DATABASE_URL === ':memory:'
    const sinkConfigured = Boolean(c.RMS_EVENT_SINK_URL)
    const registry = ctx.metrics.registry
    const storage = store.guardedStorage(ctx.storage, (err) =>
      ctx.log.error({ err: errorFields(err) }, 'storage failure'),
    )

    const authority = createAuthority({
      baseUrl: c.SVC_CONTEXT_BASE_URL?.replace(/\/+$/, ''),
      authToken: c.SVC_CONTEXT_AUTH_TOKEN,
      production,
      localTokens: parseLocalTokens(c.RMS_LOCAL_TOKENS).tokens,
      cacheTtlS: c.RMS_AUTHORITY_CACHE_TTL_S,
      degradedMaxAgeS: c.RMS_AUTHORITY_DEGRADED_MAX_AGE_S,
      timeoutMs: c.RMS_AUTHORITY_TIMEOUT_MS,
      retryAfterMs: c.RMS_AUTHORITY_RETRY_MS,
      registry,
    })
    const auth = authorityPlugin(authority)
    const runtime = createRuntime({
      storage,
      hostDir,
      sinkConfigured,
      scanCacheMs: c.RMS_HOST_SCAN_CACHE_MS,
    })
    // On the storage, so before the first request: an empty database adopts the host as found.
    const starting = runtime.adoptIfEmpty().then((adopted) => {
      if (adopted > 0)
        ctx.log.info({ resources: adopted, host_dir: hostDir }, 'desired state adopted from the runtime host')
    })
    const control = createControlAgent({
      storage,
      log: ctx.log,
      registry,
      runtime,
      authority,
      intervalS: c.RMS_RECONCILE_INTERVAL_S,
      leaseDurationS: c.RMS_LEASE_DURATION_S,
      stallAfterS: c.RMS_WATCHDOG_STALL_S,
      watchdogIntervalS: c.RMS_WATCHDOG_INTERVAL_S,
      sink: c.RMS_EVENT_SINK_URL
        ? { url: c.RMS_EVENT_SINK_URL, token: c.RMS_EVENT_SINK_TOKEN, timeoutMs: c.RMS_AUTHORITY_TIMEOUT_MS }
        : undefined,
    })
    registerGauges(ctx, storage, runtime, ephemeral)

    const manifest = shippedManifest()
    const routes = new Elysia({ name: 'rms:routes' })
      .use(
        statusRoutes({
          storage,
          version: ctx.version,
          migrationHead: migrations[migrations.length - 1]?.tag ?? 'none',
          ephemeral,
          seeded,
          authority,
          runtime,
          control,
          manifest,
        }),
      )
      .use(runtimeRoutes({ storage, auth, runtime, ephemeral }))
      .use(setupRoutes({ storage, auth, runtime }))
      .use(federationRoutes({ auth, runtime }))
      .use(auditRoutes({ storage, auth }))
      .use(
        controlRoutes({
          storage,
          auth,
          control,
          runtime,
          intervalS: c.RMS_RECONCILE_INTERVAL_S,
          minimumIntervalS: MIN_CADENCE_S,
          leaseDurationS: c.RMS_LEASE_DURATION_S,
          stallAfterS: c.RMS_WATCHDOG_STALL_S,
          watchdogIntervalS: c.RMS_WATCHDOG_INTERVAL_S,
        }),
      )
      .use(persistentRoutes({ storage, auth, runtime, sinkConfigured }))
      .use(policyRoutes({ auth, authority, runtime }))
      .use(executionRoutes({ storage, auth, approvalTtlS: c.RMS_APPROVAL_TTL_S, sinkConfigured }))
      .use(
        new Elysia({ name: 'rms:metrics' }).use(auth).get(
          '/metrics',
          async () =>
            new Response(await registry.metrics(), {
              headers: { 'content-type': PROMETHEUS_CONTENT_TYPE },
            }),
          {
            access: 'read',
            response: {
              200: t.String({ description: 'Prometheus text exposition format 0.0.4' }),
              ...READ_ERRORS,
            },
            detail: { summary: 'Prometheus metrics (authenticated)' },
          },
        ),
      )
    return { routes, starting, background: c.RMS_CONTROL_AGENT_ENABLED ? [control.task] : [] }
  },
})

/** Service, persistence, runtime, drift, outbox and persistent-governance gauges, computed at scrape. */
function registerGauges(
  ctx: Parameters<(typeof rms)['build']>[0],
  storage: Storage,
  runtime: ReturnType<typeof createRuntime>,
  ephemeral: boolean,
) {
  const registers = [ctx.metrics.registry]
  new Gauge({
    name: 'svc_service_info',
    help: 'Always 1; labels carry the running version.',
    labelNames: ['version'] as const,
    registers,
    collect() {
      this.set({ version: ctx.version }, 1)
    },
  })
  new Gauge({
    name: 'svc_persistence_ready',
    help: '1 when the database answers and the last write did not fail.',
    labelNames: ['mode'] as const,
    registers,
    async collect() {
      this.set({ mode: ephemeral ? 'ephemeral' : 'durable' }, (await storage.ready()) ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_runtime_host_readable',
    help: '1 when the runtime host directory can be read.',
    registers,
    collect() {
      this.set(runtime.snapshot().readable ? 1 : 0)
    },
  })
  new Gauge({
    name: 'svc_rms_runtime_agents',
    help: 'Agents on the runtime host, by lifecycle state.',
    labelNames: ['lifecycle_state'] as const,
    registers,
    async collect() {
      this.reset()
      await scrapeSafely(async () => {
        for (const a of (await runtime.catalog()).agents) this.inc({ lifecycle_state: a.lifecycle_state })
      })
    },
  })
  new Gauge({
    name: 'svc_rms_drift_items',
    help: 'Drift between desired state and runtime host, by severity.',
    labelNames: ['severity'] as const,
    registers,
    async collect() {
      await scrapeSafely(async () => {
        const d = (await runtime.drift()).summary
        for (const s of SEVERITIES) this.set({ severity: s }, d.counts[s])
      })
    },
  })
  new Gauge({
    name: 'svc_rms_outbox_events',
    help: 'Audit events in the outbox, by state.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      await scrapeSafely(async () => {
        const o = await store.outboxCounts(storage)
        this.set({ state: 'pending' }, o.pending)
        this.set({ state: 'delivered' }, o.delivered)
        this.set({ state: 'dead' }, o.dead)
      })
    },
  })
  new Gauge({
    name: 'svc_rms_persistent_agents',
    help: 'Persistent agents declared on the runtime host.',
    registers,
    async collect() {
      await scrapeSafely(async () =>
        this.set((await runtime.catalog()).agents.filter((a) => a.persistent).length),
      )
    },
  })
  new Gauge({
    name: 'svc_rms_learning_proposals',
    help: 'Learning proposals, by state.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      await scrapeSafely(async () => {
        const counts = new Map((await store.proposalCounts(storage.db)).map((r) => [r.state, r.n]))
        for (const s of ['pending_review', 'approved', 'rejected'])
          this.set({ state: s }, counts.get(s as never) ?? 0)
      })
    },
  })
}

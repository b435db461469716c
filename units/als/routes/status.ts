import { Elysia, t } from 'elysia'
import { CACHED_VIEW, jsonView, jsonViews } from '../../../common/json-view.ts'
import { PROMETHEUS_CONTENT_TYPE, type Registry } from '../../../common/metrics.ts'
import { buildCommit } from '../../../common/version.ts'
import { boundedSnapshot } from '../../../db/snapshot.ts'
import { PlatformManifest, type shippedManifest } from '../manifest.ts'
import type { AlsMetrics } from '../metrics.ts'
import { ContractsView, HealthResponse, Readiness, VersionResponse } from '../model.ts'
import { effectiveMode } from '../rules/modes.ts'
import type { AlsDeps } from '../service/deps.ts'
import { contractsView, readiness, statusSnapshot } from '../service/status.ts'

export interface StatusRouteDeps {
  deps: AlsDeps
  manifest: ReturnType<typeof shippedManifest>
  registry: Registry
  metrics: AlsMetrics
}

/** The one source of ALS's cached views: their variant (the effective mode, the families) says what changed. */
const PROCESS = {}
const HEALTH = { status: 'ok' as const, service: 'als' as const }

export const statusRoutes = ({ deps, manifest, registry, metrics }: StatusRouteDeps) => {
  const versionView = jsonViews(VersionResponse)
  // /version's effective mode asks the database at most once per STATUS_MAX_AGE_MS.
  const persistenceReady = boundedSnapshot(() => deps.persistence.ready())
  const contractsViews = jsonViews(ContractsView)
  return new Elysia({ name: 'als:status' })
    .get(
      '/health',
      jsonView(HealthResponse, () => HEALTH),
      {
        response: { 200: HealthResponse },
        detail: { summary: 'Liveness: always ok, even with persistence down' },
      },
    )
    .get('/ready', () => readiness(deps), {
      response: { 200: Readiness },
      detail: { summary: 'Readiness model (200 even when degraded)' },
    })
    .get('/api/v1/learning/readiness', () => readiness(deps), {
      response: { 200: Readiness },
      detail: { summary: 'Readiness model, same as /ready' },
    })
    .get(
      '/version',
      async ({ request, set }) => {
        const ready = persistenceReady.current() ?? (await persistenceReady.get())
        const mode = effectiveMode(deps.settings.serviceMode, ready)
        return versionView({ request, set }, PROCESS, mode, () => ({
          service: 'als' as const,
          version: deps.version,
          effective_service_mode: mode,
          configured_service_mode: deps.settings.serviceMode,
          commit: buildCommit(),
        }))
      },
      {
        response: { 200: VersionResponse },
        detail: { summary: 'Version and effective service mode', ...CACHED_VIEW },
      },
    )
    .get(
      '/platform-manifest.json',
      jsonView(PlatformManifest, () => manifest),
      {
        response: { 200: PlatformManifest },
        detail: { summary: 'Shipped manifest (service metadata, not governance truth)' },
      },
    )
    .get(
      '/api/v1/learning/contracts',
      async ({ request, set }) => {
        // The view is fixed apart from the families and the effective mode: cached per what it
        // shows of them (state and fetch time decide the lists and the version; `age_ms`, which
        // changes every millisecond, is not shown).
        const families = await deps.families.ensureFresh()
        const mode = effectiveMode(deps.settings.serviceMode, await deps.persistence.ready())
        const variant = `${mode} ${families.state} ${families.fetched_at}`
        return contractsViews({ request, set }, PROCESS, variant, () => contractsView(deps, families, mode))
      },
      {
        response: { 200: ContractsView },
        detail: { summary: 'Derived contract status; families from the PRS matrix only', ...CACHED_VIEW },
      },
    )
    .get(
      '/metrics',
      async () => {
        const snap = await statusSnapshot(deps)
        const reasons: string[] = []
        if (!snap.persistenceReady) reasons.push('persistence_unavailable')
        if (snap.families.state !== 'fresh') reasons.push(`registry_${snap.families.state}`)
        metrics.observe(snap)
        metrics.setDegraded(reasons)
        return new Response(await registry.metrics(), {
          headers: { 'content-type': PROMETHEUS_CONTENT_TYPE },
        })
      },
      {
        response: { 200: t.String({ description: 'Prometheus text exposition format 0.0.4' }) },
        detail: { summary: 'Prometheus metrics; svc_metrics_degraded only while degraded' },
      },
    )
}

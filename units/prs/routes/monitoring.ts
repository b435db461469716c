import { Elysia } from 'elysia'
import { timedView } from '../../../common/json-view.ts'
import { metricsRoute } from '../../../common/routes.ts'
import { nowIso } from '../../../common/time.ts'
import { HealthResponse, MonitoringResponse } from '../model.ts'
import type { PrsDeps } from '../service/deps.ts'
import { observationCount } from '../store.ts'

const counterValue = async (
  c: { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> },
  match?: [string, string],
) =>
  (await c.get()).values
    .filter((v) => !match || v.labels[match[0]] === match[1])
    .reduce((n, v) => n + v.value, 0)

export const monitoringRoutes = (deps: PrsDeps, registry: Parameters<typeof metricsRoute>[0]) => {
  const { views } = deps
  return new Elysia({ name: 'prs:monitoring' })
    .get(
      '/health',
      timedView(HealthResponse, (now) => ({
        status: 'ok' as const,
        service: 'prs' as const,
        version: deps.version,
        contract_version: views.contract_version,
        units: views.contracts.length,
        observed_units: Object.keys(views.urls).length,
        generated_at: now,
      })),
      { response: { 200: HealthResponse }, detail: { summary: 'Liveness' } },
    )
    .get(
      '/api/v1/monitoring/metrics',
      async () => {
        const services = views.services()
        const matrix = views.matrix()
        const drift = views.drift()
        const stats = deps.observer.stats()
        return {
          generated_at: nowIso(),
          contract_version: views.contract_version,
          units: {
            total: services.length,
            http: services.filter((s) => s.kind === 'http').length,
            observed: services.filter((s) => s.url !== null).length,
            up: services.filter((s) => s.state === 'up').length,
            down: services.filter((s) => s.state === 'down').length,
          },
          families: {
            produced: matrix.producer_families.length,
            consumed: matrix.consumer_families.length,
            external: matrix.external_families.length,
            unresolved: matrix.unresolved.length,
          },
          drift: { blocking: drift.blocking_count, warnings: drift.warning_count },
          observations: {
            stored: await observationCount(deps.storage),
            rounds: stats.rounds,
            last_round_at: stats.last_round_at,
          },
          checks: {
            compatibility_checks: await counterValue(deps.counters.compatibility),
            compatibility_incompatible: await counterValue(deps.counters.compatibility, [
              'result',
              'incompatible',
            ]),
            admission_dry_runs: await counterValue(deps.counters.admission),
            admission_admissible: await counterValue(deps.counters.admission, ['verdict', 'admissible']),
          },
          policy: {
            signoff_status: views.signoff().status,
            identity_surfaces_admitted: views
              .identityAdmission()
              .surfaces.filter((s) => s.verdict === 'admitted').length,
            optional_slices: views.slices().slices.length,
            optional_slice_conflicts: views.slices().slices.filter((s) => s.status === 'conflict').length,
            combination_profiles_incomplete: views
              .profiles()
              .profiles.filter((p) => p.status === 'incomplete').length,
          },
          cache: views.stats(),
        }
      },
      { response: { 200: MonitoringResponse }, detail: { summary: 'Tool and policy metrics (JSON)' } },
    )
    .use(metricsRoute(registry))
}

import { Elysia } from 'elysia'
import { ErrorEnvelope } from '../../../common/errors.ts'
import { jsonView } from '../../../common/json-view.ts'
import { nowIso } from '../../../common/time.ts'
import {
  AdmissionRequest,
  AdmissionResponse,
  HostSnapshotResponse,
  IdentityAdmissionResponse,
  RuntimeContractsResponse,
  RuntimeEvidenceQuery,
  RuntimeEvidenceResponse,
  RuntimeObservationsResponse,
  RuntimeStatusResponse,
} from '../model.ts'
import { dryRunAdmission } from '../service/checks.ts'
import type { PrsDeps } from '../service/deps.ts'
import { observationCount, observationHistory, versionCount } from '../store.ts'

export const toolRoutes = (deps: PrsDeps) => {
  const { views } = deps
  return new Elysia({ name: 'prs:tools', prefix: '/api/v1' })
    .get(
      '/tools/host-snapshot',
      async () => {
        const ready = await deps.storage.ready()
        return {
          generated_at: nowIso(),
          contract_version: views.contract_version,
          service: 'prs' as const,
          version: deps.version,
          pid: process.pid,
          runtime: `bun ${Bun.version}`,
          platform: `${process.platform}-${process.arch}`,
          started_at: deps.startedAt,
          uptime_s: Math.round(process.uptime() * 10) / 10,
          memory_rss_bytes: process.memoryUsage().rss,
          database: {
            ready,
            observations: ready ? await observationCount(deps.storage) : 0,
            registered_versions: ready ? await versionCount(deps.storage) : 0,
          },
          observer: {
            interval_ms: deps.observe.intervalMs,
            timeout_ms: deps.observe.timeoutMs,
            keep_per_surface: deps.observe.keep,
            configured_units: Object.keys(views.urls),
            ...deps.observer.stats(),
          },
          cache: views.stats(),
        }
      },
      { response: { 200: HostSnapshotResponse }, detail: { summary: 'Host snapshot of the PRS process' } },
    )
    .get('/tools/runtime-status', jsonView(RuntimeStatusResponse, views.runtimeStatus), {
      response: { 200: RuntimeStatusResponse },
      detail: { summary: 'Runtime status of the observed units' },
    })
    .get(
      '/tools/runtime-evidence',
      async ({ query }) => {
        const limit = query.limit ?? 100
        return {
          generated_at: nowIso(),
          contract_version: views.contract_version,
          unit: query.unit ?? null,
          limit,
          observations: await observationHistory(deps.storage, { unit: query.unit, limit }),
        }
      },
      {
        query: RuntimeEvidenceQuery,
        response: { 200: RuntimeEvidenceResponse, 400: ErrorEnvelope },
        detail: { summary: 'Stored observation history with timestamps, newest first' },
      },
    )
    .get('/tools/runtime-contracts', jsonView(RuntimeContractsResponse, views.runtimeContracts), {
      response: { 200: RuntimeContractsResponse },
      detail: { summary: 'Runtime contracts of every unit with what was observed' },
    })
    .get('/tools/runtime-observations', jsonView(RuntimeObservationsResponse, views.runtimeObservations), {
      response: { 200: RuntimeObservationsResponse },
      detail: { summary: 'Newest observation of every unit surface' },
    })
    .post(
      '/tools/admission/dry-run',
      async ({ body }) => {
        const result = await dryRunAdmission(views, deps.storage, body, {
          verifyTimeoutMs: deps.verifyTimeoutMs,
        })
        deps.counters.admission.inc({ verdict: result.verdict })
        return { generated_at: nowIso(), contract_version: views.contract_version, ...result }
      },
      {
        body: AdmissionRequest,
        response: { 200: AdmissionResponse, 400: ErrorEnvelope },
        detail: { summary: 'Admission dry-run: the six review steps, verdict per step; nothing persisted' },
      },
    )
    .get(
      '/identity/contracts/surface-admission',
      jsonView(IdentityAdmissionResponse, views.identityAdmission),
      {
        response: { 200: IdentityAdmissionResponse },
        detail: { summary: 'Identity surface admission' },
      },
    )
}

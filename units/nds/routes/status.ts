import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { jsonView } from '../../../common/json-view.ts'
import { boundedSnapshot, snapshotView } from '../../../db/snapshot.ts'
import {
  ExternalApiContract,
  HealthInfo,
  HealthLive,
  HealthReady,
  PlatformMetadata,
  ReleaseNotices,
} from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import { externalApiContract, info, platformMetadata, readiness, releaseNotices } from '../service/status.ts'

export const statusRoutes = (deps: NdsDeps, workerRunning: () => boolean) => {
  // Fixed for the life of the process: served as cached views (checked and serialized once).
  const metadata = platformMetadata(deps)
  const contract = externalApiContract()
  const notices = releaseNotices()
  // Its counts read at most once per STATUS_MAX_AGE_MS, and at once after this process wrote.
  const infoSnapshot = boundedSnapshot(() => info(deps), { version: deps.store.writeCount })
  return new Elysia({ name: 'nds:status' })
    .get('/v1/health/live', () => ({ status: 'ok' as const, service: 'nds' as const }), {
      response: { 200: HealthLive },
      detail: { summary: 'Liveness' },
    })
    .get(
      '/v1/health/ready',
      async ({ set }) => {
        const r = await readiness(deps, workerRunning)
        if (!r.ready) set.status = 503
        return r.body
      },
      {
        response: { 200: HealthReady, 503: HealthReady },
        detail: { summary: 'Readiness: database and ingest worker (503 when not ready)' },
      },
    )
    .get('/v1/health/info', snapshotView(HealthInfo, infoSnapshot), {
      response: { 200: HealthInfo },
      detail: {
        summary: 'Non-secret runtime readback: environment, dependency targets, counts, runtime_config',
      },
    })
    .get(
      '/v1/platform/metadata',
      jsonView(PlatformMetadata, () => metadata),
      {
        response: { 200: PlatformMetadata },
        detail: { summary: 'Platform metadata (the spec publishes /v1/fabric/metadata under this path)' },
      },
    )
    .get(
      '/v1/external-api-contract',
      jsonView(ExternalApiContract, () => contract),
      {
        response: { 200: ExternalApiContract, ...errorResponses(404) },
        detail: { summary: 'The external API contract: route families and surfaces' },
      },
    )
    .get(
      '/v1/release-notices',
      jsonView(ReleaseNotices, () => notices),
      {
        response: { 200: ReleaseNotices },
        detail: { summary: 'Release notices of the /v1 surface' },
      },
    )
}

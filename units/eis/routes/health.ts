import { Elysia, t } from 'elysia'
import { jsonView } from '../../../common/json-view.ts'
import { outboxSummary } from '../../../db/outbox.ts'
import { boundedSnapshot, snapshotView, writeCount } from '../../../db/snapshot.ts'
import type { Storage } from '../../../db/storage.ts'
import { lit, Message, message, Nullable, Ts } from '../model/common.ts'
import { P } from '../paths.ts'
import { RUNTIME_HOST_TARGET } from '../service/dispatch.ts'
import { eventCounts, tableCounts } from '../store.ts'

export interface HealthDeps {
  storage: Storage
  version: string
  startedAt: string
  erpBackend: 'embedded' | 'frappe'
  /** Which integrations are configured (never their secrets). */
  integrations: Record<string, boolean>
}

const Integrations = t.Record(t.String(), t.Object({ configured: t.Boolean() }))

export const IntegrationStatus = Message(
  t.Object({
    service: t.Literal('eis'),
    status: lit('ok', 'degraded'),
    version: t.String(),
    started_at: Ts,
    checked_at: Ts,
    database: lit('ok', 'unavailable'),
    erp_backend: lit('embedded', 'frappe'),
    integrations: Integrations,
    integration_events: t.Record(t.String(), t.Integer()),
    documents: t.Record(t.String(), t.Integer()),
    runtime_host_dispatch: t.Object({
      pending: t.Integer(),
      delivered: t.Integer(),
      dead: t.Integer(),
      oldest_pending_at: Nullable(Ts),
    }),
  }),
)

export const Healthz = t.Object({
  status: t.Literal('ok'),
  service: t.Literal('eis'),
  mcp: t.Object({ configured: t.Boolean() }),
})

/** The runtime and integration snapshot (the status route and the MCP tool answer it). */
async function dispatchSummary(storage: Storage, dbOk: boolean) {
  if (!dbOk) return { pending: 0, delivered: 0, dead: 0, oldest_pending_at: null }
  const s = await outboxSummary(storage, RUNTIME_HOST_TARGET)
  return { pending: s.pending, delivered: s.delivered, dead: s.dead, oldest_pending_at: s.oldestPendingAt }
}

export async function integrationStatus(deps: HealthDeps) {
  const dbOk = await deps.storage.ready()
  return {
    service: 'eis' as const,
    status: dbOk ? ('ok' as const) : ('degraded' as const),
    version: deps.version,
    started_at: deps.startedAt,
    checked_at: new Date().toISOString(),
    database: dbOk ? ('ok' as const) : ('unavailable' as const),
    erp_backend: deps.erpBackend,
    integrations: Object.fromEntries(
      Object.entries(deps.integrations).map(([k, v]) => [k, { configured: v }]),
    ),
    integration_events: dbOk ? await eventCounts(deps.storage) : {},
    documents: dbOk ? await tableCounts(deps.storage) : {},
    runtime_host_dispatch: await dispatchSummary(deps.storage, dbOk),
  }
}

export const healthRoutes = (deps: HealthDeps) => {
  const healthz = {
    status: 'ok' as const,
    service: 'eis' as const,
    mcp: { configured: deps.integrations.mcp_gateway ?? false },
  }
  // Polled by monitors: counted at most once per STATUS_MAX_AGE_MS, and at once after EIS's own writes.
  const status = boundedSnapshot(async () => message(await integrationStatus(deps)), {
    version: writeCount(deps.storage),
  })
  return new Elysia({ name: 'eis:health' })
    .get(
      '/healthz',
      // The same answer for the life of the process: a cached view.
      jsonView(Healthz, () => healthz),
      {
        response: { 200: Healthz },
        detail: { summary: 'Liveness of EIS and its MCP gateway' },
      },
    )
    .get(P('health.integration_status'), snapshotView(IntegrationStatus, status), {
      response: { 200: IntegrationStatus },
      detail: {
        summary: 'Lightweight runtime and integration snapshot (configured flags only, never secrets)',
      },
    })
}

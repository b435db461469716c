/** Health (API and tool reachability) and the compact operator status. */
import { SUITE_VERSION } from '../../../common/version.ts'
import { catalogBaseline } from '../rules/baseline.ts'
import { inboundContracts } from '../rules/contracts.ts'
import { lastSync, latestBaseline, latestUpgradeReport, snapshotWorkflows } from '../store.ts'
import { API_SURFACE_VERSION, answer } from './answer.ts'
import { latestKnownUpstream } from './upgrade.ts'
import type { Wta } from './wta.ts'

/** The tool's address without credentials or query, for display. */
const displayUrl = (url: string | undefined) => {
  if (!url) return null
  const u = new URL(url)
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
}

async function reachability(wta: Wta) {
  const res = await wta.client.health()
  return {
    configured: wta.client.configured,
    url: displayUrl(wta.config.WTA_AUTOMATION_URL),
    reachable: res.ok,
    status: res.ok ? res.value.status : null,
    reason: res.ok ? null : `${res.reason}: ${res.message}`,
  }
}

export async function health(wta: Wta) {
  const automation = await reachability(wta)
  return {
    ...answer({ api: 'ok' as const, automation }, { source: 'live' }, wta.now()),
    automation_reachable: automation.reachable,
  }
}

/** Monitored inbound contracts (webhooks and callbacks) of the snapshot, with their state now. */
export async function webhookStates(wta: Wta) {
  return (await snapshotWorkflows(wta.storage)).flatMap(({ workflow }) => inboundContracts(workflow))
}

export async function status(wta: Wta) {
  const automation = await reachability(wta)
  const version = await wta.client.version()
  const synced = await lastSync(wta.storage, true)
  const attempted = await lastSync(wta.storage)
  const baseline = await latestBaseline(wta.storage)
  const report = await latestUpgradeReport(wta.storage)
  const workflows = (await snapshotWorkflows(wta.storage)).map((r) => r.workflow)
  const inUse = catalogBaseline(workflows, wta.nodeTypes)
  const observer = wta.observer?.() ?? null
  const webhooks = await webhookStates(wta)
  const data = {
    operator: {
      auth: wta.config.SVC_API_TOKEN ? ('bearer' as const) : ('open' as const),
      auth_note: wta.config.SVC_API_TOKEN
        ? 'SVC_API_TOKEN is set: every route but /api/v1/health needs Authorization: Bearer.'
        : 'SVC_API_TOKEN is unset: the API is open.',
      observers_enabled: wta.config.WTA_OBSERVERS_ENABLED,
      observer,
    },
    runtime: {
      suite_version: SUITE_VERSION,
      automation,
      automation_version: version.ok
        ? version.value
        : (wta.config.WTA_AUTOMATION_VERSION ?? synced?.toolVersion ?? null),
    },
    catalog: {
      node_types_n8n_version: wta.nodeTypes.n8n_version,
      breaking_changes_version: wta.breakingChanges.catalog_version,
      breaking_changes: wta.breakingChanges.entries.length,
      latest_baseline_at: baseline?.takenAt ?? null,
      workflows: workflows.length,
      node_types_in_use: inUse.node_types.length,
      deprecated_in_use: inUse.node_types.filter((t) => t.deprecated).map((t) => t.node_type),
    },
    upgrade: {
      latest_known_upstream: await latestKnownUpstream(wta),
      last_report_at: report?.createdAt ?? null,
      recommendation: report
        ? ((JSON.parse(report.document) as { summary?: { recommendation?: string } }).summary
            ?.recommendation ?? null)
        : null,
    },
    platform: {
      api_surface_version: API_SURFACE_VERSION,
      stability: 'pilot' as const,
      last_sync_at: synced?.at ?? null,
      last_sync_attempt: attempted ? { at: attempted.at, ok: attempted.ok, error: attempted.error } : null,
      webhooks: {
        monitored: webhooks.length,
        listening: webhooks.filter((c) => c.state === 'listening').length,
        contracts: webhooks,
      },
      event_log: { path: 'logs/events.jsonl', recent: wta.events.tail(10) },
    },
  }
  return { ...answer(data, { source: 'live' }, wta.now()), automation_reachable: automation.reachable }
}

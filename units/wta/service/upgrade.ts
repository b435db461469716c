/** The upgrade views: impact for a target, and summary, backlog, batches and alerts from it. */
import { badRequest, notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { catalogBaseline } from '../rules/baseline.ts'
import { type Impact, upgradeImpact } from '../rules/impact.ts'
import { upgradeAlerts, upgradeBacklog, upgradeBatches, upgradeSummary } from '../rules/upgrade.ts'
import { validateWorkflow } from '../rules/validate.ts'
import { compareVersions, parseVersion } from '../rules/versions.ts'
import { lastSync, latestUpgradeReport, latestUpstream, recordUpgradeReport } from '../store.ts'
import { answer, type Meta } from './answer.ts'
import { upstreamLatest } from './catalog.ts'
import { readWorkflows } from './workflows.ts'
import type { Wta } from './wta.ts'

/** The running n8n version: the tool says it, else WTA_AUTOMATION_VERSION, else the last sync's. */
export async function currentVersion(wta: Wta): Promise<string> {
  const told = await wta.client.version()
  if (told.ok && parseVersion(told.value)) return told.value
  if (wta.config.WTA_AUTOMATION_VERSION) return wta.config.WTA_AUTOMATION_VERSION
  const synced = (await lastSync(wta.storage, true))?.toolVersion
  if (synced) return synced
  throw unavailable(
    'automation_version_unknown',
    'The running n8n version is unknown: the tool does not say it and WTA_AUTOMATION_VERSION is not set.',
  )
}

function checkVersion(v: string, name: string) {
  if (!parseVersion(v)) throw badRequest('invalid_version', `${name} must be a version x.y.z.`, { [name]: v })
  return v
}

export interface ImpactInput {
  target_version?: string
  from_version?: string
}

/** Impact of upgrading from the running (or given) version to the target (default: latest upstream). */
export async function impactFor(wta: Wta, input: ImpactInput = {}): Promise<{ impact: Impact; meta: Meta }> {
  const from = checkVersion(input.from_version ?? (await currentVersion(wta)), 'from_version')
  const target = checkVersion(
    input.target_version ?? (await upstreamLatest(wta)).data.version,
    'target_version',
  )
  if (compareVersions(target, from) < 0)
    throw unprocessable(
      'target_older_than_current',
      `Target ${target} is older than ${from}; downgrades are not assessed.`,
    )
  const set = await readWorkflows(wta)
  return { impact: upgradeImpact(wta.breakingChanges.entries, set.workflows, from, target), meta: set.meta }
}

const withCatalog = (wta: Wta) => ({ catalog_version: wta.breakingChanges.catalog_version })

export async function impact(wta: Wta, input: ImpactInput) {
  const { impact, meta } = await impactFor(wta, input)
  return answer({ ...withCatalog(wta), ...impact }, meta, wta.now())
}

export async function summary(wta: Wta, input: ImpactInput = {}) {
  const { impact, meta } = await impactFor(wta, input)
  return answer({ ...withCatalog(wta), ...upgradeSummary(impact) }, meta, wta.now())
}

export async function backlog(wta: Wta, input: ImpactInput = {}) {
  const { impact, meta } = await impactFor(wta, input)
  const items = upgradeBacklog(impact)
  return answer(
    {
      ...withCatalog(wta),
      from_version: impact.from_version,
      target_version: impact.target_version,
      count: items.length,
      items,
    },
    meta,
    wta.now(),
  )
}

export async function batches(wta: Wta, input: ImpactInput = {}) {
  const { impact, meta } = await impactFor(wta, input)
  return answer(
    {
      ...withCatalog(wta),
      from_version: impact.from_version,
      target_version: impact.target_version,
      batches: upgradeBatches(impact),
    },
    meta,
    wta.now(),
  )
}

/** Alerts never fail for lack of a fact: what cannot be known becomes an alert itself. */
export async function alerts(wta: Wta) {
  const set = await readWorkflows(wta).catch(() => ({
    workflows: [],
    meta: { source: 'snapshot' as const, stale: true },
  }))
  const reachable = (await wta.client.health()).ok
  let impactValue: Impact | null = null
  let impactError: string | null = null
  try {
    impactValue = (await impactFor(wta)).impact
  } catch (err) {
    impactError = (err as Error).message
  }
  const baseline = catalogBaseline(set.workflows, wta.nodeTypes)
  const list = upgradeAlerts({
    automationReachable: reachable,
    impact: impactValue,
    deprecatedInUse: baseline.node_types
      .filter((t) => t.deprecated)
      .map((t) => ({ node_type: t.node_type, workflows: t.workflows })),
    invalidActive: set.workflows
      .filter((w) => w.active)
      .map((w) => ({ w, r: validateWorkflow(w, wta.nodeTypes) }))
      .filter(({ r }) => !r.valid)
      .map(({ w, r }) => ({ workflow_id: w.id, name: w.name, errors: r.errors })),
    lastSyncAt: (await lastSync(wta.storage, true))?.at ?? null,
    staleAfterMs: wta.config.WTA_STALE_AFTER_SECONDS * 1000,
    now: wta.now().getTime(),
    observerFailures: wta.observer?.()?.consecutive_failures ?? 0,
  })
  if (impactError) list.push({ code: 'upgrade_unassessed', severity: 'warning', message: impactError })
  return answer(
    { count: list.length, critical: list.filter((a) => a.severity === 'critical').length, alerts: list },
    set.meta,
    wta.now(),
  )
}

/** Make and store an upgrade report (the scheduled observer's, or a command's). */
export async function makeReport(wta: Wta, trigger: 'scheduled' | 'command') {
  const { impact } = await impactFor(wta)
  const document = {
    ...withCatalog(wta),
    summary: upgradeSummary(impact),
    backlog: upgradeBacklog(impact),
    batches: upgradeBatches(impact),
  }
  const row = await recordUpgradeReport(wta.storage, trigger, document, wta.now().toISOString())
  wta.events.append('upgrade.report', {
    report_id: row.id,
    trigger,
    target_version: impact.target_version,
    recommendation: document.summary.recommendation,
  })
  return answer(
    { report_id: row.id, created_at: row.createdAt, trigger, ...document },
    { source: 'live' },
    wta.now(),
  )
}

export async function scheduledLatest(wta: Wta) {
  const row = await latestUpgradeReport(wta.storage)
  if (!row)
    throw notFound(
      'no_scheduled_report',
      'No upgrade report has been made yet; the idle observer makes one every idle poll (or run `svc wta upgrade report`).',
    )
  return answer(
    {
      report_id: row.id,
      created_at: row.createdAt,
      trigger: row.trigger,
      ...(JSON.parse(row.document) as Record<string, unknown>),
    },
    { source: 'stored' },
    wta.now(),
  )
}

export const latestKnownUpstream = async (wta: Wta) => (await latestUpstream(wta.storage))?.version ?? null

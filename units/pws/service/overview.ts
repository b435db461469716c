/** Project-level views: active workflow summary, doctor, operator dashboard. */
import { PROVIDERS } from '../rules/delivery.ts'
import { activeWorkflowSummary, GIT_POLL_FALLBACK_MINUTES, taskGroups } from '../rules/summary.ts'
import { lifecycleOf } from '../rules/tasks.ts'
import {
  allTasks,
  countOpenHandoffs,
  integrationStates,
  listCycles,
  listLanes,
  listPages,
  type ProjectRow,
  summaryFacts,
} from '../store.ts'
import { iso, type PwsDeps } from './deps.ts'
import { requireProject } from './projects.ts'

export async function activeWorkflow(deps: PwsDeps, projectId: string) {
  const project = await requireProject(deps, projectId)
  const nowMs = deps.now()
  const { counts, ...facts } = await summaryFacts(deps.storage, projectId, nowMs)
  const cycles = await listCycles(deps.storage, projectId)
  return activeWorkflowSummary({
    project,
    groups: taskGroups(counts, nowMs),
    ...facts,
    nowMs,
    pages: await listPages(deps.storage, projectId),
    planningRepoConfigured: deps.settings.planningRepo !== undefined,
    activeCycleKey: cycles.find((c) => c.state === 'active')?.cycleKey ?? null,
    contract: deps.contract,
  })
}

type CheckStatus = 'ok' | 'warning' | 'error'
interface DoctorCheck {
  name: string
  status: CheckStatus
  message: string
}

/** A sync older than twice the poll fallback means neither webhooks nor polling are arriving. */
const SYNC_STALE_MS = 2 * GIT_POLL_FALLBACK_MINUTES * 60_000

async function doctorChecks(deps: PwsDeps, project: ProjectRow): Promise<DoctorCheck[]> {
  const now = deps.now()
  const checks: DoctorCheck[] = []
  const lanes = await listLanes(deps.storage, project.projectId)
  checks.push(
    lanes.length > 0
      ? { name: 'lanes', status: 'ok', message: `${lanes.length} lanes` }
      : { name: 'lanes', status: 'error', message: 'the project has no lanes: tasks cannot be placed' },
  )
  const provider = project.repoProvider as (typeof PROVIDERS)[number] | null
  if (!provider) {
    checks.push({ name: 'primary_repo', status: 'warning', message: 'no primary repository is bound' })
  } else {
    const settings = deps.settings.providers[provider]
    if (!settings) {
      checks.push({
        name: 'provider_credentials',
        status: 'error',
        message: `${provider} is not configured: delivery views stay empty`,
      })
    } else {
      checks.push({
        name: 'provider_credentials',
        status: 'ok',
        message: `${provider} at ${settings.baseUrl}`,
      })
      checks.push(
        settings.webhookSecrets.length > 0
          ? { name: 'webhook_secret', status: 'ok', message: 'inbound webhooks are verified' }
          : {
              name: 'webhook_secret',
              status: 'warning',
              message: `no webhook secret: sync relies on the ${GIT_POLL_FALLBACK_MINUTES} minute poll`,
            },
      )
      const state = (await integrationStates(deps.storage, project.projectId)).find(
        (s) => s.provider === provider,
      )
      const last = [state?.lastWebhookAt, state?.lastPollAt]
        .filter((x): x is string => !!x)
        .sort()
        .at(-1)
      if (!last) checks.push({ name: 'sync_freshness', status: 'warning', message: 'never synced' })
      else if (now - Date.parse(last) > SYNC_STALE_MS)
        checks.push({ name: 'sync_freshness', status: 'warning', message: `last sync at ${last}` })
      else checks.push({ name: 'sync_freshness', status: 'ok', message: `last sync at ${last}` })
      if (state?.lastError)
        checks.push({
          name: 'last_sync_result',
          status: 'error',
          message: `last sync failed: ${state.lastError}`,
        })
    }
  }
  checks.push(
    deps.settings.planningRepo
      ? { name: 'planning_repo', status: 'ok', message: 'planning pages sync with the configured repository' }
      : {
          name: 'planning_repo',
          status: 'warning',
          message: 'PWS_PLANNING_REPO is not set: pages are local only',
        },
  )
  const tasks = await allTasks(deps.storage, project.projectId)
  const stale = tasks.filter((t) => lifecycleOf(t, now) === 'stale').length
  checks.push(
    stale === 0
      ? { name: 'stale_tasks', status: 'ok', message: 'no stale tasks' }
      : { name: 'stale_tasks', status: 'warning', message: `${stale} open task(s) untouched for 14 days` },
  )
  return checks
}

export async function doctor(deps: PwsDeps, projectId: string) {
  const project = await requireProject(deps, projectId)
  const checks = await doctorChecks(deps, project)
  const errors = checks.filter((c) => c.status === 'error').length
  const warnings = checks.filter((c) => c.status === 'warning').length
  return {
    project_id: projectId,
    status: (errors > 0 ? 'error' : warnings > 0 ? 'warning' : 'ok') as CheckStatus,
    error_count: errors,
    warning_count: warnings,
    checks,
    checked_at: iso(deps.now()),
  }
}

export async function integrationsOverview(deps: PwsDeps, projectId: string) {
  const states = await integrationStates(deps.storage, projectId)
  return Object.fromEntries(
    PROVIDERS.map((p) => {
      const settings = deps.settings.providers[p]
      const state = states.find((s) => s.provider === p)
      return [
        p,
        {
          configured: settings !== undefined,
          webhook_verified: (settings?.webhookSecrets.length ?? 0) > 0,
          repository: state?.repository ?? null,
          last_webhook_at: state?.lastWebhookAt ?? null,
          last_poll_at: state?.lastPollAt ?? null,
          last_result: state?.lastResult ?? null,
          last_error: state?.lastError ?? null,
        },
      ]
    }),
  )
}

export async function operatorDashboard(deps: PwsDeps, projectId: string) {
  const sandbox = deps.settings.sandbox
  const mode: 'sandbox' | 'live' =
    sandbox.enabled && projectId.startsWith(sandbox.projectPrefix) ? 'sandbox' : 'live'
  return {
    project_id: projectId,
    mode,
    doctor: await doctor(deps, projectId),
    integrations: await integrationsOverview(deps, projectId),
    open_handoffs: await countOpenHandoffs(deps.storage, projectId, iso(deps.now())),
  }
}

/**
 * Delivery: ingest from code hosts (webhook-first, polled every 5 minutes as the fallback) and the
 * views computed from the stored records: review queue, branch queue, release readiness, health.
 */
import type { Static } from 'elysia'
import { notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { canonicalJson } from '../../../common/hash.ts'
import type { Sql } from '../../../db/storage.ts'
import type { ReviewActionRequest } from '../model/delivery.ts'
import { fetchRepository, ProviderError, type RepositorySnapshot, setPullRequestState } from '../providers.ts'
import {
  type BranchData,
  branchAgeDays,
  branchRisks,
  type DeploymentData,
  type EnvironmentData,
  FRESHNESS_VALUES,
  freshnessOf,
  isActionableReview,
  isFailedStatus,
  isRiskyReview,
  isSucceededStatus,
  newest,
  type PipelineData,
  type Provider,
  type PullRequestData,
  type ReleaseData,
  releaseGate,
} from '../rules/delivery.ts'
import { judgeVersion, nextVersion, versionConflict } from '../rules/versioning.ts'
import {
  boundProjects,
  countOpenHandoffs,
  type DeliveryKind,
  type DeliveryRow,
  deleteDeliveryTx,
  deliveryOf,
  deliveryOfTx,
  findDeliveryTx,
  findTaskBySourceTx,
  linkedTasks,
  linkedTasksTx,
  type ProjectRow,
  recordIntegrationState,
  type TaskRow,
  updateTaskTx,
  upsertDeliveryTx,
} from '../store.ts'
import { iso, type PwsDeps, write, writeback } from './deps.ts'
import { doctor } from './overview.ts'
import { requireProject } from './projects.ts'
import { insertNewTaskTx, taskView } from './tasks.ts'

const KINDS: DeliveryKind[] = ['pull_request', 'branch', 'pipeline', 'deployment', 'release', 'environment']

/** Store a snapshot: upsert what changed (a new version only then), drop what the provider no longer has. */
function storeSnapshot(deps: PwsDeps, project: ProjectRow, provider: Provider, snap: RepositorySnapshot) {
  const now = deps.now()
  const at = iso(now)
  const repo = project.repoFullName as string
  return write(deps, async (tx) => {
    const existing = new Map(
      (await deliveryOfTx(tx, project.projectId, provider)).map((r) => [`${r.kind}:${r.externalId}`, r]),
    )
    let changed = 0
    for (const kind of KINDS) {
      for (const item of snap[kind]) {
        const key = `${kind}:${item.externalId}`
        const before = existing.get(key)
        existing.delete(key)
        const data = item.data as unknown as Record<string, unknown>
        const same =
          before && before.state === item.state && canonicalJson(before.data) === canonicalJson(data)
        if (!same) changed++
        await upsertDeliveryTx(tx, {
          projectId: project.projectId,
          kind,
          provider,
          externalId: item.externalId,
          repository: repo,
          state: item.state,
          data,
          observedAt: at,
          updatedAt: same ? before.updatedAt : nextVersion(before?.updatedAt ?? null, now),
        })
      }
    }
    for (const gone of existing.values()) await deleteDeliveryTx(tx, gone)
    const confirmed = await confirmReadbackTx(tx, project.projectId, provider, snap, now)
    return { changed, removed: existing.size, confirmed }
  })
}

/**
 * Readback: tasks linked to a pull request follow its state at the provider; a task waiting for
 * confirmation of a review action is confirmed once the provider shows the state it asked for.
 */
async function confirmReadbackTx(
  tx: Sql,
  projectId: string,
  provider: Provider,
  snap: RepositorySnapshot,
  now: number,
): Promise<number> {
  const states = new Map(snap.pull_request.map((p) => [prReference(provider, p.externalId), p.state]))
  let confirmed = 0
  for (const task of await linkedTasksTx(tx, projectId, 'pull_request')) {
    const state = task.sourceReference ? states.get(task.sourceReference) : undefined
    if (state === undefined) continue
    const waiting = task.writebackGuardState === 'pending_confirmation'
    if (state === task.externalTruthState && !waiting) continue
    if (waiting && state === task.externalTruthState) confirmed++
    await updateTaskTx(tx, projectId, task.taskKey, {
      externalTruthState: state,
      writebackGuardState:
        waiting && state !== task.externalTruthState
          ? 'conflicted'
          : waiting
            ? 'confirmed'
            : task.writebackGuardState,
      remediation: waiting
        ? state === task.externalTruthState
          ? ['mark_verification_complete']
          : ['open_diff_and_resolve', 'escalate_to_manual']
        : task.remediation,
      updatedAt: nextVersion(task.updatedAt, now),
    })
  }
  return confirmed
}

/** Fetch a project's primary repository from its provider and store it. */
export async function syncProject(deps: PwsDeps, project: ProjectRow, source: 'webhook' | 'poll' | 'manual') {
  const provider = project.repoProvider as Provider | null
  const repo = project.repoFullName
  if (!provider || !repo)
    throw unprocessable('no_primary_repo', 'The project has no primary repository bound.')
  const settings = deps.settings.providers[provider]
  if (!settings)
    throw unavailable(
      'provider_not_configured',
      `${provider} is not configured (PWS_${provider.toUpperCase()}_URL).`,
    )
  const at = iso(deps.now())
  const marks =
    source === 'webhook' ? { lastWebhookAt: at, lastPollAt: null } : { lastPollAt: at, lastWebhookAt: null }
  try {
    const snap = await fetchRepository(provider, settings, repo, deps.settings.peerTimeoutMs)
    const stored = await storeSnapshot(deps, project, provider, snap)
    const result = Object.fromEntries(KINDS.map((k) => [k, snap[k].length]))
    await recordIntegrationState(deps.storage, {
      projectId: project.projectId,
      provider,
      repository: repo,
      ...marks,
      lastResult: JSON.stringify({ ...result, ...stored }),
      lastError: null,
    })
    deps.counters.syncEvents.inc({ provider, source, result: 'ok' })
    return { provider, repository: repo, source, items: result, ...stored }
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : String(err)
    await recordIntegrationState(deps.storage, {
      projectId: project.projectId,
      provider,
      repository: repo,
      ...marks,
      lastResult: null,
      lastError: message,
    })
    deps.counters.syncEvents.inc({ provider, source, result: 'failed' })
    if (err instanceof ProviderError) {
      throw unavailable(
        'provider_unavailable',
        `${provider} did not answer as expected; stored data is unchanged.`,
      )
    }
    throw err
  }
}

/** The poll fallback: every bound project whose provider is configured. Failures are logged, not thrown. */
export async function pollAll(deps: PwsDeps): Promise<number> {
  let synced = 0
  for (const project of await boundProjects(deps.storage)) {
    if (!deps.settings.providers[project.repoProvider as Provider]) continue
    try {
      await syncProject(deps, project, 'poll')
      synced++
    } catch (err) {
      deps.log.warn({ project: project.projectId, err: (err as Error).message }, 'provider poll failed')
    }
  }
  return synced
}

/** A verified webhook for `repository`: sync every project bound to it. */
export async function webhookSync(deps: PwsDeps, provider: Provider, repository: string) {
  const projects = (await boundProjects(deps.storage)).filter(
    (p) => p.repoProvider === provider && p.repoFullName?.toLowerCase() === repository.toLowerCase(),
  )
  const results = []
  for (const p of projects) {
    try {
      await syncProject(deps, p, 'webhook')
      results.push({ project_id: p.projectId, result: 'synced' })
    } catch (err) {
      results.push({ project_id: p.projectId, result: 'failed', message: (err as Error).message })
    }
  }
  return { accepted: true, provider, repository, projects: results }
}

export async function integrationSync(deps: PwsDeps, projectId: string, provider: Provider) {
  const project = await requireProject(deps, projectId)
  if (project.repoProvider !== provider) {
    throw unprocessable('provider_not_bound', `The project's primary repository is not on ${provider}.`)
  }
  return { project_id: projectId, sync_mode: 'auto', result: await syncProject(deps, project, 'manual') }
}

// ---------- views ----------

const dataOf = <T>(r: DeliveryRow) => r.data as unknown as T

export async function deliveryList(deps: PwsDeps, projectId: string, kind: DeliveryKind) {
  await requireProject(deps, projectId)
  const rows = await deliveryOf(deps.storage, projectId, kind)
  return {
    project_id: projectId,
    items: rows.map((r) => ({
      provider: r.provider,
      external_id: r.externalId,
      repository_label: r.repository,
      state: r.state,
      observed_at: r.observedAt,
      version_token: r.updatedAt,
      ...r.data,
    })),
  }
}

function counts(keys: string[]): [string, number][] {
  const out = new Map<string, number>()
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1)
  return [...out]
}

const linkMap = (tasks: TaskRow[]) => {
  const byRef = new Map<string, TaskRow[]>()
  for (const t of tasks) {
    if (!t.sourceReference) continue
    const list = byRef.get(t.sourceReference) ?? []
    list.push(t)
    byRef.set(t.sourceReference, list)
  }
  return byRef
}

export const prReference = (provider: string, externalId: string) => `${provider}:${externalId}`

export async function reviewQueue(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const prs = (await deliveryOf(deps.storage, projectId, 'pull_request')).filter((r) => r.state === 'open')
  const links = linkMap(await linkedTasks(deps.storage, projectId, 'pull_request'))
  const items = prs.map((r) => {
    const pr = dataOf<PullRequestData>(r)
    const linked = links.get(prReference(r.provider, r.externalId)) ?? []
    return {
      provider: r.provider,
      external_id: r.externalId,
      repository_label: r.repository,
      title: pr.title,
      url: pr.url,
      author: pr.author,
      draft: pr.draft,
      review_decision: pr.review_decision,
      approval_count: pr.approval_count,
      requested_reviewer_count: pr.requested_reviewer_count,
      changes_requested_count: pr.changes_requested_count,
      comment_count: pr.comment_count,
      actionable: isActionableReview(r.state, pr),
      risky: isRiskyReview(r.state, pr),
      cycle_keys: [...new Set(linked.map((t) => t.cycleKey).filter((k): k is string => k !== null))],
      module_keys: [...new Set(linked.map((t) => t.moduleKey).filter((k): k is string => k !== null))],
      linked_tasks: linked.map((t) => ({ task_key: t.taskKey, lane: t.lane })),
      version_token: r.updatedAt,
    }
  })
  return {
    project_id: projectId,
    items,
    repository_groups: counts(items.map((i) => i.repository_label)).map(([repository_label, count]) => ({
      repository_label,
      count,
    })),
    cycle_groups: counts(items.flatMap((i) => i.cycle_keys)).map(([cycle_key, count]) => ({
      cycle_key,
      count,
    })),
    module_groups: counts(items.flatMap((i) => i.module_keys)).map(([module_key, count]) => ({
      module_key,
      count,
    })),
  }
}

export async function branchQueue(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const branches = await deliveryOf(deps.storage, projectId, 'branch')
  const openHeads = new Set(
    (await deliveryOf(deps.storage, projectId, 'pull_request'))
      .filter((r) => r.state === 'open')
      .map((r) => `${r.provider}:${dataOf<PullRequestData>(r).head_branch}`),
  )
  const links = linkMap(await linkedTasks(deps.storage, projectId, 'branch'))
  const items = branches.map((r) => {
    const b = dataOf<BranchData>(r)
    return {
      provider: r.provider,
      repository_label: r.repository,
      name: b.name,
      freshness_state: freshnessOf(b, now),
      age_days: branchAgeDays(b, now),
      last_commit_at: b.last_commit_at,
      risk_reasons: branchRisks(b, now, openHeads.has(`${r.provider}:${b.name}`)),
      linked_tasks: (links.get(`${r.provider}:${b.name}`) ?? []).map((t) => ({
        task_key: t.taskKey,
        lane: t.lane,
      })),
    }
  })
  return {
    project_id: projectId,
    items,
    repository_groups: counts(items.map((i) => i.repository_label)).map(([repository_label, count]) => ({
      repository_label,
      count,
    })),
    freshness_groups: FRESHNESS_VALUES.map((f) => ({
      freshness_state: f,
      count: items.filter((i) => i.freshness_state === f).length,
    })),
  }
}

export async function releaseReadiness(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const pipelines = (await deliveryOf(deps.storage, projectId, 'pipeline')).map((r) =>
    dataOf<PipelineData>(r),
  )
  const deployments = (await deliveryOf(deps.storage, projectId, 'deployment')).map((r) =>
    dataOf<DeploymentData>(r),
  )
  const prs = (await deliveryOf(deps.storage, projectId, 'pull_request')).filter((r) => r.state === 'open')
  const releaseTasks = linkMap(await linkedTasks(deps.storage, projectId, 'release'))
  const latestPipeline = newest(pipelines, (p) => p.updated_at || p.created_at)?.status ?? null
  const latestDeployment = newest(deployments, (d) => d.created_at)?.status ?? null
  const items = (await deliveryOf(deps.storage, projectId, 'release')).map((r) => {
    const release = dataOf<ReleaseData>(r)
    const open = prs.filter((p) => p.provider === r.provider)
    const risky = open.filter((p) => isRiskyReview(p.state, dataOf<PullRequestData>(p))).length
    const gate = releaseGate({
      release,
      latestPipelineStatus: latestPipeline,
      latestDeploymentStatus: latestDeployment,
      linkedReviewCount: open.length,
      riskyReviewCount: risky,
    })
    const task = releaseTasks.get(release.tag)?.[0]
    return {
      provider: r.provider,
      external_id: r.externalId,
      name: release.name,
      tag: release.tag,
      gate_state: gate.gate_state,
      cycle_key: task?.cycleKey ?? null,
      module_key: task?.moduleKey ?? null,
      latest_pipeline_status: latestPipeline,
      latest_deployment_status: latestDeployment,
      linked_review_count: open.length,
      risky_review_count: risky,
      gate_reasons: gate.gate_reasons,
    }
  })
  const count = (s: string) => items.filter((i) => i.gate_state === s).length
  return {
    project_id: projectId,
    items,
    blocked_count: count('blocked'),
    review_count: count('review'),
    ready_count: count('ready'),
    published_count: count('published'),
  }
}

export async function healthSummary(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const pipelines = (await deliveryOf(deps.storage, projectId, 'pipeline')).map((r) =>
    dataOf<PipelineData>(r),
  )
  const deployments = (await deliveryOf(deps.storage, projectId, 'deployment')).map((r) =>
    dataOf<DeploymentData>(r),
  )
  const environments = (await deliveryOf(deps.storage, projectId, 'environment')).map((r) =>
    dataOf<EnvironmentData>(r),
  )
  const latestPerRef = new Map<string, PipelineData>()
  for (const p of pipelines) {
    const seen = latestPerRef.get(p.ref)
    if (!seen || (p.updated_at || p.created_at) > (seen.updated_at || seen.created_at))
      latestPerRef.set(p.ref, p)
  }
  const latestPerEnv = new Map<string, DeploymentData>()
  for (const d of deployments) {
    const seen = latestPerEnv.get(d.environment)
    if (!seen || d.created_at > seen.created_at) latestPerEnv.set(d.environment, d)
  }
  const latest = newest(pipelines, (p) => p.updated_at || p.created_at)
  const readiness = await releaseReadiness(deps, projectId)
  const queue = await reviewQueue(deps, projectId)
  const failedDeployments = [...latestPerEnv.values()].filter((d) => isFailedStatus(d.status)).length
  return {
    project_id: projectId,
    failing_pipelines: [...latestPerRef.values()].filter((p) => isFailedStatus(p.status)).length,
    failed_deployments: failedDeployments,
    active_environments: environments.length,
    releases_needing_attention: readiness.blocked_count + readiness.review_count,
    latest_pipeline_green: latest !== undefined && isSucceededStatus(latest.status),
    deployment_healthy: failedDeployments === 0,
    risky_reviews_unresolved: queue.items.some((i) => i.risky),
    open_handoffs: await countOpenHandoffs(deps.storage, projectId, iso(deps.now())),
    doctor_errors: (await doctor(deps, projectId)).error_count,
  }
}

// ---------- writes from the queues ----------

const itemNotFound = (kind: string, provider: string, id: string) =>
  notFound('delivery_item_not_found', `No ${kind} ${provider}/${id} is stored for this project.`)

/** A task linked to a review item or branch; a second call returns the task already linked (200). */
export async function createLinkedTask(
  deps: PwsDeps,
  projectId: string,
  kind: 'pull_request' | 'branch',
  provider: string,
  externalId: string,
) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const reference = prReference(provider, externalId)
  const out = await write(deps, async (tx) => {
    const item = await findDeliveryTx(tx, projectId, kind, provider, externalId)
    if (!item) throw itemNotFound(kind, provider, externalId)
    const existing = await findTaskBySourceTx(tx, projectId, kind, reference)
    if (existing) return { task: existing, created: false }
    const title =
      kind === 'pull_request'
        ? `Review: ${dataOf<PullRequestData>(item).title}`
        : `Branch ${dataOf<BranchData>(item).name}`
    const task = await insertNewTaskTx(
      tx,
      projectId,
      {
        title,
        lane: kind === 'pull_request' ? 'review' : 'in_progress',
        workClass: 'project_work',
        sourceTruthOwner: provider,
        sourceReferenceType: kind,
        sourceReference: reference,
        externalTruthState: item.state,
      },
      iso(now),
    )
    return { task, created: true }
  })
  return { created: out.created, task: taskView(out.task, now) }
}

const STATE_ACTIONS = { close: 'closed', reopen: 'open' } as const

/**
 * A review action: checked against the item's version, applied at the provider, then recorded
 * as waiting for readback (the next webhook or poll confirms it).
 */
export async function reviewAction(
  deps: PwsDeps,
  projectId: string,
  provider: Provider,
  externalId: string,
  body: Static<typeof ReviewActionRequest>,
) {
  const project = await requireProject(deps, projectId)
  const target = STATE_ACTIONS[body.state_action as keyof typeof STATE_ACTIONS]
  const currentItem = async (tx: Sql) => {
    const item = await findDeliveryTx(tx, projectId, 'pull_request', provider, externalId)
    if (!item) throw itemNotFound('pull_request', provider, externalId)
    const verdict = judgeVersion(body.expected_version, item.updatedAt)
    if (verdict !== 'current') {
      throw versionConflict(
        'review_item',
        `${provider}/${externalId}`,
        verdict,
        body.expected_version,
        item.updatedAt,
        {
          project_id: projectId,
          provider,
          external_id: externalId,
          item_state: item.state,
        },
      )
    }
    return item
  }
  await writeback(deps, currentItem)
  if (!target) {
    throw unprocessable('unsupported_state_action', 'state_action must be close or reopen.', {
      supported: Object.keys(STATE_ACTIONS),
    })
  }
  const settings = deps.settings.providers[provider]
  if (!settings || project.repoProvider !== provider || !project.repoFullName) {
    throw unavailable('provider_not_configured', `${provider} is not configured for this project.`)
  }
  try {
    await setPullRequestState(
      provider,
      settings,
      project.repoFullName,
      externalId,
      target,
      deps.settings.peerTimeoutMs,
    )
  } catch (err) {
    if (err instanceof ProviderError) {
      throw unavailable('provider_unavailable', `${provider} refused or did not answer; nothing changed.`)
    }
    throw err
  }
  const now = deps.now()
  const updated = await writeback(deps, async (tx) => {
    const item = await currentItem(tx)
    const next = nextVersion(item.updatedAt, now)
    await upsertDeliveryTx(tx, { ...item, state: target, updatedAt: next })
    const tasks = await findTaskBySourceTx(tx, projectId, 'pull_request', prReference(provider, externalId))
    if (tasks) {
      await updateTaskTx(tx, projectId, tasks.taskKey, {
        externalTruthState: target,
        workflowState: 'verification_required',
        writebackGuardState: 'pending_confirmation',
        remediation: ['refresh_metadata', 'mark_verification_complete'],
        updatedAt: nextVersion(tasks.updatedAt, now),
      })
    }
    return { ...item, state: target, updatedAt: next }
  })
  return {
    provider,
    external_id: externalId,
    requested_actions: [body.state_action],
    applied: true,
    details: { state: target },
    expected_version: body.expected_version ?? null,
    current_version: updated.updatedAt,
    readback_required: true,
    writeback_guard_state: 'pending_confirmation',
    workflow_state: 'verification_required',
    external_truth_state: target,
    consumer_remediation_actions: ['refresh_metadata', 'mark_verification_complete'],
  }
}

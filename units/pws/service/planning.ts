/**
 * Planning: cycles and modules (local), pages (markdown in the planning repository). Pull and push
 * run the real git; a page writeback needs the page's current version_token (409 otherwise).
 */
import type { Static } from 'elysia'
import { AppError, conflict, notFound, unavailable } from '../../../common/errors.ts'
import type { Sql } from '../../../db/storage.ts'
import type {
  CreateCycleRequest,
  CreateModuleRequest,
  CreatePageRequest,
  UpdatePageRequest,
} from '../model/planning.ts'
import {
  GitError,
  type PlanningRepo,
  pagePath,
  parsePage,
  renderPage,
  SyncConflict,
} from '../planning-repo.ts'
import { judgeVersion, nextVersion, REMEDIATION, versionConflict } from '../rules/versioning.ts'
import {
  allTasks,
  findPage,
  findPageTx,
  insertCycle,
  insertModule,
  insertPage,
  listCycles,
  listModules,
  listPages,
  listPagesTx,
  type PageRow,
  updatePageTx,
  upsertPageTx,
} from '../store.ts'
import { iso, type PwsDeps, writeback } from './deps.ts'
import { requireProject } from './projects.ts'

export const pageView = (p: PageRow) => ({
  slug: p.slug,
  title: p.title,
  body: p.body,
  repo_path: p.repoPath,
  sync_state: p.syncState,
  repo_commit: p.repoCommit,
  version_token: p.updatedAt,
  updated_at: p.updatedAt,
})

const syncResult = (p: PageRow) => ({
  slug: p.slug,
  sync_state: p.syncState,
  repo_path: p.repoPath,
  repo_commit: p.repoCommit,
  version_token: p.updatedAt,
})

export async function cyclesOf(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const tasks = await allTasks(deps.storage, projectId)
  const items = (await listCycles(deps.storage, projectId)).map((c) => ({
    cycle_key: c.cycleKey,
    title: c.title,
    state: c.state,
    starts_on: c.startsOn,
    ends_on: c.endsOn,
    task_count: tasks.filter((t) => t.cycleKey === c.cycleKey).length,
    created_at: c.createdAt,
  }))
  return { project_id: projectId, items }
}

export async function createCycle(deps: PwsDeps, projectId: string, body: Static<typeof CreateCycleRequest>) {
  await requireProject(deps, projectId)
  const row = {
    projectId,
    cycleKey: body.cycle_key,
    title: body.title,
    state: body.state ?? 'planned',
    startsOn: body.starts_on ?? null,
    endsOn: body.ends_on ?? null,
    createdAt: iso(deps.now()),
  }
  if (!(await insertCycle(deps.storage, row)))
    throw conflict('cycle_exists', `Cycle ${body.cycle_key} already exists.`)
  return {
    cycle_key: row.cycleKey,
    title: row.title,
    state: row.state,
    starts_on: row.startsOn,
    ends_on: row.endsOn,
    task_count: 0,
    created_at: row.createdAt,
  }
}

export async function modulesOf(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const tasks = await allTasks(deps.storage, projectId)
  const items = (await listModules(deps.storage, projectId)).map((m) => ({
    module_key: m.moduleKey,
    title: m.title,
    cycle_key: m.cycleKey,
    state: m.state,
    task_count: tasks.filter((t) => t.moduleKey === m.moduleKey).length,
    created_at: m.createdAt,
  }))
  return { project_id: projectId, items }
}

export async function createModule(
  deps: PwsDeps,
  projectId: string,
  body: Static<typeof CreateModuleRequest>,
) {
  await requireProject(deps, projectId)
  const row = {
    projectId,
    moduleKey: body.module_key,
    title: body.title,
    cycleKey: body.cycle_key ?? null,
    state: body.state ?? 'open',
    createdAt: iso(deps.now()),
  }
  if (!(await insertModule(deps.storage, row)))
    throw conflict('module_exists', `Module ${body.module_key} already exists.`)
  return {
    module_key: row.moduleKey,
    title: row.title,
    cycle_key: row.cycleKey,
    state: row.state,
    task_count: 0,
    created_at: row.createdAt,
  }
}

export async function pagesOf(deps: PwsDeps, projectId: string) {
  await requireProject(deps, projectId)
  const items = (await listPages(deps.storage, projectId)).map((p) => {
    const { body: _body, ...view } = pageView(p)
    return view
  })
  return { project_id: projectId, items }
}

const pageNotFound = (slug: string) => notFound('page_not_found', `No planning page ${slug} in this project.`)

export async function getPage(deps: PwsDeps, projectId: string, slug: string) {
  await requireProject(deps, projectId)
  const page = await findPage(deps.storage, projectId, slug)
  if (!page) throw pageNotFound(slug)
  return pageView(page)
}

export async function createPage(deps: PwsDeps, projectId: string, body: Static<typeof CreatePageRequest>) {
  await requireProject(deps, projectId)
  const row: PageRow = {
    projectId,
    slug: body.slug,
    title: body.title,
    body: body.body,
    repoPath: pagePath(projectId, body.slug),
    syncState: 'local_changes',
    repoCommit: null,
    updatedAt: iso(deps.now()),
  }
  if (!(await insertPage(deps.storage, row)))
    throw conflict('page_exists', `Page ${body.slug} already exists.`)
  return pageView(row)
}

/** Check a page's expected_version inside a writeback transaction: 404, or 409 with conflict detail. */
async function currentPage(tx: Sql, projectId: string, slug: string, expected: string | undefined) {
  const page = await findPageTx(tx, projectId, slug)
  if (!page) throw pageNotFound(slug)
  const verdict = judgeVersion(expected, page.updatedAt)
  if (verdict !== 'current') {
    throw versionConflict('planning_page', slug, verdict, expected, page.updatedAt, {
      project_id: projectId,
      repo_path: page.repoPath,
      sync_state: page.syncState,
      repo_commit: page.repoCommit,
    })
  }
  return page
}

export async function updatePage(
  deps: PwsDeps,
  projectId: string,
  slug: string,
  body: Static<typeof UpdatePageRequest>,
) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const row = await writeback(deps, async (tx) => {
    const page = await currentPage(tx, projectId, slug, body.expected_version)
    return updatePageTx(tx, projectId, slug, {
      title: body.title ?? page.title,
      body: body.body ?? page.body,
      syncState: 'local_changes',
      updatedAt: nextVersion(page.updatedAt, now),
    })
  })
  return pageView(row)
}

function requireRepo(repo: PlanningRepo | undefined): PlanningRepo {
  if (!repo)
    throw unavailable('planning_repo_not_configured', 'PWS_PLANNING_REPO is not set: pages cannot sync.')
  return repo
}

/** Git failed: log what git said (it may name the remote), answer without it. */
async function withGit<T>(deps: PwsDeps, direction: string, fn: () => Promise<T>): Promise<T> {
  try {
    const out = await fn()
    deps.counters.planningSyncs.inc({ direction, result: 'ok' })
    return out
  } catch (err) {
    if (err instanceof AppError) throw err
    deps.counters.planningSyncs.inc({
      direction,
      result: err instanceof SyncConflict ? 'conflict' : 'failed',
    })
    if (err instanceof SyncConflict) throw err
    deps.log.error(
      { err: err instanceof GitError ? err.message : String(err) },
      'planning repository sync failed',
    )
    throw unavailable('planning_repo_unavailable', 'The planning repository could not be reached or updated.')
  }
}

/** Pull the repository and mirror every page of the project (created or updated, in_sync). */
export async function syncFromRepo(deps: PwsDeps, repo: PlanningRepo | undefined, projectId: string) {
  await requireProject(deps, projectId)
  const r = requireRepo(repo)
  const commit = await withGit(deps, 'sync_from_repo', () => r.pull())
  const now = deps.now()
  const slugs = r.listPages(projectId)
  const synced = await writeback(deps, async (tx) => {
    const known = await listPagesTx(tx, projectId)
    const pages: { slug: string; sync_state: string; repo_path: string }[] = []
    for (const slug of slugs) {
      const repoPath = pagePath(projectId, slug)
      const { title, body } = parsePage(r.readPage(repoPath) ?? '', slug)
      const current = await findPageTx(tx, projectId, slug)
      // Unpushed local edits are never overwritten by a sync: push or pull the page itself.
      if (current && current.syncState !== 'in_sync' && current.syncState !== 'missing_in_repo') {
        pages.push({ slug, sync_state: current.syncState, repo_path: repoPath })
        continue
      }
      const same =
        current && current.title === title && current.body === body && current.syncState === 'in_sync'
      if (!same) {
        await upsertPageTx(tx, {
          projectId,
          slug,
          title,
          body,
          repoPath,
          syncState: 'in_sync',
          repoCommit: commit || null,
          updatedAt: nextVersion(current?.updatedAt ?? null, now),
        })
      }
      pages.push({ slug, sync_state: 'in_sync', repo_path: repoPath })
    }
    // Pages synced before whose file is gone from the repository.
    for (const p of known.filter((k) => !slugs.includes(k.slug) && k.syncState === 'in_sync')) {
      await updatePageTx(tx, projectId, p.slug, {
        syncState: 'missing_in_repo',
        updatedAt: nextVersion(p.updatedAt, now),
      })
      pages.push({ slug: p.slug, sync_state: 'missing_in_repo', repo_path: p.repoPath })
    }
    return pages
  })
  return { project_id: projectId, repo_commit: commit || null, pages: synced }
}

export async function pullPage(
  deps: PwsDeps,
  repo: PlanningRepo | undefined,
  projectId: string,
  slug: string,
  expected: string | undefined,
) {
  await requireProject(deps, projectId)
  const r = requireRepo(repo)
  await writeback(deps, (tx) => currentPage(tx, projectId, slug, expected))
  const commit = await withGit(deps, 'pull_from_repo', () => r.pull())
  const now = deps.now()
  const row = await writeback(deps, async (tx) => {
    const page = await currentPage(tx, projectId, slug, expected)
    const text = r.readPage(page.repoPath)
    if (text === undefined) {
      throw conflict(
        'page_missing_in_repo',
        `${page.repoPath} is not in the planning repository.`,
        {
          repo_path: page.repoPath,
          repo_commit: commit || null,
        },
        { consumer_remediation_actions: REMEDIATION.planning_page.stale, current_version: page.updatedAt },
      )
    }
    const { title, body } = parsePage(text, slug)
    return updatePageTx(tx, projectId, slug, {
      title,
      body,
      syncState: 'in_sync',
      repoCommit: commit || null,
      updatedAt: nextVersion(page.updatedAt, now),
    })
  })
  return syncResult(row)
}

export async function pushPage(
  deps: PwsDeps,
  repo: PlanningRepo | undefined,
  projectId: string,
  slug: string,
  expected: string | undefined,
) {
  await requireProject(deps, projectId)
  const r = requireRepo(repo)
  const page = await writeback(deps, (tx) => currentPage(tx, projectId, slug, expected))
  let commit: string
  try {
    commit = await withGit(deps, 'push_to_repo', () =>
      r.pushPage(
        page.repoPath,
        renderPage(page.title, page.body),
        `pws: update ${page.repoPath}`,
        page.repoCommit,
      ),
    )
  } catch (err) {
    if (!(err instanceof SyncConflict)) throw err
    const marked = await writeback(deps, (tx) =>
      updatePageTx(tx, projectId, slug, {
        syncState: 'conflicted',
        updatedAt: nextVersion(page.updatedAt, deps.now()),
      }),
    )
    throw conflict(
      'repository_conflict',
      `${page.repoPath} changed in the repository since it was pulled; pull, resolve and push again.`,
      {
        target_type: 'planning_page',
        target_key: slug,
        repo_path: page.repoPath,
        remote_commit: err.remoteHead,
      },
      {
        consumer_remediation_actions: ['refresh_metadata', 'open_diff_and_resolve', 'retry_writeback'],
        current_version: marked.updatedAt,
        conflict: {
          target_type: 'planning_page',
          target_key: slug,
          reason: 'repository_conflict',
          repo_path: page.repoPath,
        },
      },
    )
  }
  const now = deps.now()
  const row = await writeback(deps, async (tx) => {
    const current = await currentPage(tx, projectId, slug, expected)
    return updatePageTx(tx, projectId, slug, {
      syncState: 'in_sync',
      repoCommit: commit || null,
      updatedAt: nextVersion(current.updatedAt, now),
    })
  })
  return syncResult(row)
}

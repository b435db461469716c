import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Json, tempDir } from '../../../test/harness.ts'
import { bootPwsAsync } from '../testing.ts'

const root = tempDir('svc-pws-git-')
const remote = join(root, 'planning.git')
const other = join(root, 'other')

const git = (cwd: string, ...args: string[]) => {
  const r = Bun.spawnSync(['git', ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
  })
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.toString().trim()
}

// A bare remote with one page, written by another clone (a teammate).
git(root, 'init', '--quiet', '--bare', '-b', 'main', remote)
git(root, 'clone', '--quiet', remote, other)
git(other, 'checkout', '--quiet', '-b', 'main')
Bun.spawnSync(['mkdir', '-p', join(other, 'plan')])
writeFileSync(join(other, 'plan', 'roadmap.md'), '# Roadmap\n\nQ1: ship PWS.\n')
git(other, 'add', '.')
git(other, 'commit', '--quiet', '-m', 'roadmap')
git(other, 'push', '--quiet', '-u', 'origin', 'main')

const t = await bootPwsAsync({ PWS_PLANNING_REPO: remote })
const P = '/api/v1/projects/plan'
beforeAll(() => t.project('plan'))
afterAll(async () => {
  await t.u.dispose()
  rmSync(root, { recursive: true, force: true })
})

const page = async (slug: string): Promise<Json> => (await t.get(`${P}/planning/pages/${slug}`)).json()

describe('planning pages synced with a git repository', () => {
  test("sync-from-repo clones, pulls and mirrors the project's pages, in_sync", async () => {
    const res = await t.send('POST', `${P}/planning/pages/sync-from-repo`, {})
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.pages).toEqual([{ slug: 'roadmap', sync_state: 'in_sync', repo_path: 'plan/roadmap.md' }])
    expect(body.repo_commit).toBe(git(remote, 'rev-parse', 'main'))
    expect(await page('roadmap')).toMatchObject({
      title: 'Roadmap',
      body: 'Q1: ship PWS.\n',
      sync_state: 'in_sync',
    })
  })

  test('push-to-repo commits and pushes a local edit; the remote has it', async () => {
    const before = await page('roadmap')
    const edited = await (
      await t.send('PATCH', `${P}/planning/pages/roadmap`, {
        body: 'Q1: ship PWS.\nQ2: ship EIS.\n',
        expected_version: before.version_token,
      })
    ).json()
    expect(edited.sync_state).toBe('local_changes')
    const pushed = await t.send('POST', `${P}/planning/pages/roadmap/push-to-repo`, {
      expected_version: edited.version_token,
    })
    expect(pushed.status).toBe(200)
    const result = await pushed.json()
    expect(result).toMatchObject({ slug: 'roadmap', sync_state: 'in_sync', repo_path: 'plan/roadmap.md' })
    expect(result.repo_commit).toBe(git(remote, 'rev-parse', 'main'))
    git(other, 'pull', '--quiet', '--rebase')
    expect(await Bun.file(join(other, 'plan', 'roadmap.md')).text()).toBe(
      '# Roadmap\n\nQ1: ship PWS.\nQ2: ship EIS.\n',
    )
  })

  test("pull-from-repo brings a teammate's change in", async () => {
    writeFileSync(join(other, 'plan', 'roadmap.md'), '# Roadmap v2\n\nEverything.\n')
    git(other, 'commit', '--quiet', '-am', 'v2')
    git(other, 'push', '--quiet')
    const current = await page('roadmap')
    const res = await t.send('POST', `${P}/planning/pages/roadmap/pull-from-repo`, {
      expected_version: current.version_token,
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      sync_state: 'in_sync',
      repo_commit: git(remote, 'rev-parse', 'main'),
    })
    expect(await page('roadmap')).toMatchObject({ title: 'Roadmap v2', body: 'Everything.\n' })
  })

  test('missing or stale expected_version: 409 with conflict detail, and no git runs', async () => {
    const headBefore = git(remote, 'rev-parse', 'main')
    const current = await page('roadmap')
    const missing = await t.send('POST', `${P}/planning/pages/roadmap/push-to-repo`, {})
    expect(missing.status).toBe(409)
    expect(await missing.json()).toMatchObject({
      error: { code: 'expected_version_required' },
      consumer_remediation_actions: ['refresh_metadata', 'retry_writeback'],
      conflict: { target_type: 'planning_page', target_key: 'roadmap', repo_path: 'plan/roadmap.md' },
    })
    const stale = await t.send('POST', `${P}/planning/pages/roadmap/pull-from-repo`, {
      expected_version: '2020-01-01T00:00:00.000Z',
    })
    expect(stale.status).toBe(409)
    expect(await stale.json()).toMatchObject({
      error: { code: 'version_conflict' },
      current_version: current.version_token,
      conflict: { reason: 'expected_version_stale', sync_state: 'in_sync' },
    })
    expect(git(remote, 'rev-parse', 'main')).toBe(headBefore)
    expect(await page('roadmap')).toEqual(current)
  })

  test('a concurrent edit of the same lines is a repository conflict: 409, nothing pushed, page conflicted', async () => {
    const current = await page('roadmap')
    const local = await (
      await t.send('PATCH', `${P}/planning/pages/roadmap`, {
        title: 'Roadmap (ours)',
        expected_version: current.version_token,
      })
    ).json()
    writeFileSync(join(other, 'plan', 'roadmap.md'), '# Roadmap (theirs)\n\nEverything.\n')
    git(other, 'commit', '--quiet', '-am', 'theirs')
    git(other, 'push', '--quiet')
    const theirs = git(remote, 'rev-parse', 'main')
    const res = await t.send('POST', `${P}/planning/pages/roadmap/push-to-repo`, {
      expected_version: local.version_token,
    })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({
      error: { code: 'repository_conflict' },
      conflict: { reason: 'repository_conflict' },
    })
    expect(git(remote, 'rev-parse', 'main')).toBe(theirs)
    expect((await page('roadmap')).sync_state).toBe('conflicted')
  })

  test('new local pages push as new files; the planning integration sync reports sync_mode auto', async () => {
    const created = await (
      await t.send('POST', `${P}/planning/pages`, { slug: 'risks', title: 'Risks', body: 'None yet.' })
    ).json()
    expect(created).toMatchObject({ sync_state: 'local_changes', repo_path: 'plan/risks.md' })
    const pushed = await t.send('POST', `${P}/planning/pages/risks/push-to-repo`, {
      expected_version: created.version_token,
    })
    expect(pushed.status).toBe(200)
    git(other, 'pull', '--quiet', '--rebase')
    expect(await Bun.file(join(other, 'plan', 'risks.md')).text()).toBe('# Risks\n\nNone yet.\n')
    // The conflicted page stays conflicted through a sync until it is pulled (theirs) or pushed.
    const conflicted = await page('roadmap')
    expect(conflicted.sync_state).toBe('conflicted')
    const resolved = await t.send('POST', `${P}/planning/pages/roadmap/pull-from-repo`, {
      expected_version: conflicted.version_token,
    })
    expect((await resolved.json()).sync_state).toBe('in_sync')
    expect((await page('roadmap')).title).toBe('Roadmap (theirs)')
    const sync = await (await t.send('POST', `${P}/integrations/planning/sync`, {})).json()
    expect(sync).toMatchObject({ project_id: 'plan', sync_mode: 'auto' })
    expect(sync.result.pages.map((p: Json) => p.slug)).toEqual(['risks', 'roadmap'])
    const list = await (await t.get(`${P}/planning/pages`)).json()
    expect(list.items.every((p: Json) => p.sync_state === 'in_sync' && !('body' in p))).toBe(true)
    // A local edit is not overwritten by the next sync; a file removed upstream is reported.
    const risks = await page('risks')
    await t.send('PATCH', `${P}/planning/pages/risks`, {
      body: 'Unpushed.',
      expected_version: risks.version_token,
    })
    git(other, 'rm', '--quiet', 'plan/roadmap.md')
    git(other, 'commit', '--quiet', '-m', 'drop roadmap')
    git(other, 'push', '--quiet')
    const again = await (await t.send('POST', `${P}/planning/pages/sync-from-repo`, {})).json()
    expect(again.pages).toEqual([
      { slug: 'risks', sync_state: 'local_changes', repo_path: 'plan/risks.md' },
      { slug: 'roadmap', sync_state: 'missing_in_repo', repo_path: 'plan/roadmap.md' },
    ])
    expect((await page('risks')).body).toBe('Unpushed.')
  })
})

describe('planning without a repository, cycles and modules', () => {
  test('sync routes answer 503 planning_repo_not_configured; cycles and modules are created and counted', async () => {
    const bare = await bootPwsAsync()
    try {
      await bare.project('solo')
      const res = await bare.send('POST', '/api/v1/projects/solo/planning/pages/sync-from-repo', {})
      expect(res.status).toBe(503)
      expect((await res.json()).error.code).toBe('planning_repo_not_configured')
      const cycle = await bare.send('POST', '/api/v1/projects/solo/planning/cycles', {
        cycle_key: 'c1',
        title: 'Cycle 1',
        state: 'active',
      })
      expect(cycle.status).toBe(201)
      expect(
        (
          await bare.send('POST', '/api/v1/projects/solo/planning/cycles', {
            cycle_key: 'c1',
            title: 'again',
          })
        ).status,
      ).toBe(409)
      await bare.send('POST', '/api/v1/projects/solo/planning/modules', {
        module_key: 'auth',
        title: 'Auth',
        cycle_key: 'c1',
      })
      await bare.send('POST', '/api/v1/projects/solo/tasks', {
        title: 'Login',
        cycle_key: 'c1',
        module_key: 'auth',
      })
      expect((await (await bare.get('/api/v1/projects/solo/planning/cycles')).json()).items[0]).toMatchObject(
        { cycle_key: 'c1', task_count: 1 },
      )
      expect(
        (await (await bare.get('/api/v1/projects/solo/planning/modules')).json()).items[0],
      ).toMatchObject({ module_key: 'auth', cycle_key: 'c1', task_count: 1 })
      const summary = await (await bare.get('/api/v1/projects/solo/active-workflow')).json()
      expect(summary.platform_consumer_contract.workflow_wave).toBe('c1')
      expect(summary.planning_platform_drift).toMatchObject({ state: 'unbound', partial_visibility: true })
    } finally {
      await bare.u.dispose()
    }
  })
})

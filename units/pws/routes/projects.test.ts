import { afterAll, describe, expect, test } from 'bun:test'
import { bootPwsAsync, sessionCookie } from '../testing.ts'

const t = await bootPwsAsync()
afterAll(() => t.u.dispose())

describe('projects and lanes', () => {
  test('POST creates a project with the five default lanes; GET reads and lists it', async () => {
    const created = await t.send('POST', '/api/v1/projects', {
      project_id: 'team-a',
      name: 'Team A',
      primary_repo_ref: { provider: 'github', full_name: 'acme/app' },
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({
      project_id: 'team-a',
      primary_repo_ref: { provider: 'github', full_name: 'acme/app' },
    })
    expect((await (await t.get('/api/v1/projects/team-a')).json()).name).toBe('Team A')
    const lanes = await (await t.get('/api/v1/projects/team-a/lanes')).json()
    expect(lanes.items.map((l: { lane_key: string }) => l.lane_key)).toEqual([
      'backlog',
      'ready',
      'in_progress',
      'review',
      'done',
    ])
    const list = await (await t.get('/api/v1/projects')).json()
    expect(list.items.map((p: { project_id: string }) => p.project_id)).toContain('team-a')
  })

  test('a taken project_id is 409, a bad one 400, an unknown one 404', async () => {
    await t.project('dupe')
    const again = await t.send('POST', '/api/v1/projects', { project_id: 'dupe', name: 'x' })
    expect(again.status).toBe(409)
    expect((await again.json()).error.code).toBe('project_exists')
    expect((await t.send('POST', '/api/v1/projects', { project_id: 'Has Spaces', name: 'x' })).status).toBe(
      400,
    )
    const missing = await t.get('/api/v1/projects/nope')
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe('project_not_found')
    expect((await t.get('/api/v1/projects/nope/tasks')).status).toBe(404)
  })

  test('project lists page with limit and cursor; a foreign cursor is 400', async () => {
    for (const id of ['page-1', 'page-2', 'page-3']) await t.project(id)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const q: string = cursor ? `&cursor=${cursor}` : ''
      const page = await (await t.get(`/api/v1/projects?limit=2${q}`)).json()
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.items.map((p: { project_id: string }) => p.project_id))
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toEqual([...seen].sort())
    expect(seen).toEqual(expect.arrayContaining(['page-1', 'page-2', 'page-3']))
    expect(new Set(seen).size).toBe(seen.length)
    const bad = await t.get('/api/v1/projects?cursor=not-ours')
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe('invalid_cursor')
  })
})

describe('roles', () => {
  test('no session 401, stale 401, forged 401, viewer cannot write (403), operator can', async () => {
    const noCookie = await t.u.request('/api/v1/projects')
    expect(noCookie.status).toBe(401)
    expect((await noCookie.json()).error.code).toBe('session_required')
    const stale = await t.u.request('/api/v1/projects', { headers: { cookie: await sessionCookie('stale') } })
    expect(stale.status).toBe(401)
    expect((await stale.json()).error.code).toBe('session_stale')
    const forged = await t.u.request('/api/v1/projects', {
      headers: { cookie: await sessionCookie('forged') },
    })
    expect((await forged.json()).error.code).toBe('session_invalid')
    const viewerWrite = await t.send('POST', '/api/v1/projects', { project_id: 'v', name: 'v' }, 'viewer')
    expect(viewerWrite.status).toBe(403)
    expect((await viewerWrite.json()).error).toMatchObject({
      code: 'insufficient_role',
      details: { required_role: 'operator', role: 'viewer' },
    })
    expect((await t.get('/api/v1/projects/v')).status).toBe(404)
  })

  test('credentials are checked before the body: no session and a bad body is still 401', async () => {
    const res = await t.u.send('POST', '/api/v1/projects', { nonsense: true })
    expect(res.status).toBe(401)
  })
})

/**
 * `bun run bench pws`: PWS at the size issue 12 names (one project, 10 000 tasks, 2 000 open pull
 * requests, 1 000 of them linked to a task) against bare Bun.serve baselines in the same run.
 *   GET   …/active-workflow        vs the identical bytes (fetched from PWS once) from Bun.serve
 *   PATCH …/tasks/{task_key}       vs Bun.serve + JSON parse + one SQLite UPDATE … WHERE version = ?
 *                                  on a table of the same 10 000 task keys
 *   GET   …/delivery/review-queue  p50/p99 latency, one request at a time (target: p50 < 50 ms)
 * The data directory is seeded through PWS's own code before the unit starts: the project and
 * tasks through its routes, the pull requests through a manual provider sync from a local
 * GitHub-compatible host, linked tasks through the review queue's create-task route.
 * The baseline is this file run with PWS_BENCH_BASELINE=1.
 */
import { Database } from 'bun:sqlite'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { bootPwsAsync, sessionCookie, TEST_SESSION_SECRET } from '../units/pws/testing.ts'
import {
  type ComparedResult,
  compare,
  cpuMicros,
  DEFAULT_LOAD,
  type Result,
  ROUNDS,
  report,
  resultOf,
  startUnit,
  summarize,
  type Target,
} from './lib.ts'

const PROJECT = 'bench'
const P = `/api/v1/projects/${PROJECT}`
const TASKS = 10_000
const PULLS = 2_000
const LINKED = 1_000
const REPO = 'acme/app'

// ---------- baseline ----------

/** Bun.serve: the summary bytes as read from PWS, and a versioned lane change on SQLite. */
function serveBaseline() {
  const dir = process.env.PWS_BENCH_DIR as string
  const summary = Bun.file(join(dir, 'active-workflow.json'))
  const versions = JSON.parse(readFileSync(join(dir, 'versions.json'), 'utf8')) as Record<string, string>
  const db = new Database(join(dir, 'baseline.sqlite'), { create: true })
  db.run('PRAGMA busy_timeout = 5000')
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run(`CREATE TABLE tasks (project_id TEXT NOT NULL, task_key TEXT NOT NULL, title TEXT NOT NULL,
    lane TEXT NOT NULL, version TEXT NOT NULL, PRIMARY KEY (project_id, task_key))`)
  const insert = db.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (const [key, version] of Object.entries(versions))
      insert.run(PROJECT, key, `Task ${key}`, 'backlog', version)
    // The linked tasks PWS also holds, so both tables have the same 10 000 rows.
    for (let i = 1; i <= LINKED; i++) insert.run(PROJECT, `linked-${i}`, `Review ${i}`, 'review', 'v0')
  })()
  const update = db.prepare(
    'UPDATE tasks SET lane = ?, version = ? WHERE project_id = ? AND task_key = ? AND version = ?',
  )
  const prefix = `${P}/tasks/`
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return Response.json({ status: 'ok' })
      if (path === `${P}/active-workflow`)
        return new Response(summary, { headers: { 'content-type': 'application/json' } })
      if (req.method === 'PATCH' && path.startsWith(prefix)) {
        const key = path.slice(prefix.length)
        const body = (await req.json()) as { lane: string; expected_version: string }
        const version = new Date().toISOString()
        const { changes } = update.run(body.lane, version, PROJECT, key, body.expected_version)
        if (changes === 0) return Response.json({ error: { code: 'version_conflict' } }, { status: 409 })
        return Response.json({ task_key: key, lane: body.lane, version_token: version })
      }
      return new Response('not found', { status: 404 })
    },
  })
  process.on('SIGTERM', () => {
    server.stop(true)
    db.close()
    process.exit(0)
  })
}

if (process.env.PWS_BENCH_BASELINE === '1') serveBaseline()

// ---------- seeding ----------

/** A GitHub-compatible host with `PULLS` open pull requests, paginated as GitHub does. */
function codeHost(token: string) {
  const base = `/repos/${REPO}`
  const decisions = ['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', null] as const
  const day = 86_400_000
  const pulls = Array.from({ length: PULLS }, (_, i) => ({
    number: i + 1,
    title: `Change ${i + 1}`,
    html_url: `https://code.example/${REPO}/pull/${i + 1}`,
    user: { login: `dev${i % 40}` },
    head: { ref: `topic-${i + 1}` },
    base: { ref: 'main' },
    draft: i % 10 === 0,
    state: 'open',
    merged_at: null,
    requested_reviewers: i % 3 === 0 ? [{ login: 'rev' }] : [],
    comments: i % 7,
    updated_at: new Date(Date.now() - (i % 30) * day).toISOString(),
  }))
  const page = (url: URL, items: unknown[]) => {
    const n = Number(url.searchParams.get('page') ?? '1')
    const size = Number(url.searchParams.get('per_page') ?? '30')
    const headers = new Headers({ 'content-type': 'application/json' })
    if (n * size < items.length) {
      const next = new URL(url)
      next.searchParams.set('page', String(n + 1))
      headers.set('link', `<${next}>; rel="next"`)
    }
    return new Response(JSON.stringify(items.slice((n - 1) * size, n * size)), { headers })
  }
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return Response.json({}, { status: 401 })
      const url = new URL(req.url)
      const p = url.pathname
      if (p === base) return Response.json({ full_name: REPO, default_branch: 'main' })
      if (p === `${base}/pulls`) return page(url, pulls)
      const review = new RegExp(`^${base}/pulls/(\\d+)/reviews$`).exec(p)
      if (review) {
        const state = decisions[Number(review[1]) % decisions.length]
        return page(url, state ? [{ user: { login: 'rev' }, state, body: 'looked' }] : [])
      }
      if (p === `${base}/branches`) {
        const commit = { sha: 'c1', commit: { committer: { date: new Date().toISOString() } } }
        return page(url, [{ name: 'main', commit, protected: true }])
      }
      if (p === `${base}/releases`) return page(url, [])
      return Response.json({ message: 'Not Found' }, { status: 404 })
    },
  })
}

/** Seed `dir` through PWS's own routes and sync; returns each plain task's version token (exported for profiling). */
export async function seed(dir: string): Promise<Record<string, string>> {
  const token = 'bench-token-0123456789'
  const host = codeHost(token)
  const t = await bootPwsAsync({
    SVC_DATA_DIR: dir,
    PWS_GITHUB_URL: `http://127.0.0.1:${host.port}`,
    PWS_GITHUB_TOKEN: token,
  })
  const ok = async (res: Response, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, unknown>
  }
  try {
    await t.project(PROJECT, { primary_repo_ref: { provider: 'github', full_name: REPO } })
    const sync = await ok(await t.send('POST', `${P}/integrations/github/sync`, {}), 'sync')
    const items = (sync.result as { items: { pull_request: number } }).items
    if (items.pull_request !== PULLS) throw new Error(`synced ${items.pull_request} pull requests`)
    for (let i = 1; i <= LINKED; i++) {
      await ok(await t.send('POST', `${P}/delivery/review-queue/github/${i * 2}/create-task`, {}), 'link')
    }
    const versions: Record<string, string> = {}
    for (let i = 1; i <= TASKS - LINKED; i++) {
      const task = await ok(
        await t.send('POST', `${P}/tasks`, { task_key: `task-${i}`, title: `Task ${i}` }),
        'task',
      )
      versions[task.task_key as string] = task.version_token as string
    }
    return versions
  } finally {
    await t.u.close()
    host.stop(true)
  }
}

// ---------- stateful PATCH driver ----------

/**
 * PATCH lane changes at fixed concurrency for `seconds`: each connection owns a disjoint slice of
 * the tasks and sends each one's current version, then keeps the `version_token` it gets back.
 */
async function drivePatches(
  target: Target,
  scenario: string,
  versions: Map<string, { version: string; lane: string }>,
  cookie: string,
): Promise<Result> {
  const { seconds, connections } = DEFAULT_LOAD
  const keys = [...versions.keys()]
  const latencies: number[] = []
  let non2xx = 0
  const cpuBefore = cpuMicros(target.pid)
  const end = performance.now() + seconds * 1000
  const started = performance.now()
  const worker = async (w: number) => {
    const mine = keys.filter((_, i) => i % connections === w)
    for (let i = 0; performance.now() < end; i++) {
      const key = mine[i % mine.length] as string
      const cur = versions.get(key) as { version: string; lane: string }
      const lane = cur.lane === 'in_progress' ? 'review' : 'in_progress'
      const t0 = performance.now()
      const res = await fetch(`${target.url}${P}/tasks/${key}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ lane, expected_version: cur.version }),
      })
      const body = (await res.json()) as { version_token?: string }
      latencies.push(performance.now() - t0)
      if (res.status === 200 && body.version_token) versions.set(key, { version: body.version_token, lane })
      else non2xx++
    }
  }
  await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)))
  const elapsed = (performance.now() - started) / 1000
  return resultOf(target, scenario, { latencies, seconds: elapsed, non2xx, cpuBefore })
}

/** Baseline and unit alternate round by round; each side's median round, as `compare` reports. */
async function comparePatches(
  base: Target,
  unit: Target,
  versions: Record<string, string>,
  cookie: string,
): Promise<ComparedResult[]> {
  const scenario = `PATCH ${P}/tasks/{task_key} (lane change)`
  const state = () => new Map(Object.entries(versions).map(([k, v]) => [k, { version: v, lane: 'backlog' }]))
  const sides = [
    { target: base, versions: state(), rounds: [] as Result[] },
    { target: unit, versions: state(), rounds: [] as Result[] },
  ]
  for (let i = 0; i < ROUNDS; i++) {
    for (const s of sides) s.rounds.push(await drivePatches(s.target, scenario, s.versions, cookie))
  }
  const [b, u] = summarize(sides[0]?.rounds ?? [], sides[1]?.rounds ?? [])
  return [b, u]
}

/** Review queue latency, one request at a time after a warm-up, as a user's browser asks it. */
async function reviewQueueLatency(unit: Target, cookie: string, count = 100) {
  const url = `${unit.url}${P}/delivery/review-queue`
  let bytes = 0
  let items = 0
  for (let i = 0; i < 5; i++) await (await fetch(url, { headers: { cookie } })).arrayBuffer()
  const latencies: number[] = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    const res = await fetch(url, { headers: { cookie } })
    const text = await res.text()
    latencies.push(performance.now() - t0)
    if (res.status !== 200) throw new Error(`review queue: ${res.status} ${text}`)
    bytes = text.length
    items = (JSON.parse(text) as { items: unknown[] }).items.length
  }
  latencies.sort((a, b) => a - b)
  const pct = (q: number) => Math.round((latencies[Math.floor(latencies.length * q)] ?? 0) * 10) / 10
  return { p50: pct(0.5), p99: pct(0.99), count, bytes, items }
}

export default async function main(): Promise<string> {
  const dir = tempDir('bench-pws-')
  const seedStart = performance.now()
  const versions = await seed(dir)
  const seedSeconds = Math.round((performance.now() - seedStart) / 1000)
  const cookie = await sessionCookie('operator')
  const unit = await startUnit('pws', '/healthz', {
    SVC_DATA_DIR: dir,
    PWS_SESSION_SECRET: TEST_SESSION_SECRET,
  })
  let base: Target | undefined
  try {
    const summaryRes = await fetch(`${unit.url}${P}/active-workflow`, { headers: { cookie } })
    const summary = await summaryRes.text()
    if (summaryRes.status !== 200) throw new Error(`active-workflow: ${summaryRes.status} ${summary}`)
    writeFileSync(join(dir, 'active-workflow.json'), summary)
    writeFileSync(join(dir, 'versions.json'), JSON.stringify(versions))
    base = await startUnit(
      'baseline:bun-serve',
      '/healthz',
      { PWS_BENCH_BASELINE: '1', PWS_BENCH_DIR: dir },
      [process.execPath, 'bench/pws.ts'],
    )
    const rows: Result[] = [
      ...(await compare(base, unit, `GET ${P}/active-workflow`, {
        path: `${P}/active-workflow`,
        headers: { cookie },
      })),
      ...(await comparePatches(base, unit, versions, cookie)),
    ]
    const queue = await reviewQueueLatency(unit, cookie)
    const counts = JSON.parse(summary) as Record<string, unknown>
    return report('PWS', rows, [
      `Seeded in ${seedSeconds} s through PWS's own routes: project ${PROJECT} bound to github ${REPO}; ${PULLS} open pull requests ingested by a manual sync from a local GitHub-compatible host (100 per page, reviews per pull request); ${LINKED} review-lane tasks linked to them by the review queue's create-task route; ${TASKS - LINKED} plain tasks by POST …/tasks.`,
      `GET …/active-workflow: ${Math.round(summary.length / 1024)} KiB of JSON (top-level keys: ${Object.keys(counts).length}); the baseline serves the bytes PWS answered once. PWS computes it per request from the 10 000 task rows and the 2 000 pull requests.`,
      `PATCH: ${DEFAULT_LOAD.connections} connections, each owning a disjoint slice of the ${TASKS - LINKED} plain tasks and sending each one's current expected_version (then keeping the returned version_token); lanes alternate in_progress and review. The baseline parses the JSON and runs one UPDATE … WHERE task_key = ? AND version = ? on a table of the same 10 000 task keys (WAL, synchronous=NORMAL), without checking the session cookie; PWS verifies the pm_session HMAC, reads the task, judges the version, checks the lane and writes in one transaction. Both sides are driven by the same in-process fetch loop (not wrk: the driver must follow each task's version).`,
      `GET …/delivery/review-queue at ${TASKS} tasks and ${PULLS} open pull requests (${queue.items} items, ${Math.round(queue.bytes / 1024)} KiB): p50 ${queue.p50} ms, p99 ${queue.p99} ms over ${queue.count} sequential requests after 5 warm-up requests (target p50 < 50 ms: ${queue.p50 < 50 ? 'met' : 'NOT met'}).`,
      'PWS runs from source in production posture with info logging to a discarded stdout, the provider not configured (so no poll touches the seeded data).',
    ])
  } finally {
    await base?.stop()
    await unit.stop()
  }
}

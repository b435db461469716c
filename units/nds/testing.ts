/** Test helpers for NDS: a unit with its worker, API keys, and a server of the shipped fixtures. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../runtime/run.ts'
import { bootForTestAsync, type Json, type TestUnit } from '../../test/harness.ts'
import { issueApiKey } from './auth.ts'
import { nds } from './index.ts'
import { type Raw, rawReads, rawTransaction } from './raw.ts'
import { BUILTIN_MODEL, EMBED_DIMS } from './rules/embed.ts'
import { createStore } from './store.ts'

export const FIXTURES = join(import.meta.dir, 'fixtures')

const TYPES: Record<string, string> = {
  xml: 'application/rss+xml',
  atom: 'application/atom+xml',
  json: 'application/json',
  zip: 'application/zip',
  CSV: 'text/plain',
  txt: 'text/plain',
  html: 'text/html; charset=utf-8',
}

export interface FixtureServer {
  url: string
  /** Paths requested, in order, with the headers they came with. */
  requests: { path: string; headers: Headers }[]
  /** Serve something else at a path (a generated document, a failure). */
  route(path: string, handler: () => Response): void
  stop(): void
}

/** Serves units/nds/fixtures on 127.0.0.1; `{{BASE}}` in text files becomes the server's URL. */
export function fixtureServer(): FixtureServer {
  const routes = new Map<string, () => Response>()
  const requests: { path: string; headers: Headers }[] = []
  let base = ''
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req): Response {
      const url = new URL(req.url)
      requests.push({ path: url.pathname + url.search, headers: req.headers })
      const custom = routes.get(url.pathname)
      if (custom) return custom()
      const rel = url.pathname.replace(/^\/+/, '')
      if (rel.includes('..')) return new Response('no', { status: 400 })
      const file = join(FIXTURES, rel.startsWith('robots.txt') ? 'crawl/robots.txt' : rel)
      let bytes: Buffer
      try {
        bytes = readFileSync(file)
      } catch {
        return new Response('not found', { status: 404 })
      }
      const ext = file.split('.').pop() ?? ''
      const type = rel === 'rss/latin1.xml' ? 'application/xml' : (TYPES[ext] ?? 'application/octet-stream')
      const body: string | Buffer = /text|xml|json/.test(type)
        ? bytes.toString('latin1').replaceAll('{{BASE}}', base)
        : bytes
      return new Response(typeof body === 'string' ? Buffer.from(body, 'latin1') : body, {
        headers: { 'content-type': type },
      })
    },
  })
  base = `http://127.0.0.1:${server.port}`
  return {
    url: base,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    stop: () => void server.stop(true),
  }
}

export interface NdsTest extends Omit<TestUnit<unknown>, 'restart'> {
  restart(extraEnv?: Env): Promise<NdsTest>
  /** Start the ingest worker (bootForTest does not start background work). */
  startWorker(): void
  /** Wait until the worker has nothing left to do. */
  settle(): Promise<void>
}

/** NDS booted in process on the test driver (`SVC_TEST_DRIVER=libsql`: a fresh sqld of its own). */
export async function bootNds(env: Env = {}, dataDir?: string): Promise<NdsTest> {
  const unit = await bootForTestAsync(nds, { NDS_CRAWL_HOST_INTERVAL_MS: '0', ...env }, dataDir)
  return asNdsTest(unit)
}

function asNdsTest(unit: TestUnit<unknown>): NdsTest {
  const worker = unit.background[0] as unknown as { start(): void; idle(): Promise<void> }
  return {
    ...unit,
    startWorker: () => worker.start(),
    async settle() {
      await Bun.sleep(5)
      await worker.idle()
    },
    async restart(extraEnv = {}) {
      return asNdsTest(await unit.restart(extraEnv))
    },
  } as NdsTest
}

/** A new account and key in the unit's database, as `svc nds keys create` makes them. */
export async function createKey(unit: TestUnit<unknown>, name = 'analyst') {
  const store = createStore(unit.ctx.storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS })
  const account = await store.createAccount(name)
  const issued = await issueApiKey(store, account.accountId, name)
  return { accountId: account.accountId, key: issued.key, auth: { authorization: `Bearer ${issued.key}` } }
}

/** Poll a job until it leaves queued/running. */
export async function waitForJob(unit: NdsTest, jobId: string, auth: Record<string, string>): Promise<Json> {
  await unit.settle()
  for (let i = 0; i < 200; i++) {
    const job = await (await unit.request(`/v1/jobs/${jobId}`, { headers: auth })).json()
    if (job.state !== 'queued' && job.state !== 'running') return job
    await Bun.sleep(20)
  }
  throw new Error(`job ${jobId} did not finish`)
}

/** Plain SQL on a booted unit's database, on either driver: tests arrange and inspect rows. */
export function sqlOf(unit: TestUnit<unknown>): Raw {
  const reads = rawReads(unit.ctx.storage)
  return {
    all: (text, params) => reads.all(text, params),
    get: (text, params) => reads.get(text, params),
    run: (text, params) => rawTransaction(unit.ctx.storage, (raw) => raw.run(text, params)),
  }
}

/**
 * `bun run bench nds`: NDS at a generated corpus (NDS_BENCH_ARTICLES, default 100 000; the
 * 1 000 000-article run is `NDS_BENCH_ARTICLES=1000000 npm run bench -- nds`).
 *   1. ingest rate: RSS feeds generated from the corpus, served on 127.0.0.1, ingested by a job
 *      into a cold database (fetch, parse, normalize, embed, MinHash, FTS5, vectors);
 *   2. the rest of the corpus written through the store in batches (the same write path as the
 *      job's, no HTTP or XML): the fast way to a large corpus, streamed from the generator;
 *   3. the real process on that database: filter and semantic search latency over HTTP (p50, p95,
 *      p99, and the service's own took_ms), resident memory after the searches;
 *   4. recall@10 of the semantic search over HTTP against an exact scan of every stored vector;
 *   5. the physical bound: bytes a semantic query scans against this machine's memory read rate.
 * NDS_BENCH_DATA_DIR=<dir> skips 1 and 2 and measures 3-5 on the database a run left there (a run
 * keeps its directory when it fails; NDS_BENCH_KEEP=1 keeps it always).
 */
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../db/migrations/nds/index.ts'
import { openStorage, storageTarget } from '../db/storage.ts'
import { bootUnitAsync } from '../runtime/run.ts'
import { tempDir } from '../test/harness.ts'
import { issueApiKey } from '../units/nds/auth.ts'
import { type CorpusArticle, corpusStream } from '../units/nds/corpus.ts'
import { nds } from '../units/nds/index.ts'
import { BUILTIN_MODEL, dot, EMBED_DIMS, embedText } from '../units/nds/rules/embed.ts'
import { signature } from '../units/nds/rules/minhash.ts'
import { normalizeArticle } from '../units/nds/rules/normalize.ts'
import { contentHash, createStore, type NdsStore } from '../units/nds/store.ts'
import { MIN_POOL, POOL_SHARE } from '../units/nds/vector-index.ts'
import { ROOT, rssMb, type Target, waitUntilUp } from './lib.ts'

const N = Number(process.env.NDS_BENCH_ARTICLES ?? 100_000)
const FEED_ARTICLES = Math.min(N, Number(process.env.NDS_BENCH_FEED_ARTICLES ?? 20_000))
const FEED_SIZE = 1_000
const QUERIES = 200
const BATCH = 1_000
/** Semantic queries whose top 10 is checked against an exact scan. */
const RECALL_QUERIES = 20

const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return Math.round((s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0) * 100) / 100
}

function feedServer(corpus: CorpusArticle[]) {
  const feeds: string[] = []
  for (let i = 0; i < corpus.length; i += FEED_SIZE) {
    const items = corpus
      .slice(i, i + FEED_SIZE)
      .map(
        (a) =>
          `<item><title>${xml(String(a.title))}</title><link>${a.url}</link><pubDate>${new Date(String(a.publishedAt)).toUTCString()}</pubDate><category>${a.topic}</category><description>${xml(String(a.body))}</description></item>`,
      )
      .join('')
    feeds.push(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Bench feed ${i / FEED_SIZE}</title><language>en</language>${items}</channel></rss>`,
    )
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (req) =>
      new Response(feeds[Number(new URL(req.url).pathname.slice(1))] ?? '', {
        headers: { 'content-type': 'application/rss+xml' },
      }),
  })
  return { urls: feeds.map((_, i) => `http://127.0.0.1:${server.port}/${i}`), stop: () => server.stop(true) }
}

/** Memory read rate: memchr over a buffer much larger than the caches. */
function memoryReadGBps(): number {
  const buf = Buffer.alloc(256 * 1024 * 1024, 1)
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    buf.indexOf(0)
    best = Math.min(best, performance.now() - t)
  }
  return buf.byteLength / (best / 1000) / 1e9
}

/** A key on the database, made through the store as `svc nds keys create` makes one. */
async function benchKey(store: NdsStore) {
  const account = await store.createAccount('bench')
  const { key } = await issueApiKey(store, account.accountId, 'bench')
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
}

/**
 * The unit as an operator runs it (bench/lib.ts's startUnit allows 15 s to start; a million
 * vectors take longer to load into the index, so the deadline grows with the corpus).
 */
async function startNds(dataDir: string): Promise<Target> {
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'unit', 'nds'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SVC_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      SVC_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      NDS_PUBLIC_BASE_URL: 'https://nds.bench.example',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  await waitUntilUp(`${url}/v1/health/live`, proc, 'nds', 15_000 + N / 2)
  return {
    label: 'nds',
    url,
    pid: proc.pid,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

export default async function bench(): Promise<string> {
  const reuse = process.env.NDS_BENCH_DATA_DIR
  const loadBefore = loadavg().map((l) => l.toFixed(1))
  const lines: string[] = []
  let auth: Record<string, string>
  if (reuse) {
    const storage = await openStorage(storageTarget('nds', reuse), migrations)
    auth = await benchKey(createStore(storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS }))
    await storage.close()
  } else {
    auth = await build(lines)
  }
  return measure(reuse ?? BUILT_IN, auth, lines, loadBefore)
}

let BUILT_IN = ''

/** 1 and 2: the corpus into a cold database; returns the key's headers. */
async function build(lines: string[]): Promise<Record<string, string>> {
  const dataDir = tempDir('bench-nds-')
  BUILT_IN = dataDir
  const corpus = corpusStream(N)
  const head: CorpusArticle[] = []
  for (let i = 0; i < FEED_ARTICLES; i++) head.push(corpus.next().value as CorpusArticle)

  // 1. ingest from RSS feeds into a cold database, through a job
  const feeds = feedServer(head)
  const booted = await bootUnitAsync(nds, { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'silent', SVC_ENV: 'test' })
  for (const task of booted.background) task.start()
  const store = createStore(booted.ctx.storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS })
  const auth = await benchKey(store)
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  const job = (await (
    await booted.app.handle(
      new Request('http://localhost/v1/ingest/rss/backfill', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ urls: feeds.urls, from: '2000-01-01T00:00:00Z' }),
      }),
    )
  ).json()) as { job_id: string }
  let state = 'queued'
  let counts: Record<string, number> = {}
  while (state === 'queued' || state === 'running') {
    await Bun.sleep(100)
    const j = (await (
      await booted.app.handle(new Request(`http://localhost/v1/jobs/${job.job_id}`, { headers: auth }))
    ).json()) as {
      state: string
      counts: Record<string, number>
    }
    state = j.state
    counts = j.counts
  }
  const ingestS = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuStarted)
  feeds.stop()
  lines.push(
    `| ingest from RSS feeds (job, cold database) | ${counts.created} articles created of ${counts.fetched} fetched in ${ingestS.toFixed(1)} s | ${Math.round((counts.created ?? 0) / ingestS)} articles/s | job ${state}; CPU ${Math.round((cpu.user + cpu.system) / (counts.fetched ?? 1))} µs per fetched article (user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s, feed server included) |`,
  )

  // 2. the rest of the corpus through the store's batch writes
  const restStarted = performance.now()
  for (let i = FEED_ARTICLES; i < N; i += BATCH) {
    const raws: CorpusArticle[] = []
    for (let j = i; j < Math.min(N, i + BATCH); j++) raws.push(corpus.next().value as CorpusArticle)
    const batch = raws.map((raw) => {
      const n = normalizeArticle(raw)
      if (!n.ok) throw new Error(n.error)
      const text = `${n.article.title}\n${n.article.body}`
      return {
        ...n.article,
        source: 'rss',
        contentHash: contentHash(n.article),
        minhash: signature(`${n.article.title} ${n.article.body}`),
        vector: embedText(text),
      }
    })
    await store.applyArticles(batch, null)
    if ((i + BATCH) % 100_000 === 0)
      process.stderr.write(
        `nds bench: ${i + BATCH} articles stored, ${((performance.now() - restStarted) / 1000).toFixed(0)} s\n`,
      )
  }
  const restS = (performance.now() - restStarted) / 1000
  if (N > FEED_ARTICLES)
    lines.push(
      `| store batch writes (no HTTP) | ${N - FEED_ARTICLES} articles in ${restS.toFixed(1)} s | ${Math.round((N - FEED_ARTICLES) / restS)} articles/s | |`,
    )
  await booted.close()
  return auth
}

/** 3-5 on the database in `dataDir`. */
async function measure(
  dataDir: string,
  auth: Record<string, string>,
  lines: string[],
  loadBefore: string[],
): Promise<string> {
  // 3. the real process on that database
  const startedUnit = performance.now()
  const unit = await startNds(dataDir)
  lines.push(
    `| start of the real process (migrations, vector index filled) | ${((performance.now() - startedUnit) / 1000).toFixed(1)} s | | |`,
  )
  const words = [
    'port strike',
    'wind auction',
    'inflation rate',
    'glacier',
    'hydrogen train',
    'chip campus',
    'vaccine trial',
    'coalition vote',
  ]
  const places = ['Rotterdam', 'Hamburg', 'Geneva', 'Dresden', 'Porto']
  const measure = async (path: string, body: (i: number) => unknown) => {
    const wall: number[] = []
    const took: number[] = []
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now()
      const res = await fetch(`${unit.url}${path}`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify(body(i)),
      })
      const json = (await res.json()) as { took_ms: number }
      wall.push(performance.now() - t)
      took.push(json.took_ms)
    }
    return {
      p50: percentile(wall, 0.5),
      p95: percentile(wall, 0.95),
      p99: percentile(wall, 0.99),
      took50: percentile(took, 0.5),
    }
  }
  const filter = await measure('/v1/search/filter', (i) => ({
    query:
      i % 3 === 0
        ? `"${words[i % words.length]}"`
        : `${words[i % words.length]} ${places[i % places.length]}`,
    filters: i % 4 === 0 ? { languages: ['en'] } : undefined,
    limit: 20,
  }))
  const semantic = await measure('/v1/search/semantic', (i) => ({
    query: `${words[i % words.length]} in ${places[i % places.length]}`,
    limit: 10,
  }))
  const rss = rssMb(unit.pid)

  // 4. recall@10 over HTTP against an exact scan of every stored vector
  const recallQueries = Array.from({ length: RECALL_QUERIES }, (_, i) => {
    const text = `${words[(i * 3) % words.length]} ${places[i % places.length]} ${words[(i * 5 + 1) % words.length]}`
    return { text, vector: embedText(text) }
  })
  const served: string[][] = []
  for (const q of recallQueries) {
    const res = await fetch(`${unit.url}/v1/search/semantic`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ query: q.text, limit: 10 }),
    })
    served.push(
      ((await res.json()) as { results: { article_id: string }[] }).results.map((r) => r.article_id),
    )
  }
  await unit.stop()
  const recall = exactRecall(join(dataDir, 'nds.sqlite'), recallQueries, served)
  if (!process.env.NDS_BENCH_DATA_DIR && !process.env.NDS_BENCH_KEEP)
    rmSync(dataDir, { recursive: true, force: true })

  // 5. the physical bound
  const gbps = memoryReadGBps()
  const pool = Math.min(8_000, Math.max(MIN_POOL, Math.ceil(N / POOL_SHARE)))
  const scanned = N * 64 + pool * EMBED_DIMS + 40 * EMBED_DIMS * 4
  const boundMs = (scanned / (gbps * 1e9)) * 1000
  return [
    `### NDS at ${N} articles`,
    '',
    `${new Date().toISOString()}; 127.0.0.1; ${QUERIES} sequential queries per kind; built-in embedder (${EMBED_DIMS} dimensions); load average ${loadBefore.join(' ')} before, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} after (${navigator.hardwareConcurrency} CPUs).`,
    '',
    '| measure | value | rate | note |',
    '| --- | --- | ---: | --- |',
    ...lines,
    `| filter search (FTS5 BM25, limit 20) | p50 ${filter.p50} ms, p95 ${filter.p95} ms, p99 ${filter.p99} ms over HTTP | service p50 ${filter.took50} ms | |`,
    `| semantic search (top 10) | p50 ${semantic.p50} ms, p95 ${semantic.p95} ms, p99 ${semantic.p99} ms over HTTP | service p50 ${semantic.took50} ms | |`,
    `| semantic recall@10 against exact search | ${recall.toFixed(3)} | ${RECALL_QUERIES} queries | exact: every stored vector |`,
    `| resident memory after the searches | ${rss} MB | | real process |`,
    `| semantic bytes scanned per query | ${(scanned / 1e6).toFixed(1)} MB | bound ${boundMs.toFixed(2)} ms at ${gbps.toFixed(1)} GB/s | codes ${N}×64 B + int8 ${pool}×${EMBED_DIMS} B + floats 40×${EMBED_DIMS * 4} B |`,
  ].join('\n')
}

/** Share of the exact top 10 (dot product over every stored vector) that the service returned. */
function exactRecall(file: string, queries: { vector: Float32Array }[], served: string[][]): number {
  const db = new Database(file, { readonly: true })
  try {
    const best = queries.map(() => [] as { id: string; s: number }[])
    for (const row of db
      .query<{ id: string; vector: Uint8Array }, []>(
        'SELECT a.article_id AS id, v.vector FROM article_vectors v JOIN articles a ON a.seq = v.seq',
      )
      .iterate()) {
      const v = new Float32Array(new Uint8Array(row.vector).buffer)
      for (const [i, q] of queries.entries()) {
        const top = best[i] as { id: string; s: number }[]
        const s = dot(q.vector, v)
        if (top.length < 10 || s > (top.at(-1) as { s: number }).s) {
          top.push({ id: row.id, s })
          top.sort((a, b) => b.s - a.s)
          if (top.length > 10) top.pop()
        }
      }
    }
    let hits = 0
    for (const [i, top] of best.entries()) {
      const got = new Set(served[i])
      hits += top.filter((t) => got.has(t.id)).length
    }
    return hits / (queries.length * 10)
  } finally {
    db.close()
  }
}

/**
 * NDS data access: the only module that knows the tables (tables.ts, plus the FTS5 index of
 * migration 0001 and the in-memory vector index). Every function is async so callers already
 * await, ahead of the move to an async driver; the vector code stays behind these functions so
 * the index can move with the storage.
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import { sha256Hex } from '../../common/hash.ts'
import { newId, nowIso } from '../../common/time.ts'
import { writeCount } from '../../db/snapshot.ts'
import type { Sql, Storage } from '../../db/storage.ts'
import { type Param, type Raw, rawReads, rawTransaction } from './raw.ts'
import { BANDS, bandKeys, DUPLICATE_THRESHOLD, fromBytes, similarity, toBytes } from './rules/minhash.ts'
import type { NormalizedArticle } from './rules/normalize.ts'
import {
  accounts,
  apiKeys,
  articles,
  articleVersions,
  caseEvidence,
  events,
  exports,
  ingestJobs,
  paddleNotifications,
  researchRuns,
  snapshotFiles,
  snapshots,
  supportCases,
} from './tables.ts'
import { createVectorIndex, type VectorIndex } from './vector-index.ts'

export type Account = typeof accounts.$inferSelect
export type JobRow = typeof ingestJobs.$inferSelect
export type ArticleRow = typeof articles.$inferSelect
export type VersionRow = typeof articleVersions.$inferSelect
export type RunRow = typeof researchRuns.$inferSelect
export type SnapshotRow = typeof snapshots.$inferSelect
export type ExportRow = typeof exports.$inferSelect
export type CaseRow = typeof supportCases.$inferSelect
export type EvidenceRow = typeof caseEvidence.$inferSelect
export type GdeltEventRow = typeof events.$inferSelect

export const JOB_STATES = ['queued', 'running', 'succeeded', 'partially_failed', 'failed'] as const
export type JobState = (typeof JOB_STATES)[number]

/** An article ready to store: normalized, fingerprinted and (optionally) embedded. */
export interface PreparedArticle extends NormalizedArticle {
  source: string
  contentHash: string
  minhash: Uint32Array
  vector?: Float32Array
}

/** A query and filters: what snapshots, exports and research runs select. */
export interface Selection {
  match?: string
  filters: SearchFilters
}

export type Bucket = 'hour' | 'day' | 'week'
/** strftime formats of the time buckets (ISO week-ish: year and Monday-based week number). */
const BUCKET_FORMAT: Record<Bucket, string> = { hour: '%Y-%m-%dT%H:00:00Z', day: '%Y-%m-%d', week: '%Y-W%W' }

export type ApplyOutcome = 'created' | 'updated' | 'unchanged'

export interface SearchFilters {
  sources?: string[]
  source_names?: string[]
  languages?: string[]
  published_from?: string
  published_to?: string
  entity?: string
  representative_only?: boolean
}

export interface FilterHit {
  seq: number
  score: number | null
  snippet: string | null
  row: ArticleRow
}

export interface NdsStore {
  /** Fill the in-memory vector index from the stored vectors (at start, before requests). */
  loadVectors(): Promise<void>
  /** Whether the database answers now. */
  ready(): Promise<boolean>
  /** How many writes this process has committed so far (status snapshots, `db/snapshot.ts`). */
  writeCount(): number
  /** Whether a write transaction can be opened now. */
  writable(): Promise<boolean>
  /** The database's journal mode (`wal` on the embedded driver). */
  journalMode(): Promise<string>
  // accounts and keys
  createAccount(name: string): Promise<Account>
  getAccount(accountId: string): Promise<Account | undefined>
  findAccountByCustomer(customerId: string): Promise<Account | undefined>
  updateBilling(
    accountId: string,
    patch: Partial<
      Pick<Account, 'paddleCustomerId' | 'subscriptionId' | 'subscriptionStatus' | 'subscriptionUpdatedAt'>
    >,
  ): Promise<void>
  insertApiKey(
    accountId: string,
    name: string,
    keyHash: string,
  ): Promise<{ keyId: string; createdAt: string }>
  findApiKey(
    keyHash: string,
  ): Promise<{ keyId: string; accountId: string; lastUsedAt: string | null } | undefined>
  touchApiKey(keyId: string, at: string): Promise<void>
  listApiKeys(): Promise<
    {
      keyId: string
      accountId: string
      name: string
      createdAt: string
      lastUsedAt: string | null
      revokedAt: string | null
    }[]
  >
  /** Revoke a key; false when there is no such active key. */
  revokeApiKey(keyId: string, at: string): Promise<boolean>
  oldestActiveKeyAge(now: number): Promise<{ count: number; oldestCreatedAt: string | null }>
  /** Keys stored, and how many of them are not a SHA-256 hex digest. */
  keyHashAudit(): Promise<{ keys: number; notHashed: number }>
  // jobs
  insertJob(job: {
    accountId: string
    source: string
    mode: string
    request: Record<string, unknown>
  }): Promise<JobRow>
  getJob(jobId: string): Promise<JobRow | undefined>
  claimJob(): Promise<JobRow | undefined>
  finishJob(
    jobId: string,
    state: JobState,
    counts: Record<string, number>,
    errors: { item: string; error: string }[],
  ): Promise<void>
  recoverJobs(maxAttempts: number): Promise<{ requeued: number; failed: number }>
  jobStateCounts(): Promise<Record<string, number>>
  lastJobFinished(state: JobState): Promise<string | null>
  jobsFinishedSince(since: string): Promise<Record<string, number>>
  /** Jobs running since before `before` (a healthy worker finishes or is restarted sooner). */
  runningJobsStartedBefore(before: string): Promise<number>
  // articles
  knownHashes(urls: string[]): Promise<Map<string, string>>
  /**
   * Store a batch in one transaction (FTS5 writes one segment per commit: batches keep ingest
   * fast); with `progress`, the job's counts so far are written in the same transaction, so what
   * a job reports as stored is stored.
   */
  applyArticles(
    batch: PreparedArticle[],
    jobId: string | null,
    progress?: Record<string, number>,
  ): Promise<ApplyOutcome[]>
  getArticle(articleId: string): Promise<ArticleRow | undefined>
  articleVersions(articleId: string): Promise<VersionRow[]>
  clusterMembers(clusterId: string): Promise<ArticleRow[]>
  articlesOfJob(jobId: string, limit: number): Promise<ArticleRow[]>
  articleCount(): Promise<number>
  insertEvents(rows: GdeltEventRow[]): Promise<number>
  // search
  filterSearch(q: {
    match?: string
    filters: SearchFilters
    after?: { score: number | null; key: string; seq: number }
    limit: number
  }): Promise<FilterHit[]>
  allowedSeqs(filters: SearchFilters): Promise<Set<number> | undefined>
  /** Articles a query selects, in seq order (snapshots), at most `limit`. */
  selectArticles(q: Selection, limit: number): Promise<ArticleRow[]>
  articleBuckets(
    q: Selection & { from: string; to: string; bucket: Bucket },
  ): Promise<{ bucket: string; articles: number; sources: number }[]>
  topSources(q: Selection, limit: number): Promise<{ source_name: string; articles: number }[]>
  topEntities(q: Selection, limit: number): Promise<{ entity: string; articles: number }[]>
  clusterSummaries(
    q: Selection,
    limit: number,
  ): Promise<{ cluster_id: string; members: number; representative_title: string }[]>
  semanticCandidates(
    query: Float32Array,
    limit: number,
    allowed?: Set<number>,
  ): Promise<{ seq: number; score: number }[]>
  articlesBySeq(seqs: number[]): Promise<Map<number, ArticleRow>>
  vectorModel(): string
  vectorCount(): Promise<number>
  // datasets, exports, research
  insertSnapshot(
    s: {
      accountId: string
      manifest: Record<string, unknown>
      files: { name: string; contentType: string; bytes: Uint8Array; sha256: string }[]
    },
    snapshotId: string,
  ): Promise<SnapshotRow>
  getSnapshot(snapshotId: string): Promise<SnapshotRow | undefined>
  getSnapshotFile(
    snapshotId: string,
    name: string,
  ): Promise<{ contentType: string; bytes: Uint8Array; sha256: string } | undefined>
  insertExport(e: Omit<ExportRow, 'exportId' | 'createdAt'>): Promise<ExportRow>
  getExport(exportId: string): Promise<ExportRow | undefined>
  eventBuckets(q: { from: string; to: string; bucket: Bucket }): Promise<
    {
      bucket: string
      events: number
      mentions: number
      avg_goldstein: number | null
      avg_tone: number | null
    }[]
  >
  insertRun(accountId: string, request: Record<string, unknown>): Promise<RunRow>
  getRun(runId: string): Promise<RunRow | undefined>
  claimRun(): Promise<RunRow | undefined>
  finishRun(
    runId: string,
    state: 'succeeded' | 'failed',
    results: Record<string, unknown> | null,
    error: string | null,
  ): Promise<void>
  recoverRuns(maxAttempts: number): Promise<{ requeued: number; failed: number }>
  // support
  insertCase(c: { accountId: string; subject: string; description: string }): Promise<CaseRow>
  getCase(caseId: string): Promise<CaseRow | undefined>
  addEvidence(
    caseId: string,
    items: { kind: string; ref: string; origin: string; detail: Record<string, unknown> }[],
  ): Promise<number>
  caseEvidence(caseId: string): Promise<EvidenceRow[]>
  // billing
  recordNotification(n: {
    notificationId: string
    eventType: string
    accountId: string | null
    outcome: string
    payload: string
  }): Promise<boolean>
  lastNotificationAt(): Promise<string | null>
  unmatchedNotifications(): Promise<number>
}

/** Band matches examined per new article; boilerplate can make a band very common. */
const MAX_CANDIDATES = 500
const FTS_WEIGHTS = 'bm25(articles_fts, 3.0, 1.0)'

function filterClauses(f: SearchFilters, alias = 'a'): { where: string[]; params: Param[] } {
  const where: string[] = []
  const params: Param[] = []
  const list = (column: string, values: string[] | undefined) => {
    if (!values || values.length === 0) return
    where.push(`${alias}.${column} IN (${values.map(() => '?').join(',')})`)
    params.push(...values)
  }
  list('source', f.sources)
  list('source_name', f.source_names)
  list('language', f.languages)
  if (f.published_from) {
    where.push(`${alias}.published_at >= ?`)
    params.push(f.published_from)
  }
  if (f.published_to) {
    where.push(`${alias}.published_at <= ?`)
    params.push(f.published_to)
  }
  if (f.entity) {
    where.push(`${alias}.seq IN (SELECT seq FROM article_entities WHERE entity = ? COLLATE NOCASE)`)
    params.push(f.entity)
  }
  if (f.representative_only) where.push(`${alias}.cluster_id = ${alias}.article_id`)
  return { where, params }
}

/** `SELECT a.seq …` of the articles a selection admits, with its parameters. */
function selectionSql(q: Selection): { sql: string; params: Param[] } {
  const { where, params } = filterClauses(q.filters)
  if (q.match !== undefined) {
    return {
      sql: `SELECT a.seq FROM articles_fts JOIN articles a ON a.seq = articles_fts.rowid WHERE ${['articles_fts MATCH ?', ...where].join(' AND ')}`,
      params: [q.match, ...params],
    }
  }
  return { sql: `SELECT a.seq FROM articles a ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`, params }
}

const hasFilters = (f: SearchFilters) => filterClauses(f).where.length > 0

const ARTICLE_COLUMNS = `a.seq, a.article_id AS articleId, a.canonical_url AS canonicalUrl, a.source, a.source_name AS sourceName,
  a.title, a.body, a.language, a.published_at AS publishedAt, a.entities, a.version, a.content_hash AS contentHash,
  a.minhash, a.cluster_id AS clusterId, a.cluster_similarity AS clusterSimilarity,
  a.first_seen_at AS firstSeenAt, a.updated_at AS updatedAt`

type RawArticleRow = Omit<ArticleRow, 'entities'> & { entities: string }
const fromRaw = (r: RawArticleRow): ArticleRow => ({ ...r, entities: JSON.parse(r.entities) as string[] })

const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)
const fromBlob = (b: Uint8Array) =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))

/** Page cache per connection on the embedded driver, in KiB. */
const WRITER_CACHE_KB = 65_536
const READER_CACHE_KB = 32_768
/** Rows per page when the vector index is filled from the database at start. */
const LOAD_PAGE = 5_000

export function createStore(
  storage: Storage,
  vectors: { model: string; dims: number; minPool?: number },
): NdsStore {
  const index: VectorIndex = createVectorIndex(vectors.dims, vectors.minPool)
  const db = storage.db
  const reads: Raw = rawReads(storage)
  const e = storage.embedded
  if (e) {
    // A larger page cache per connection than SQLite's 2 MB default: ingest updates B-trees keyed
    // by URL and id (random order) and FTS5 segments, searches read posting lists and rows; with
    // 2 MB most of those pages came from the OS again on every batch (measured: a third of ingest).
    e.writer.run(`PRAGMA cache_size = -${WRITER_CACHE_KB}`)
    e.reader.run(`PRAGMA cache_size = -${READER_CACHE_KB}`)
  }

  const putVector = (seq: number, blob: Uint8Array) => {
    const v = fromBlob(blob)
    if (v.length === vectors.dims) index.put(seq, v)
  }

  /** The most similar existing article (another URL) at or above the duplicate threshold. */
  const nearestDuplicate = async (raw: Raw, sig: Uint32Array, keys: number[], canonical: string) => {
    const candidates = await raw.all<{ minhash: Uint8Array; cluster_id: string; canonical_url: string }>(
      `SELECT a.minhash, a.cluster_id, a.canonical_url FROM articles a WHERE a.seq IN
         (SELECT DISTINCT seq FROM article_bands WHERE band_key IN (${keys.map(() => '?').join(',')}) LIMIT ${MAX_CANDIDATES})`,
      keys,
    )
    let best: { clusterId: string; similarity: number } | undefined
    for (const c of candidates) {
      if (c.canonical_url === canonical) continue
      const sim = similarity(sig, fromBytes(c.minhash))
      if (sim >= DUPLICATE_THRESHOLD && (!best || sim > best.similarity))
        best = { clusterId: c.cluster_id, similarity: sim }
    }
    return best
  }

  /** The ingest write path's statements (cached by text on the embedded writer). */
  const ARTICLE_CONTENT =
    'source, source_name, title, body, language, published_at, entities, version, content_hash, minhash, cluster_id, cluster_similarity'
  const W = {
    existing:
      'SELECT seq, article_id, version, content_hash, cluster_id FROM articles WHERE canonical_url = ?',
    insertArticle: `INSERT INTO articles (article_id, canonical_url, ${ARTICLE_CONTENT}, first_seen_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    updateArticle: `UPDATE articles SET (${ARTICLE_CONTENT}, updated_at) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE seq = ?`,
    deleteEntities: 'DELETE FROM article_entities WHERE seq = ?',
    deleteBands: 'DELETE FROM article_bands WHERE seq = ?',
    insertVersion:
      'INSERT INTO article_versions (article_id, version, content_hash, title, body, published_at, job_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    /** All of an article's band rows in one statement (BANDS rows). */
    insertBands: `INSERT OR IGNORE INTO article_bands (band_key, seq) VALUES ${Array.from({ length: BANDS }, () => '(?, ?)').join(', ')}`,
    insertEntity: 'INSERT OR IGNORE INTO article_entities (seq, entity) VALUES (?, ?)',
    upsertVector: `INSERT INTO article_vectors (seq, model, vector, change)
       VALUES (?, ?, ?, (SELECT coalesce(max(change), 0) + 1 FROM article_vectors))
       ON CONFLICT(seq) DO UPDATE SET model = excluded.model, vector = excluded.vector, change = excluded.change`,
    progress: 'UPDATE ingest_jobs SET counts = ? WHERE job_id = ?',
  }

  const applyOne = async (
    raw: Raw,
    a: PreparedArticle,
    jobId: string | null,
    at: string,
  ): Promise<{ outcome: ApplyOutcome; seq?: number }> => {
    const existing = await raw.get<{
      seq: number
      article_id: string
      version: number
      content_hash: string
      cluster_id: string
    }>(W.existing, [a.canonicalUrl])
    if (existing && existing.content_hash === a.contentHash) return { outcome: 'unchanged' }
    const keys = bandKeys(a.minhash)
    const articleId = existing?.article_id ?? newId()
    const duplicate = await nearestDuplicate(raw, a.minhash, keys, a.canonicalUrl)
    const [clusterId, clusterSimilarity] =
      duplicate && duplicate.clusterId !== articleId
        ? [duplicate.clusterId, duplicate.similarity]
        : [existing?.cluster_id ?? articleId, 1]
    const version = existing ? existing.version + 1 : 1
    const content: Param[] = [
      a.source,
      a.sourceName,
      a.title,
      a.body,
      a.language,
      a.publishedAt,
      JSON.stringify(a.entities),
      version,
      a.contentHash,
      toBytes(a.minhash),
      clusterId,
      clusterSimilarity,
    ]
    let seq: number
    if (existing) {
      seq = existing.seq
      await raw.run(W.updateArticle, [...content, at, seq])
      await raw.run(W.deleteEntities, [seq])
      await raw.run(W.deleteBands, [seq])
    } else {
      const row = await raw.get<{ seq: number }>(W.insertArticle, [
        articleId,
        a.canonicalUrl,
        ...content,
        at,
        at,
      ])
      seq = (row as { seq: number }).seq
    }
    await raw.run(W.insertVersion, [
      articleId,
      version,
      a.contentHash,
      a.title,
      a.body,
      a.publishedAt,
      jobId,
      at,
    ])
    await raw.run(
      W.insertBands,
      keys.flatMap((key) => [key, seq]),
    )
    for (const entity of a.entities) await raw.run(W.insertEntity, [seq, entity])
    if (a.vector) await raw.run(W.upsertVector, [seq, vectors.model, toBlob(a.vector)])
    return { outcome: existing ? 'updated' : 'created', seq }
  }

  const claim = (table: 'ingest_jobs' | 'research_runs', idColumn: string) =>
    rawTransaction(storage, async (raw) => {
      const next = await raw.get<{ id: string }>(
        `SELECT ${idColumn} AS id FROM ${table} WHERE state = 'queued' ORDER BY created_at LIMIT 1`,
      )
      if (!next) return undefined
      await raw.run(
        `UPDATE ${table} SET state = 'running', attempts = attempts + 1, started_at = ? WHERE ${idColumn} = ?`,
        [nowIso(), next.id],
      )
      return next.id
    })

  const recover = (table: 'ingest_jobs' | 'research_runs', maxAttempts: number, failure: string) =>
    rawTransaction(storage, async (raw) => {
      const at = nowIso()
      const failedCol =
        table === 'ingest_jobs'
          ? `errors = json_insert(errors, '$[#]', json_object('item', 'job', 'error', ?))`
          : 'error = ?'
      const failed = await raw.run(
        `UPDATE ${table} SET state = 'failed', finished_at = ?, ${failedCol} WHERE state = 'running' AND attempts >= ?`,
        [at, failure, maxAttempts],
      )
      const requeued = await raw.run(`UPDATE ${table} SET state = 'queued' WHERE state = 'running'`)
      return { requeued, failed }
    })

  /** The largest `change` of article_vectors this process's index holds (or has passed). */
  let seen = 0
  const lastChange = async (raw: Raw) =>
    (await raw.get<{ c: number }>('SELECT coalesce(max(change), 0) AS c FROM article_vectors'))?.c ?? 0
  /**
   * Bring the index in step with vectors written since it was filled, by this process or by
   * another on the same database: one indexed range read, usually empty.
   */
  const catchUp = async () => {
    for (;;) {
      const rows = await reads.all<{ seq: number; model: string; vector: Uint8Array; change: number }>(
        'SELECT seq, model, vector, change FROM article_vectors WHERE change > ? ORDER BY change LIMIT ?',
        [seen, LOAD_PAGE],
      )
      for (const row of rows) {
        if (row.model === vectors.model) putVector(row.seq, row.vector)
        seen = row.change
      }
      if (rows.length < LOAD_PAGE) return
    }
  }

  /** One single-statement write through Drizzle. */
  const write = (fn: (tx: Sql) => Promise<unknown>) => storage.transaction(async (tx) => void (await fn(tx)))

  const store: NdsStore = {
    async loadVectors() {
      // Vectors written from here on have a larger `change`: catchUp() reads them (again) later.
      seen = await lastChange(reads)
      if (e) {
        for (const row of e.reader
          .query<{ seq: number; vector: Uint8Array }, [string]>(
            'SELECT seq, vector FROM article_vectors WHERE model = ?',
          )
          .iterate(vectors.model))
          putVector(row.seq, row.vector)
        return
      }
      for (let after = -1; ; ) {
        const page = await reads.all<{ seq: number; vector: Uint8Array }>(
          'SELECT seq, vector FROM article_vectors WHERE model = ? AND seq > ? ORDER BY seq LIMIT ?',
          [vectors.model, after, LOAD_PAGE],
        )
        for (const row of page) putVector(row.seq, row.vector)
        if (page.length < LOAD_PAGE) return
        after = (page.at(-1) as { seq: number }).seq
      }
    },
    ready: () => storage.ready(),
    writeCount: writeCount(storage),
    async writable() {
      try {
        await storage.transaction(async () => undefined)
        return true
      } catch {
        return false
      }
    },
    async journalMode() {
      const row = await reads.get<{ journal_mode?: string }>('PRAGMA journal_mode')
      return row?.journal_mode ?? 'unknown'
    },

    async createAccount(name) {
      const row = { accountId: newId(), name, createdAt: nowIso() }
      await write((tx) => tx.insert(accounts).values(row))
      return {
        ...row,
        paddleCustomerId: null,
        subscriptionId: null,
        subscriptionStatus: null,
        subscriptionUpdatedAt: null,
      }
    },
    async getAccount(accountId) {
      return db.select().from(accounts).where(eq(accounts.accountId, accountId)).get()
    },
    async findAccountByCustomer(customerId) {
      return db.select().from(accounts).where(eq(accounts.paddleCustomerId, customerId)).get()
    },
    async updateBilling(accountId, patch) {
      await write((tx) => tx.update(accounts).set(patch).where(eq(accounts.accountId, accountId)))
    },
    async insertApiKey(accountId, name, keyHash) {
      const row = { keyId: newId(), accountId, name, keyHash, createdAt: nowIso() }
      await write((tx) => tx.insert(apiKeys).values(row))
      return { keyId: row.keyId, createdAt: row.createdAt }
    },
    async findApiKey(keyHash) {
      const row = await db
        .select({
          keyId: apiKeys.keyId,
          accountId: apiKeys.accountId,
          revokedAt: apiKeys.revokedAt,
          lastUsedAt: apiKeys.lastUsedAt,
        })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, keyHash))
        .get()
      return row && row.revokedAt === null
        ? { keyId: row.keyId, accountId: row.accountId, lastUsedAt: row.lastUsedAt }
        : undefined
    },
    async touchApiKey(keyId, at) {
      await write((tx) => tx.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.keyId, keyId)))
    },
    async listApiKeys() {
      return db
        .select({
          keyId: apiKeys.keyId,
          accountId: apiKeys.accountId,
          name: apiKeys.name,
          createdAt: apiKeys.createdAt,
          lastUsedAt: apiKeys.lastUsedAt,
          revokedAt: apiKeys.revokedAt,
        })
        .from(apiKeys)
        .orderBy(asc(apiKeys.createdAt))
        .all()
    },
    async revokeApiKey(keyId, at) {
      const changed = await rawTransaction(storage, (raw) =>
        raw.run('UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL', [at, keyId]),
      )
      return changed === 1
    },
    async oldestActiveKeyAge() {
      const row = await reads.get<{ count: number; oldest: string | null }>(
        'SELECT count(*) AS count, min(created_at) AS oldest FROM api_keys WHERE revoked_at IS NULL',
      )
      return { count: row?.count ?? 0, oldestCreatedAt: row?.oldest ?? null }
    },
    async keyHashAudit() {
      const row = await reads.get<{ n: number; bad: number | null }>(
        "SELECT count(*) AS n, sum(CASE WHEN length(key_hash) = 64 AND key_hash NOT GLOB '*[^0-9a-f]*' THEN 0 ELSE 1 END) AS bad FROM api_keys",
      )
      return { keys: row?.n ?? 0, notHashed: row?.bad ?? 0 }
    },

    async insertJob(job) {
      const row: JobRow = {
        jobId: newId(),
        ...job,
        state: 'queued',
        attempts: 0,
        counts: {},
        errors: [],
        createdAt: nowIso(),
        startedAt: null,
        finishedAt: null,
      }
      await write((tx) => tx.insert(ingestJobs).values(row))
      return row
    },
    async getJob(jobId) {
      return db.select().from(ingestJobs).where(eq(ingestJobs.jobId, jobId)).get()
    },
    async claimJob() {
      const id = await claim('ingest_jobs', 'job_id')
      return id ? db.select().from(ingestJobs).where(eq(ingestJobs.jobId, id)).get() : undefined
    },
    async finishJob(jobId, state, counts, errors) {
      await write((tx) =>
        tx
          .update(ingestJobs)
          .set({ state, counts, errors, finishedAt: nowIso() })
          .where(eq(ingestJobs.jobId, jobId)),
      )
    },
    async recoverJobs(maxAttempts) {
      return recover('ingest_jobs', maxAttempts, 'interrupted by a restart too many times')
    },
    async jobStateCounts() {
      const rows = await reads.all<{ state: string; n: number }>(
        'SELECT state, count(*) AS n FROM ingest_jobs GROUP BY state',
      )
      return Object.fromEntries(JOB_STATES.map((s) => [s, rows.find((r) => r.state === s)?.n ?? 0]))
    },
    async lastJobFinished(state) {
      const row = await reads.get<{ at: string | null }>(
        'SELECT max(finished_at) AS at FROM ingest_jobs WHERE state = ?',
        [state],
      )
      return row?.at ?? null
    },
    async jobsFinishedSince(since) {
      const rows = await reads.all<{ state: string; n: number }>(
        'SELECT state, count(*) AS n FROM ingest_jobs WHERE finished_at >= ? GROUP BY state',
        [since],
      )
      return Object.fromEntries(rows.map((r) => [r.state, r.n]))
    },
    async runningJobsStartedBefore(before) {
      const row = await reads.get<{ n: number }>(
        "SELECT count(*) AS n FROM ingest_jobs WHERE state = 'running' AND started_at < ?",
        [before],
      )
      return row?.n ?? 0
    },

    async knownHashes(urls) {
      const out = new Map<string, string>()
      for (let i = 0; i < urls.length; i += 500) {
        const part = urls.slice(i, i + 500)
        const rows = await db
          .select({ url: articles.canonicalUrl, hash: articles.contentHash })
          .from(articles)
          .where(inArray(articles.canonicalUrl, part))
          .all()
        for (const r of rows) out.set(r.url, r.hash)
      }
      return out
    },

    async applyArticles(batch, jobId, progress) {
      const { results, before, after } = await rawTransaction(storage, async (raw) => {
        const at = nowIso()
        const before = await lastChange(raw)
        const out: { outcome: ApplyOutcome; seq?: number }[] = []
        for (const a of batch) out.push(await applyOne(raw, a, jobId, at))
        if (jobId !== null && progress) {
          const counts = { ...progress }
          for (const r of out) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1
          await raw.run(W.progress, [JSON.stringify(counts), jobId])
        }
        return { results: out, before, after: await lastChange(raw) }
      })
      for (const [i, r] of results.entries()) {
        const vector = batch[i]?.vector
        if (r.seq !== undefined && vector) index.put(r.seq, vector)
      }
      // The index now holds this batch's vectors: when it held everything before the batch
      // (writers take turns, so the changes in between are all this batch's), catchUp() need not
      // read them back. Otherwise it reads from where it was, theirs and another process's.
      if (seen === before) seen = Math.max(seen, after)
      return results.map((r) => r.outcome)
    },

    async getArticle(articleId) {
      return db.select().from(articles).where(eq(articles.articleId, articleId)).get()
    },
    async articleVersions(articleId) {
      return db
        .select()
        .from(articleVersions)
        .where(eq(articleVersions.articleId, articleId))
        .orderBy(asc(articleVersions.version))
        .all()
    },
    async clusterMembers(clusterId) {
      return db
        .select()
        .from(articles)
        .where(eq(articles.clusterId, clusterId))
        .orderBy(asc(articles.seq))
        .limit(1000)
        .all()
    },
    async articlesOfJob(jobId, limit) {
      const rows = await reads.all<RawArticleRow>(
        `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.article_id IN
           (SELECT article_id FROM article_versions WHERE job_id = ?) ORDER BY a.seq LIMIT ?`,
        [jobId, limit],
      )
      return rows.map(fromRaw)
    },
    async articleCount() {
      return (await reads.get<{ n: number }>('SELECT count(*) AS n FROM articles'))?.n ?? 0
    },
    async insertEvents(rows) {
      if (rows.length === 0) return 0
      return storage.transaction(async (tx) => {
        let n = 0
        for (let i = 0; i < rows.length; i += 200) {
          const part = rows.slice(i, i + 200)
          const inserted = await tx
            .insert(events)
            .values(part)
            .onConflictDoNothing()
            .returning({ id: events.globalEventId })
            .all()
          n += inserted.length
        }
        return n
      })
    },

    async filterSearch({ match, filters, after, limit }) {
      const { where, params } = filterClauses(filters)
      if (match !== undefined) {
        // Rank on (rowid, score) only: SQLite sorts every match with all selected columns, so
        // bodies and snippets are read afterwards for the page alone.
        const score = FTS_WEIGHTS
        const w = ['articles_fts MATCH ?', ...where]
        const p: Param[] = [match, ...params]
        if (after && after.score !== null) {
          w.push(`(${score} > ? OR (${score} = ? AND articles_fts.rowid > ?))`)
          p.push(after.score, after.score, after.seq)
        }
        p.push(limit)
        const join = where.length > 0 ? 'JOIN articles a ON a.seq = articles_fts.rowid' : ''
        const ranked = await reads.all<{ seq: number; score: number }>(
          `SELECT articles_fts.rowid AS seq, ${score} AS score FROM articles_fts ${join}
           WHERE ${w.join(' AND ')} ORDER BY score, seq LIMIT ?`,
          p,
        )
        if (ranked.length === 0) return []
        const marks = ranked.map(() => '?').join(',')
        const seqs = ranked.map((r) => r.seq)
        const snippets = new Map(
          (
            await reads.all<{ seq: number; snippet: string }>(
              `SELECT rowid AS seq, snippet(articles_fts, 1, '[', ']', '…', 16) AS snippet FROM articles_fts
               WHERE articles_fts MATCH ? AND rowid IN (${marks})`,
              [match, ...seqs],
            )
          ).map((r) => [r.seq, r.snippet]),
        )
        const rows = await store.articlesBySeq(seqs)
        return ranked.flatMap((r) => {
          const row = rows.get(r.seq)
          return row ? [{ seq: r.seq, score: r.score, snippet: snippets.get(r.seq) ?? null, row }] : []
        })
      }
      const w = [...where]
      const p: Param[] = [...params]
      if (after) {
        w.push("(coalesce(a.published_at, '') < ? OR (coalesce(a.published_at, '') = ? AND a.seq < ?))")
        p.push(after.key, after.key, after.seq)
      }
      p.push(limit)
      const rows = await reads.all<RawArticleRow>(
        `SELECT ${ARTICLE_COLUMNS} FROM articles a ${w.length ? `WHERE ${w.join(' AND ')}` : ''}
         ORDER BY coalesce(a.published_at, '') DESC, a.seq DESC LIMIT ?`,
        p,
      )
      return rows.map((r) => ({ seq: r.seq, score: null, snippet: null, row: fromRaw(r) }))
    },

    async allowedSeqs(filters) {
      if (!hasFilters(filters)) return undefined
      const { where, params } = filterClauses(filters)
      const rows = await reads.all<{ seq: number }>(
        `SELECT a.seq FROM articles a WHERE ${where.join(' AND ')}`,
        params,
      )
      return new Set(rows.map((r) => r.seq))
    },

    async selectArticles(q, limit) {
      const sel = selectionSql(q)
      const rows = await reads.all<RawArticleRow>(
        `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.seq IN (${sel.sql}) ORDER BY a.seq LIMIT ?`,
        [...sel.params, limit],
      )
      return rows.map(fromRaw)
    },
    async articleBuckets(q) {
      const sel = selectionSql(q)
      return reads.all<{ bucket: string; articles: number; sources: number }>(
        `SELECT strftime(?, a.published_at) AS bucket, count(*) AS articles, count(DISTINCT a.source_name) AS sources
         FROM articles a WHERE a.seq IN (${sel.sql}) AND a.published_at >= ? AND a.published_at <= ?
         GROUP BY bucket ORDER BY bucket`,
        [BUCKET_FORMAT[q.bucket], ...sel.params, q.from, q.to],
      )
    },
    async topSources(q, limit) {
      const sel = selectionSql(q)
      return reads.all<{ source_name: string; articles: number }>(
        `SELECT a.source_name, count(*) AS articles FROM articles a WHERE a.seq IN (${sel.sql})
         GROUP BY a.source_name ORDER BY articles DESC, a.source_name LIMIT ?`,
        [...sel.params, limit],
      )
    },
    async topEntities(q, limit) {
      const sel = selectionSql(q)
      return reads.all<{ entity: string; articles: number }>(
        `SELECT e.entity, count(*) AS articles FROM article_entities e WHERE e.seq IN (${sel.sql})
         GROUP BY e.entity ORDER BY articles DESC, e.entity LIMIT ?`,
        [...sel.params, limit],
      )
    },
    async clusterSummaries(q, limit) {
      const sel = selectionSql(q)
      return reads.all<{ cluster_id: string; members: number; representative_title: string }>(
        `SELECT a.cluster_id, count(*) AS members,
           coalesce((SELECT r.title FROM articles r WHERE r.article_id = a.cluster_id), min(a.title)) AS representative_title
         FROM articles a WHERE a.seq IN (${sel.sql})
         GROUP BY a.cluster_id HAVING count(*) > 1 ORDER BY members DESC, a.cluster_id LIMIT ?`,
        [...sel.params, limit],
      )
    },

    async semanticCandidates(query, limit, allowed) {
      await catchUp()
      const pool = index.nearest(query, Math.max(limit * 4, 40), allowed ? (s) => allowed.has(s) : undefined)
      if (pool.length === 0) return []
      const exact = await reads.all<{ seq: number; vector: Uint8Array }>(
        `SELECT seq, vector FROM article_vectors WHERE seq IN (${pool.map(() => '?').join(',')})`,
        pool.map((c) => c.seq),
      )
      const scored = exact.map((r) => {
        const v = fromBlob(r.vector)
        let s = 0
        for (let i = 0; i < v.length; i++) s += (v[i] as number) * (query[i] as number)
        return { seq: r.seq, score: s }
      })
      scored.sort((x, y) => y.score - x.score || x.seq - y.seq)
      return scored.slice(0, limit)
    },

    async articlesBySeq(seqs) {
      if (seqs.length === 0) return new Map()
      const rows = await reads.all<RawArticleRow>(
        `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.seq IN (${seqs.map(() => '?').join(',')})`,
        seqs,
      )
      return new Map(rows.map((r) => [r.seq, fromRaw(r)]))
    },
    vectorModel: () => vectors.model,
    async vectorCount() {
      return index.size()
    },

    async insertSnapshot(s, snapshotId) {
      const row = {
        snapshotId,
        accountId: s.accountId,
        state: 'ready',
        manifest: s.manifest,
        createdAt: String(s.manifest.created_at),
      }
      await storage.transaction(async (tx) => {
        await tx.insert(snapshots).values(row)
        for (const f of s.files) {
          await tx.insert(snapshotFiles).values({
            snapshotId,
            name: f.name,
            contentType: f.contentType,
            bytes: Buffer.from(f.bytes),
            sha256: f.sha256,
          })
        }
      })
      return row
    },
    async getSnapshot(snapshotId) {
      return db.select().from(snapshots).where(eq(snapshots.snapshotId, snapshotId)).get()
    },
    async getSnapshotFile(snapshotId, name) {
      const row = await db
        .select({
          contentType: snapshotFiles.contentType,
          bytes: snapshotFiles.bytes,
          sha256: snapshotFiles.sha256,
        })
        .from(snapshotFiles)
        .where(and(eq(snapshotFiles.snapshotId, snapshotId), eq(snapshotFiles.name, name)))
        .get()
      return row
        ? { contentType: row.contentType, bytes: new Uint8Array(row.bytes), sha256: row.sha256 }
        : undefined
    },
    async insertExport(x) {
      const row = { ...x, exportId: newId(), createdAt: nowIso() }
      await write((tx) => tx.insert(exports).values(row))
      return row
    },
    async getExport(exportId) {
      return db.select().from(exports).where(eq(exports.exportId, exportId)).get()
    },
    async eventBuckets({ from, to, bucket }) {
      return reads.all<{
        bucket: string
        events: number
        mentions: number
        avg_goldstein: number | null
        avg_tone: number | null
      }>(
        `SELECT strftime(?, date_added) AS bucket, count(*) AS events, sum(num_mentions) AS mentions,
           round(avg(goldstein), 4) AS avg_goldstein, round(avg(avg_tone), 4) AS avg_tone
         FROM events WHERE date_added >= ? AND date_added <= ? GROUP BY bucket ORDER BY bucket`,
        [BUCKET_FORMAT[bucket], from, to],
      )
    },

    async insertRun(accountId, request) {
      const row: RunRow = {
        runId: newId(),
        accountId,
        state: 'queued',
        request,
        attempts: 0,
        results: null,
        error: null,
        createdAt: nowIso(),
        startedAt: null,
        finishedAt: null,
      }
      await write((tx) => tx.insert(researchRuns).values(row))
      return row
    },
    async getRun(runId) {
      return db.select().from(researchRuns).where(eq(researchRuns.runId, runId)).get()
    },
    async claimRun() {
      const id = await claim('research_runs', 'run_id')
      return id ? db.select().from(researchRuns).where(eq(researchRuns.runId, id)).get() : undefined
    },
    async finishRun(runId, state, results, error) {
      await write((tx) =>
        tx
          .update(researchRuns)
          .set({ state, results, error, finishedAt: nowIso() })
          .where(eq(researchRuns.runId, runId)),
      )
    },
    async recoverRuns(maxAttempts) {
      return recover('research_runs', maxAttempts, 'interrupted by a restart too many times')
    },

    async insertCase(c) {
      const row = { caseId: newId(), ...c, state: 'open', createdAt: nowIso() }
      await write((tx) => tx.insert(supportCases).values(row))
      return row
    },
    async getCase(caseId) {
      return db.select().from(supportCases).where(eq(supportCases.caseId, caseId)).get()
    },
    async addEvidence(caseId, items) {
      if (items.length === 0) return 0
      const at = nowIso()
      return storage.transaction(async (tx) => {
        const inserted = await tx
          .insert(caseEvidence)
          .values(items.map((i) => ({ evidenceId: newId(), caseId, ...i, addedAt: at })))
          .onConflictDoNothing()
          .returning({ id: caseEvidence.evidenceId })
          .all()
        return inserted.length
      })
    },
    async caseEvidence(caseId) {
      return db
        .select()
        .from(caseEvidence)
        .where(eq(caseEvidence.caseId, caseId))
        .orderBy(asc(caseEvidence.addedAt), asc(caseEvidence.evidenceId))
        .all()
    },

    async recordNotification(n) {
      const inserted = await storage.transaction((tx) =>
        tx
          .insert(paddleNotifications)
          .values({ ...n, receivedAt: nowIso() })
          .onConflictDoNothing()
          .returning({ id: paddleNotifications.notificationId })
          .all(),
      )
      return inserted.length === 1
    },
    async lastNotificationAt() {
      return (
        (await reads.get<{ at: string | null }>('SELECT max(received_at) AS at FROM paddle_notifications'))
          ?.at ?? null
      )
    },
    async unmatchedNotifications() {
      const row = await reads.get<{ n: number }>(
        "SELECT count(*) AS n FROM paddle_notifications WHERE outcome = 'unknown_account'",
      )
      return row?.n ?? 0
    },
  }
  return store
}

/** The content hash that decides "changed": what a reader of the article would see. */
export function contentHash(a: NormalizedArticle): string {
  return sha256Hex(JSON.stringify([a.title, a.body, a.publishedAt, a.language, a.sourceName, a.entities]))
}

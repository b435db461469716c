/**
 * NDS data access: the only module that knows the tables (tables.ts, plus the FTS5 index of
 * migration 0001 and the in-memory vector index). Every function is async so callers already
 * await, ahead of the move to an async driver; the vector code stays behind these functions so
 * the index can move with the storage.
 */
import type { Database } from 'bun:sqlite'
import { and, asc, eq, inArray } from 'drizzle-orm'
import { sha256Hex } from '../../common/hash.ts'
import { newId, nowIso } from '../../common/time.ts'
import type { Db } from '../../db/sqlite.ts'
import { bandKeys, DUPLICATE_THRESHOLD, fromBytes, similarity, toBytes } from './rules/minhash.ts'
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
  sqlite: Database
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
  // articles
  knownHashes(urls: string[]): Promise<Map<string, string>>
  /** Store a batch in one transaction (FTS5 writes one segment per commit: batches keep ingest fast). */
  applyArticles(batch: PreparedArticle[], jobId: string | null): Promise<ApplyOutcome[]>
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
}

/** Band matches examined per new article; boilerplate can make a band very common. */
const MAX_CANDIDATES = 500
const FTS_WEIGHTS = 'bm25(articles_fts, 3.0, 1.0)'

function filterClauses(f: SearchFilters, alias = 'a'): { where: string[]; params: (string | number)[] } {
  const where: string[] = []
  const params: (string | number)[] = []
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
function selectionSql(q: Selection): { sql: string; params: (string | number)[] } {
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

export function createStore(
  db: Db,
  sqlite: Database,
  vectors: { model: string; dims: number; minPool?: number },
): NdsStore {
  const index: VectorIndex = createVectorIndex(vectors.dims, vectors.minPool)
  for (const row of sqlite
    .query<{ seq: number; vector: Uint8Array }, [string]>(
      'SELECT seq, vector FROM article_vectors WHERE model = ?',
    )
    .iterate(vectors.model)) {
    const v = fromBlob(row.vector)
    if (v.length === vectors.dims) index.put(row.seq, v)
  }

  /** The most similar existing article (another URL) at or above the duplicate threshold. */
  const nearestDuplicate = (sig: Uint32Array, keys: number[], canonical: string) => {
    const candidates = sqlite
      .query<{ minhash: Uint8Array; cluster_id: string; canonical_url: string }, number[]>(
        `SELECT a.minhash, a.cluster_id, a.canonical_url FROM articles a WHERE a.seq IN
           (SELECT DISTINCT seq FROM article_bands WHERE band_key IN (${keys.map(() => '?').join(',')}) LIMIT ${MAX_CANDIDATES})`,
      )
      .all(...keys)
    let best: { clusterId: string; similarity: number } | undefined
    for (const c of candidates) {
      if (c.canonical_url === canonical) continue
      const sim = similarity(sig, fromBytes(c.minhash))
      if (sim >= DUPLICATE_THRESHOLD && (!best || sim > best.similarity))
        best = { clusterId: c.cluster_id, similarity: sim }
    }
    return best
  }

  /** The ingest write path as prepared statements: it runs once per article, batches of 200. */
  const ARTICLE_CONTENT =
    'source, source_name, title, body, language, published_at, entities, version, content_hash, minhash, cluster_id, cluster_similarity'
  const write = {
    existing: sqlite.query<
      { seq: number; article_id: string; version: number; content_hash: string; cluster_id: string },
      [string]
    >('SELECT seq, article_id, version, content_hash, cluster_id FROM articles WHERE canonical_url = ?'),
    insertArticle: sqlite.prepare(
      `INSERT INTO articles (article_id, canonical_url, ${ARTICLE_CONTENT}, first_seen_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    ),
    updateArticle: sqlite.prepare(
      `UPDATE articles SET (${ARTICLE_CONTENT}, updated_at) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE seq = ?`,
    ),
    deleteEntities: sqlite.prepare('DELETE FROM article_entities WHERE seq = ?'),
    deleteBands: sqlite.prepare('DELETE FROM article_bands WHERE seq = ?'),
    insertVersion: sqlite.prepare(
      'INSERT INTO article_versions (article_id, version, content_hash, title, body, published_at, job_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    insertBand: sqlite.prepare('INSERT OR IGNORE INTO article_bands (band_key, seq) VALUES (?, ?)'),
    insertEntity: sqlite.prepare('INSERT OR IGNORE INTO article_entities (seq, entity) VALUES (?, ?)'),
    upsertVector: sqlite.prepare(
      'INSERT INTO article_vectors (seq, model, vector) VALUES (?, ?, ?) ON CONFLICT(seq) DO UPDATE SET model = excluded.model, vector = excluded.vector',
    ),
  }

  const claim = <T>(table: 'ingest_jobs' | 'research_runs', idColumn: string) =>
    sqlite.transaction((): T | undefined => {
      const next = sqlite
        .query<{ id: string }, []>(
          `SELECT ${idColumn} AS id FROM ${table} WHERE state = 'queued' ORDER BY created_at LIMIT 1`,
        )
        .get()
      if (!next) return undefined
      sqlite.run(
        `UPDATE ${table} SET state = 'running', attempts = attempts + 1, started_at = ? WHERE ${idColumn} = ?`,
        [nowIso(), next.id],
      )
      return next.id as T
    })

  const recover = (table: 'ingest_jobs' | 'research_runs', maxAttempts: number, failure: string) =>
    sqlite.transaction(() => {
      const at = nowIso()
      const failedCol =
        table === 'ingest_jobs'
          ? `errors = json_insert(errors, '$[#]', json_object('item', 'job', 'error', ?))`
          : 'error = ?'
      const failed = sqlite.run(
        `UPDATE ${table} SET state = 'failed', finished_at = ?, ${failedCol} WHERE state = 'running' AND attempts >= ?`,
        [at, failure, maxAttempts],
      ).changes
      const requeued = sqlite.run(`UPDATE ${table} SET state = 'queued' WHERE state = 'running'`).changes
      return { requeued, failed }
    })

  const store: NdsStore = {
    sqlite,

    async createAccount(name) {
      const row = { accountId: newId(), name, createdAt: nowIso() }
      db.insert(accounts).values(row).run()
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
      db.update(accounts).set(patch).where(eq(accounts.accountId, accountId)).run()
    },
    async insertApiKey(accountId, name, keyHash) {
      const row = { keyId: newId(), accountId, name, keyHash, createdAt: nowIso() }
      db.insert(apiKeys).values(row).run()
      return { keyId: row.keyId, createdAt: row.createdAt }
    },
    async findApiKey(keyHash) {
      const row = db
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
      db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.keyId, keyId)).run()
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
      return (
        sqlite.run('UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL', [at, keyId])
          .changes === 1
      )
    },
    async oldestActiveKeyAge() {
      const row = sqlite
        .query<{ count: number; oldest: string | null }, []>(
          'SELECT count(*) AS count, min(created_at) AS oldest FROM api_keys WHERE revoked_at IS NULL',
        )
        .get()
      return { count: row?.count ?? 0, oldestCreatedAt: row?.oldest ?? null }
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
      db.insert(ingestJobs).values(row).run()
      return row
    },
    async getJob(jobId) {
      return db.select().from(ingestJobs).where(eq(ingestJobs.jobId, jobId)).get()
    },
    async claimJob() {
      const id = claim<string>('ingest_jobs', 'job_id').immediate()
      return id ? db.select().from(ingestJobs).where(eq(ingestJobs.jobId, id)).get() : undefined
    },
    async finishJob(jobId, state, counts, errors) {
      db.update(ingestJobs)
        .set({ state, counts, errors, finishedAt: nowIso() })
        .where(eq(ingestJobs.jobId, jobId))
        .run()
    },
    async recoverJobs(maxAttempts) {
      return recover('ingest_jobs', maxAttempts, 'interrupted by a restart too many times').immediate()
    },
    async jobStateCounts() {
      const rows = sqlite
        .query<{ state: string; n: number }, []>(
          'SELECT state, count(*) AS n FROM ingest_jobs GROUP BY state',
        )
        .all()
      return Object.fromEntries(JOB_STATES.map((s) => [s, rows.find((r) => r.state === s)?.n ?? 0]))
    },
    async lastJobFinished(state) {
      return (
        sqlite
          .query<{ at: string | null }, [string]>(
            'SELECT max(finished_at) AS at FROM ingest_jobs WHERE state = ?',
          )
          .get(state)?.at ?? null
      )
    },
    async jobsFinishedSince(since) {
      const rows = sqlite
        .query<{ state: string; n: number }, [string]>(
          'SELECT state, count(*) AS n FROM ingest_jobs WHERE finished_at >= ? GROUP BY state',
        )
        .all(since)
      return Object.fromEntries(rows.map((r) => [r.state, r.n]))
    },

    async knownHashes(urls) {
      const out = new Map<string, string>()
      for (let i = 0; i < urls.length; i += 500) {
        const part = urls.slice(i, i + 500)
        for (const r of db
          .select({ url: articles.canonicalUrl, hash: articles.contentHash })
          .from(articles)
          .where(inArray(articles.canonicalUrl, part))
          .all())
          out.set(r.url, r.hash)
      }
      return out
    },

    async applyArticles(batch, jobId) {
      const applyOne = (a: PreparedArticle): { outcome: ApplyOutcome; seq?: number } => {
        const at = nowIso()
        const existing = write.existing.get(a.canonicalUrl)
        if (existing && existing.content_hash === a.contentHash) return { outcome: 'unchanged' }
        const keys = bandKeys(a.minhash)
        const articleId = existing?.article_id ?? newId()
        const duplicate = nearestDuplicate(a.minhash, keys, a.canonicalUrl)
        const [clusterId, clusterSimilarity] =
          duplicate && duplicate.clusterId !== articleId
            ? [duplicate.clusterId, duplicate.similarity]
            : [existing?.cluster_id ?? articleId, 1]
        const version = existing ? existing.version + 1 : 1
        const content = [
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
        ] as const
        let seq: number
        if (existing) {
          seq = existing.seq
          write.updateArticle.run(...content, at, seq)
          write.deleteEntities.run(seq)
          write.deleteBands.run(seq)
        } else {
          seq = (write.insertArticle.get(articleId, a.canonicalUrl, ...content, at, at) as { seq: number })
            .seq
        }
        write.insertVersion.run(articleId, version, a.contentHash, a.title, a.body, a.publishedAt, jobId, at)
        for (const key of keys) write.insertBand.run(key, seq)
        for (const entity of a.entities) write.insertEntity.run(seq, entity)
        if (a.vector) write.upsertVector.run(seq, vectors.model, toBlob(a.vector))
        return { outcome: existing ? 'updated' : 'created', seq }
      }
      const results = sqlite.transaction(() => batch.map(applyOne)).immediate()
      for (const [i, r] of results.entries()) {
        const vector = batch[i]?.vector
        if (r.seq !== undefined && vector) index.put(r.seq, vector)
      }
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
      const rows = sqlite
        .query<RawArticleRow, [string, number]>(
          `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.article_id IN
             (SELECT article_id FROM article_versions WHERE job_id = ?) ORDER BY a.seq LIMIT ?`,
        )
        .all(jobId, limit)
      return rows.map(fromRaw)
    },
    async articleCount() {
      return sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM articles').get()?.n ?? 0
    },
    async insertEvents(rows) {
      const insert = sqlite.transaction(() => {
        let n = 0
        for (let i = 0; i < rows.length; i += 200) {
          const part = rows.slice(i, i + 200)
          n += db
            .insert(events)
            .values(part)
            .onConflictDoNothing()
            .returning({ id: events.globalEventId })
            .all().length
        }
        return n
      })
      return rows.length === 0 ? 0 : insert.immediate()
    },

    async filterSearch({ match, filters, after, limit }) {
      const { where, params } = filterClauses(filters)
      if (match !== undefined) {
        // Rank on (rowid, score) only: SQLite sorts every match with all selected columns, so
        // bodies and snippets are read afterwards for the page alone.
        const score = FTS_WEIGHTS
        const w = ['articles_fts MATCH ?', ...where]
        const p: (string | number)[] = [match, ...params]
        if (after && after.score !== null) {
          w.push(`(${score} > ? OR (${score} = ? AND articles_fts.rowid > ?))`)
          p.push(after.score, after.score, after.seq)
        }
        p.push(limit)
        const join = where.length > 0 ? 'JOIN articles a ON a.seq = articles_fts.rowid' : ''
        const ranked = sqlite
          .query<{ seq: number; score: number }, (string | number)[]>(
            `SELECT articles_fts.rowid AS seq, ${score} AS score FROM articles_fts ${join}
             WHERE ${w.join(' AND ')} ORDER BY score, seq LIMIT ?`,
          )
          .all(...p)
        if (ranked.length === 0) return []
        const marks = ranked.map(() => '?').join(',')
        const seqs = ranked.map((r) => r.seq)
        const snippets = new Map(
          sqlite
            .query<{ seq: number; snippet: string }, (string | number)[]>(
              `SELECT rowid AS seq, snippet(articles_fts, 1, '[', ']', '…', 16) AS snippet FROM articles_fts
               WHERE articles_fts MATCH ? AND rowid IN (${marks})`,
            )
            .all(match, ...seqs)
            .map((r) => [r.seq, r.snippet]),
        )
        const rows = await store.articlesBySeq(seqs)
        return ranked.flatMap((r) => {
          const row = rows.get(r.seq)
          return row ? [{ seq: r.seq, score: r.score, snippet: snippets.get(r.seq) ?? null, row }] : []
        })
      }
      const w = [...where]
      const p: (string | number)[] = [...params]
      if (after) {
        w.push("(coalesce(a.published_at, '') < ? OR (coalesce(a.published_at, '') = ? AND a.seq < ?))")
        p.push(after.key, after.key, after.seq)
      }
      p.push(limit)
      const rows = sqlite
        .query<RawArticleRow, (string | number)[]>(
          `SELECT ${ARTICLE_COLUMNS} FROM articles a ${w.length ? `WHERE ${w.join(' AND ')}` : ''}
           ORDER BY coalesce(a.published_at, '') DESC, a.seq DESC LIMIT ?`,
        )
        .all(...p)
      return rows.map((r) => ({ seq: r.seq, score: null, snippet: null, row: fromRaw(r) }))
    },

    async allowedSeqs(filters) {
      if (!hasFilters(filters)) return undefined
      const { where, params } = filterClauses(filters)
      const rows = sqlite
        .query<{ seq: number }, (string | number)[]>(
          `SELECT a.seq FROM articles a WHERE ${where.join(' AND ')}`,
        )
        .all(...params)
      return new Set(rows.map((r) => r.seq))
    },

    async selectArticles(q, limit) {
      const sel = selectionSql(q)
      const rows = sqlite
        .query<RawArticleRow, (string | number)[]>(
          `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.seq IN (${sel.sql}) ORDER BY a.seq LIMIT ?`,
        )
        .all(...sel.params, limit)
      return rows.map(fromRaw)
    },
    async articleBuckets(q) {
      const sel = selectionSql(q)
      return sqlite
        .query<{ bucket: string; articles: number; sources: number }, (string | number)[]>(
          `SELECT strftime(?, a.published_at) AS bucket, count(*) AS articles, count(DISTINCT a.source_name) AS sources
           FROM articles a WHERE a.seq IN (${sel.sql}) AND a.published_at >= ? AND a.published_at <= ?
           GROUP BY bucket ORDER BY bucket`,
        )
        .all(BUCKET_FORMAT[q.bucket], ...sel.params, q.from, q.to)
    },
    async topSources(q, limit) {
      const sel = selectionSql(q)
      return sqlite
        .query<{ source_name: string; articles: number }, (string | number)[]>(
          `SELECT a.source_name, count(*) AS articles FROM articles a WHERE a.seq IN (${sel.sql})
           GROUP BY a.source_name ORDER BY articles DESC, a.source_name LIMIT ?`,
        )
        .all(...sel.params, limit)
    },
    async topEntities(q, limit) {
      const sel = selectionSql(q)
      return sqlite
        .query<{ entity: string; articles: number }, (string | number)[]>(
          `SELECT e.entity, count(*) AS articles FROM article_entities e WHERE e.seq IN (${sel.sql})
           GROUP BY e.entity ORDER BY articles DESC, e.entity LIMIT ?`,
        )
        .all(...sel.params, limit)
    },
    async clusterSummaries(q, limit) {
      const sel = selectionSql(q)
      return sqlite
        .query<{ cluster_id: string; members: number; representative_title: string }, (string | number)[]>(
          `SELECT a.cluster_id, count(*) AS members,
             coalesce((SELECT r.title FROM articles r WHERE r.article_id = a.cluster_id), min(a.title)) AS representative_title
           FROM articles a WHERE a.seq IN (${sel.sql})
           GROUP BY a.cluster_id HAVING count(*) > 1 ORDER BY members DESC, a.cluster_id LIMIT ?`,
        )
        .all(...sel.params, limit)
    },

    async semanticCandidates(query, limit, allowed) {
      const pool = index.nearest(query, Math.max(limit * 4, 40), allowed ? (s) => allowed.has(s) : undefined)
      if (pool.length === 0) return []
      const exact = sqlite
        .query<{ seq: number; vector: Uint8Array }, number[]>(
          `SELECT seq, vector FROM article_vectors WHERE seq IN (${pool.map(() => '?').join(',')})`,
        )
        .all(...pool.map((c) => c.seq))
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
      const rows = sqlite
        .query<RawArticleRow, number[]>(
          `SELECT ${ARTICLE_COLUMNS} FROM articles a WHERE a.seq IN (${seqs.map(() => '?').join(',')})`,
        )
        .all(...seqs)
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
      sqlite
        .transaction(() => {
          db.insert(snapshots).values(row).run()
          for (const f of s.files) {
            db.insert(snapshotFiles)
              .values({
                snapshotId,
                name: f.name,
                contentType: f.contentType,
                bytes: Buffer.from(f.bytes),
                sha256: f.sha256,
              })
              .run()
          }
        })
        .immediate()
      return row
    },
    async getSnapshot(snapshotId) {
      return db.select().from(snapshots).where(eq(snapshots.snapshotId, snapshotId)).get()
    },
    async getSnapshotFile(snapshotId, name) {
      const row = db
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
    async insertExport(e) {
      const row = { ...e, exportId: newId(), createdAt: nowIso() }
      db.insert(exports).values(row).run()
      return row
    },
    async getExport(exportId) {
      return db.select().from(exports).where(eq(exports.exportId, exportId)).get()
    },
    async eventBuckets({ from, to, bucket }) {
      return sqlite
        .query<
          {
            bucket: string
            events: number
            mentions: number
            avg_goldstein: number | null
            avg_tone: number | null
          },
          [string, string, string]
        >(
          `SELECT strftime(?, date_added) AS bucket, count(*) AS events, sum(num_mentions) AS mentions,
             round(avg(goldstein), 4) AS avg_goldstein, round(avg(avg_tone), 4) AS avg_tone
           FROM events WHERE date_added >= ? AND date_added <= ? GROUP BY bucket ORDER BY bucket`,
        )
        .all(BUCKET_FORMAT[bucket], from, to)
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
      db.insert(researchRuns).values(row).run()
      return row
    },
    async getRun(runId) {
      return db.select().from(researchRuns).where(eq(researchRuns.runId, runId)).get()
    },
    async claimRun() {
      const id = claim<string>('research_runs', 'run_id').immediate()
      return id ? db.select().from(researchRuns).where(eq(researchRuns.runId, id)).get() : undefined
    },
    async finishRun(runId, state, results, error) {
      db.update(researchRuns)
        .set({ state, results, error, finishedAt: nowIso() })
        .where(eq(researchRuns.runId, runId))
        .run()
    },
    async recoverRuns(maxAttempts) {
      return recover('research_runs', maxAttempts, 'interrupted by a restart too many times').immediate()
    },

    async insertCase(c) {
      const row = { caseId: newId(), ...c, state: 'open', createdAt: nowIso() }
      db.insert(supportCases).values(row).run()
      return row
    },
    async getCase(caseId) {
      return db.select().from(supportCases).where(eq(supportCases.caseId, caseId)).get()
    },
    async addEvidence(caseId, items) {
      if (items.length === 0) return 0
      const at = nowIso()
      return db
        .insert(caseEvidence)
        .values(items.map((i) => ({ evidenceId: newId(), caseId, ...i, addedAt: at })))
        .onConflictDoNothing()
        .returning({ id: caseEvidence.evidenceId })
        .all().length
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
      const inserted = db
        .insert(paddleNotifications)
        .values({ ...n, receivedAt: nowIso() })
        .onConflictDoNothing()
        .returning({ id: paddleNotifications.notificationId })
        .all()
      return inserted.length === 1
    },
    async lastNotificationAt() {
      return (
        sqlite
          .query<{ at: string | null }, []>('SELECT max(received_at) AS at FROM paddle_notifications')
          .get()?.at ?? null
      )
    },
  }
  return store
}

/** The content hash that decides "changed": what a reader of the article would see. */
export function contentHash(a: NormalizedArticle): string {
  return sha256Hex(JSON.stringify([a.title, a.body, a.publishedAt, a.language, a.sourceName, a.entities]))
}

import { blob, index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** A customer of the data product: owns API keys, support cases and a subscription. */
export const accounts = sqliteTable('accounts', {
  accountId: text('account_id').primaryKey(),
  name: text('name').notNull(),
  createdAt: text('created_at').notNull(),
  /** Paddle customer id, learned from checkout or the webhook. */
  paddleCustomerId: text('paddle_customer_id'),
  subscriptionId: text('subscription_id'),
  subscriptionStatus: text('subscription_status'),
  subscriptionUpdatedAt: text('subscription_updated_at'),
})

/** API keys, stored as SHA-256 of the key; the key itself is shown once, at creation. */
export const apiKeys = sqliteTable('api_keys', {
  keyId: text('key_id').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.accountId),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull().unique(),
  createdAt: text('created_at').notNull(),
  lastUsedAt: text('last_used_at'),
  revokedAt: text('revoked_at'),
})

/** Ingest jobs and research runs share one durable queue shape: queued → running → terminal. */
export const ingestJobs = sqliteTable(
  'ingest_jobs',
  {
    jobId: text('job_id').primaryKey(),
    accountId: text('account_id').notNull(),
    source: text('source').notNull(),
    mode: text('mode').notNull(),
    state: text('state').notNull(),
    /** The resolved request: locations and window. */
    request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    counts: text('counts', { mode: 'json' }).$type<Record<string, number>>().notNull(),
    errors: text('errors', { mode: 'json' }).$type<{ item: string; error: string }[]>().notNull(),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
  },
  (t) => [index('ingest_jobs_state').on(t.state, t.createdAt)],
)

/** The current state of each article; every change is also a row of article_versions. */
export const articles = sqliteTable(
  'articles',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    articleId: text('article_id').notNull().unique(),
    canonicalUrl: text('canonical_url').notNull().unique(),
    source: text('source').notNull(),
    sourceName: text('source_name').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    language: text('language').notNull(),
    publishedAt: text('published_at'),
    entities: text('entities', { mode: 'json' }).$type<string[]>().notNull(),
    version: integer('version').notNull(),
    contentHash: text('content_hash').notNull(),
    /** MinHash signature of the text (rules/minhash.ts), uint32 little-endian. */
    minhash: blob('minhash', { mode: 'buffer' }).notNull(),
    clusterId: text('cluster_id').notNull(),
    clusterSimilarity: real('cluster_similarity').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('articles_published').on(t.publishedAt), index('articles_cluster').on(t.clusterId)],
)

/** LSH band keys of each article's MinHash signature: near-duplicate candidates by lookup. */
export const articleBands = sqliteTable(
  'article_bands',
  {
    bandKey: integer('band_key').notNull(),
    seq: integer('seq').notNull(),
  },
  (t) => [uniqueIndex('article_bands_pk').on(t.bandKey, t.seq), index('article_bands_seq').on(t.seq)],
)

export const articleVersions = sqliteTable(
  'article_versions',
  {
    articleId: text('article_id').notNull(),
    version: integer('version').notNull(),
    contentHash: text('content_hash').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    publishedAt: text('published_at'),
    jobId: text('job_id'),
    recordedAt: text('recorded_at').notNull(),
  },
  (t) => [uniqueIndex('article_versions_pk').on(t.articleId, t.version)],
)

export const articleEntities = sqliteTable(
  'article_entities',
  {
    seq: integer('seq').notNull(),
    entity: text('entity').notNull(),
  },
  (t) => [uniqueIndex('article_entities_pk').on(t.entity, t.seq), index('article_entities_seq').on(t.seq)],
)

/** One embedding per article (float32 little-endian) and the model that made it. */
export const articleVectors = sqliteTable(
  'article_vectors',
  {
    seq: integer('seq').primaryKey(),
    model: text('model').notNull(),
    vector: blob('vector', { mode: 'buffer' }).notNull(),
    /**
     * Increases with every write of a vector, in commit order (writers are serialized), so a
     * process keeps its in-memory index in step with vectors other processes wrote.
     */
    change: integer('change').notNull().default(0),
  },
  (t) => [index('article_vectors_change').on(t.change)],
)

/** GDELT events as parsed (a subset of the 61 columns), for time-bucketed exports. */
export const events = sqliteTable(
  'events',
  {
    globalEventId: text('global_event_id').primaryKey(),
    day: text('day').notNull(),
    dateAdded: text('date_added').notNull(),
    eventCode: text('event_code').notNull(),
    rootCode: text('root_code').notNull(),
    actor1: text('actor1'),
    actor2: text('actor2'),
    goldstein: real('goldstein'),
    numMentions: integer('num_mentions').notNull(),
    avgTone: real('avg_tone'),
    countryCode: text('country_code'),
    sourceUrl: text('source_url'),
  },
  (t) => [index('events_date_added').on(t.dateAdded)],
)

/** Dataset snapshots: the frozen files are stored, so the same id always yields the same bytes. */
export const snapshots = sqliteTable('snapshots', {
  snapshotId: text('snapshot_id').primaryKey(),
  accountId: text('account_id').notNull(),
  state: text('state').notNull(),
  manifest: text('manifest', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: text('created_at').notNull(),
})

export const snapshotFiles = sqliteTable(
  'snapshot_files',
  {
    snapshotId: text('snapshot_id').notNull(),
    name: text('name').notNull(),
    contentType: text('content_type').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    sha256: text('sha256').notNull(),
  },
  (t) => [uniqueIndex('snapshot_files_pk').on(t.snapshotId, t.name)],
)

export const exports = sqliteTable('exports', {
  exportId: text('export_id').primaryKey(),
  accountId: text('account_id').notNull(),
  state: text('state').notNull(),
  request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  format: text('format').notNull(),
  content: text('content').notNull(),
  sha256: text('sha256').notNull(),
  createdAt: text('created_at').notNull(),
})

export const researchRuns = sqliteTable(
  'research_runs',
  {
    runId: text('run_id').primaryKey(),
    accountId: text('account_id').notNull(),
    state: text('state').notNull(),
    request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    results: text('results', { mode: 'json' }).$type<Record<string, unknown>>(),
    error: text('error'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
  },
  (t) => [index('research_runs_state').on(t.state, t.createdAt)],
)

export const supportCases = sqliteTable('support_cases', {
  caseId: text('case_id').primaryKey(),
  accountId: text('account_id').notNull(),
  subject: text('subject').notNull(),
  description: text('description').notNull(),
  state: text('state').notNull(),
  createdAt: text('created_at').notNull(),
})

export const caseEvidence = sqliteTable(
  'case_evidence',
  {
    evidenceId: text('evidence_id').primaryKey(),
    caseId: text('case_id').notNull(),
    kind: text('kind').notNull(),
    ref: text('ref').notNull(),
    origin: text('origin').notNull(),
    detail: text('detail', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    addedAt: text('added_at').notNull(),
  },
  (t) => [
    uniqueIndex('case_evidence_ref').on(t.caseId, t.kind, t.ref),
    index('case_evidence_case').on(t.caseId),
  ],
)

/** Paddle notifications, one row per notification id: the idempotency record of the webhook. */
export const paddleNotifications = sqliteTable('paddle_notifications', {
  notificationId: text('notification_id').primaryKey(),
  eventType: text('event_type').notNull(),
  accountId: text('account_id'),
  outcome: text('outcome').notNull(),
  receivedAt: text('received_at').notNull(),
  payload: text('payload').notNull(),
})

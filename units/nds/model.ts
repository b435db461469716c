/** TypeBox schemas of NDS, named after the spec's resources. */
import { t } from 'elysia'

/** A union of string literals (Elysia infers handler return types from it correctly). */
const literals = <const V extends readonly [string, ...string[]]>(values: V) => t.UnionEnum(values)

const Timestamp = t.String({ description: 'ISO 8601 UTC with milliseconds' })
const NullableTimestamp = t.Union([Timestamp, t.Null()])
const Id = (description: string) => t.String({ minLength: 1, maxLength: 200, description })

export const SOURCES = ['rss', 'news_api', 'event_db', 'crawl_news'] as const
export type Source = (typeof SOURCES)[number]
export const DIRECT_SOURCES = ['event_db', 'crawl_news'] as const
export const MODES = ['direct', 'backfill', 'current-events'] as const
export type Mode = (typeof MODES)[number]

// ---- status

export const HealthLive = t.Object({ status: t.Literal('ok'), service: t.Literal('nds') })
export const HealthReady = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('not_ready')]),
  checks: t.Record(t.String(), t.Object({ ok: t.Boolean(), detail: t.String() })),
})
export const RuntimeConfig = t.Object({
  public_base_url: t.Union([t.String(), t.Null()]),
  public_host: t.Union([t.String(), t.Null()]),
  public_scheme: t.Union([t.String(), t.Null()]),
  force_https_redirect: t.Boolean(),
  trusted_hosts: t.Array(t.String()),
  billing_provider: t.String(),
})
export const HealthInfo = t.Object({
  service: t.Literal('nds'),
  environment: t.String(),
  version: t.String(),
  version_label: t.String(),
  api_surface: t.String(),
  started_at: Timestamp,
  dependency_targets: t.Record(t.String(), t.Union([t.String(), t.Null()])),
  runtime_counts: t.Record(t.String(), t.Integer()),
  runtime_config: RuntimeConfig,
})
export const PlatformMetadata = t.Object({
  tool_key: t.String(),
  title: t.String(),
  capability_class: t.String(),
  version_label: t.String(),
  version: t.String(),
  commit: t.Union([t.String(), t.Null()]),
  api_surface: t.String(),
  sources: t.Array(t.String()),
  resource_kinds: t.Array(t.String()),
  docs: t.Object({ openapi: t.String(), docs: t.String(), redoc: t.String() }),
})
export const ExternalApiContract = t.Object({
  contract_schema: t.String(),
  unit: t.String(),
  version: t.String(),
  version_label: t.String(),
  compatibility_mode: t.String(),
  auth_scheme: t.String(),
  public_reads: t.Array(t.String()),
  families: t.Array(
    t.Object({
      family: t.String(),
      version: t.String(),
      description: t.String(),
      surfaces: t.Array(t.Object({ method: t.String(), path: t.String() })),
    }),
  ),
})
export const ReleaseNotice = t.Object({
  notice_id: t.String(),
  published_at: t.String(),
  version_label: t.String(),
  kind: t.String(),
  title: t.String(),
  body: t.String(),
})
export const ReleaseNotices = t.Object({ version_label: t.String(), notices: t.Array(ReleaseNotice) })

// ---- ingest

export const SourceParams = t.Object({ source: literals(SOURCES) })
export const DirectSourceParams = t.Object({ source: literals(DIRECT_SOURCES) })

export const IngestRequest = t.Object(
  {
    urls: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 2048, description: 'an http(s) URL' }), {
        minItems: 1,
        maxItems: 100,
        description: 'feed, API, export-file or page URLs; overrides the configured ones',
      }),
    ),
    from: t.Optional(t.String({ format: 'date-time', description: 'backfill: start of the date range' })),
    to: t.Optional(
      t.String({ format: 'date-time', description: 'backfill: end of the range (default now)' }),
    ),
    window_hours: t.Optional(t.Integer({ minimum: 1, maximum: 8760, description: 'current-events window' })),
    query: t.Optional(t.String({ minLength: 1, maxLength: 500, description: 'news_api: the q parameter' })),
    news_sources: t.Optional(t.String({ minLength: 1, maxLength: 500, description: 'news_api: sources' })),
    language: t.Optional(t.String({ pattern: '^[a-z]{2}$', description: 'news_api: language (ISO 639-1)' })),
    country: t.Optional(
      t.String({ pattern: '^[a-z]{2}$', description: 'news_api: country for top headlines' }),
    ),
    max_pages: t.Optional(
      t.Integer({ minimum: 1, maximum: 500, description: 'news_api pages or crawl pages' }),
    ),
  },
  { additionalProperties: false },
)
export type IngestRequestBody = typeof IngestRequest.static

const Counts = t.Record(t.String(), t.Integer())
export const JobError = t.Object({ item: t.String(), error: t.String() })
export const JOB_STATE_NAMES = ['queued', 'running', 'succeeded', 'partially_failed', 'failed'] as const
export const IngestJob = t.Object({
  job_id: t.String(),
  source: t.String(),
  mode: t.String(),
  state: literals(JOB_STATE_NAMES),
  attempts: t.Integer(),
  request: t.Object({}, { additionalProperties: true, description: 'the resolved request' }),
  counts: Counts,
  errors: t.Array(JobError),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
})
export const JobParams = t.Object({ job_id: Id('job id') })

// ---- search

export const Filters = t.Object(
  {
    sources: t.Optional(t.Array(literals(SOURCES), { maxItems: 4 })),
    source_names: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 })),
    languages: t.Optional(t.Array(t.String({ pattern: '^[a-z]{2,3}$' }), { maxItems: 20 })),
    published_from: t.Optional(t.String({ format: 'date-time' })),
    published_to: t.Optional(t.String({ format: 'date-time' })),
    entity: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    representative_only: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)

export const FilterSearchRequest = t.Object(
  {
    query: t.Optional(
      t.String({
        maxLength: 1000,
        description: 'words (all must match), "quoted phrases", prefix* terms; empty lists newest first',
      }),
    ),
    filters: t.Optional(Filters),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
)

export const SemanticSearchRequest = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 4000 }),
    filters: t.Optional(Filters),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 10 })),
    hybrid: t.Optional(
      t.Boolean({ description: 'fuse semantic and full-text ranks (reciprocal rank fusion)' }),
    ),
  },
  { additionalProperties: false },
)

export const ArticleSummary = t.Object({
  article_id: t.String(),
  title: t.String(),
  canonical_url: t.String(),
  source: t.String(),
  source_name: t.String(),
  language: t.String(),
  published_at: NullableTimestamp,
  version: t.Integer(),
  cluster_id: t.String(),
  is_representative: t.Boolean(),
})

export const SearchResult = t.Object({
  ...ArticleSummary.properties,
  score: t.Union([t.Number(), t.Null()]),
  snippet: t.Union([t.String(), t.Null()]),
})

export const SearchResponse = t.Object({
  results: t.Array(SearchResult),
  next_cursor: t.Union([t.String(), t.Null()]),
  ranking: t.String(),
  took_ms: t.Number(),
})

// ---- articles

export const ArticleParams = t.Object({ article_id: Id('article id') })
export const Article = t.Object({
  ...ArticleSummary.properties,
  body: t.String(),
  entities: t.Array(t.String()),
  content_hash: t.String(),
  first_seen_at: Timestamp,
  updated_at: Timestamp,
})
export const ArticleVersion = t.Object({
  version: t.Integer(),
  content_hash: t.String(),
  title: t.String(),
  body: t.String(),
  published_at: NullableTimestamp,
  job_id: t.Union([t.String(), t.Null()]),
  recorded_at: Timestamp,
})
export const ArticleVersions = t.Object({ article_id: t.String(), versions: t.Array(ArticleVersion) })
export const DedupeCluster = t.Object({
  cluster_id: t.String(),
  representative_article_id: t.String(),
  method: t.String(),
  members: t.Array(t.Object({ ...ArticleSummary.properties, similarity: t.Number() })),
})

// ---- datasets and exports

export const SnapshotRequest = t.Object(
  {
    query: t.Optional(t.String({ maxLength: 1000 })),
    filters: t.Optional(Filters),
    max_articles: t.Optional(t.Integer({ minimum: 1, maximum: 100_000, default: 10_000 })),
  },
  { additionalProperties: false },
)
export const SnapshotFile = t.Object({
  name: t.String(),
  content_type: t.String(),
  bytes: t.Integer(),
  records: t.Integer(),
  sha256: t.String(),
  download_url: t.String(),
})
export const Snapshot = t.Object({
  snapshot_id: t.String(),
  state: t.String(),
  created_at: Timestamp,
  manifest: t.Object({
    snapshot_id: t.String(),
    format: t.String(),
    query: t.Record(t.String(), t.Unknown()),
    counts: t.Record(t.String(), t.Integer()),
    files: t.Array(SnapshotFile),
    created_at: Timestamp,
  }),
})
export const SnapshotParams = t.Object({ snapshot_id: Id('snapshot id') })
export const SnapshotFileParams = t.Object({ snapshot_id: Id('snapshot id'), file_name: Id('file name') })

export const ExportRequest = t.Object(
  {
    query: t.Optional(t.String({ maxLength: 1000 })),
    filters: t.Optional(Filters),
    from: t.String({ format: 'date-time' }),
    to: t.String({ format: 'date-time' }),
    bucket: t.Optional(t.Union([t.Literal('hour'), t.Literal('day'), t.Literal('week')], { default: 'day' })),
    format: t.Optional(t.Union([t.Literal('json'), t.Literal('csv')], { default: 'json' })),
  },
  { additionalProperties: false },
)
export const ExportParams = t.Object({ export_id: Id('export id') })
export const SimulationExport = t.Object({
  export_id: t.String(),
  state: t.String(),
  format: t.String(),
  request: t.Record(t.String(), t.Unknown()),
  sha256: t.String(),
  created_at: Timestamp,
  series: t.Optional(t.Array(t.Record(t.String(), t.Unknown()))),
  csv: t.Optional(t.String()),
})

// ---- research runs

export const RESEARCH_ANALYSES = [
  'volume_over_time',
  'top_sources',
  'top_entities',
  'cluster_summaries',
] as const
export const ResearchRunRequest = t.Object(
  {
    query: t.Optional(t.String({ maxLength: 1000 })),
    filters: t.Optional(Filters),
    analyses: t.Optional(t.Array(literals(RESEARCH_ANALYSES), { minItems: 1, maxItems: 4 })),
    bucket: t.Optional(t.Union([t.Literal('hour'), t.Literal('day'), t.Literal('week')], { default: 'day' })),
  },
  { additionalProperties: false },
)
export const RunParams = t.Object({ run_id: Id('research run id') })
export const ResearchRun = t.Object({
  run_id: t.String(),
  state: literals(['queued', 'running', 'succeeded', 'failed'] as const),
  request: t.Record(t.String(), t.Unknown()),
  attempts: t.Integer(),
  results: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
  error: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
})

// ---- accounts, billing, support

export const AccountParams = t.Object({ account_id: Id('account id') })
export const CheckoutRequest = t.Object(
  {
    price_id: t.Optional(t.String({ pattern: '^pri_[a-z0-9]{1,64}$', description: 'a Paddle price id' })),
    quantity: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 1 })),
  },
  { additionalProperties: false },
)
export const CheckoutResponse = t.Object({
  account_id: t.String(),
  transaction_id: t.String(),
  status: t.String(),
  checkout_url: t.String(),
})
export const PortalResponse = t.Object({
  account_id: t.String(),
  customer_id: t.String(),
  portal_url: t.String(),
})

export const EVIDENCE_KINDS = ['article', 'search', 'snapshot', 'export', 'research_run', 'job'] as const
export const EvidenceInput = t.Object(
  {
    kind: literals(EVIDENCE_KINDS),
    ref: t.String({
      minLength: 1,
      maxLength: 1000,
      description: 'the id, or for kind search the query text',
    }),
  },
  { additionalProperties: false },
)
export const SupportCaseRequest = t.Object(
  {
    subject: t.String({ minLength: 1, maxLength: 200 }),
    description: t.String({ minLength: 1, maxLength: 10_000 }),
    evidence: t.Optional(t.Array(EvidenceInput, { maxItems: 50 })),
  },
  { additionalProperties: false },
)
export const EvidenceItem = t.Object({
  evidence_id: t.String(),
  kind: t.String(),
  ref: t.String(),
  origin: t.String(),
  detail: t.Record(t.String(), t.Unknown()),
  added_at: Timestamp,
})
export const SupportCase = t.Object({
  case_id: t.String(),
  account_id: t.String(),
  subject: t.String(),
  state: t.String(),
  created_at: Timestamp,
  evidence: t.Array(EvidenceItem),
})
export const CaseParams = t.Object({ case_id: Id('support case id') })
export const CaseEvidence = t.Object({ case_id: t.String(), evidence: t.Array(EvidenceItem) })
export const EnrichResponse = t.Object({
  case_id: t.String(),
  added: t.Integer(),
  evidence: t.Array(EvidenceItem),
})

// ---- readiness gates

export const GateCheck = t.Object({
  name: t.String(),
  status: t.Union([t.Literal('pass'), t.Literal('warn'), t.Literal('fail')]),
  detail: t.String(),
})
export const Gate = t.Object({
  gate: t.String(),
  status: t.Union([t.Literal('pass'), t.Literal('warn'), t.Literal('fail')]),
  checked_at: Timestamp,
  checks: t.Array(GateCheck),
  summary: t.Optional(t.Record(t.String(), t.Unknown())),
})

export const PaddleNotificationBody = t.Object(
  {
    notification_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    event_id: t.String({ minLength: 1, maxLength: 200 }),
    event_type: t.String({ minLength: 1, maxLength: 200 }),
    occurred_at: t.String({ format: 'date-time' }),
    data: t.Record(t.String(), t.Unknown()),
  },
  { additionalProperties: true },
)
export const PaddleAck = t.Object({
  received: t.Boolean(),
  notification_id: t.String(),
  outcome: t.String({ description: 'applied, ignored, unknown_account or duplicate' }),
})

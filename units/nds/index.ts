import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { urlString } from '../../common/config.ts'
import { DEFAULT_DOCS_PAGES } from '../../common/docs-pages.ts'
import { metricsRoute } from '../../common/routes.ts'
import { migrations } from '../../db/migrations/nds/index.ts'
import { defineUnit, type HttpUnit } from '../../runtime/unit.ts'
import { ndsCredentials } from './auth.ts'
import { meta } from './meta.ts'
import { createNdsMetrics } from './metrics.ts'
import { REDOC } from './redoc.ts'
import { articleRoutes } from './routes/articles.ts'
import { billingRoutes, paddleSignatures } from './routes/billing.ts'
import { datasetRoutes } from './routes/datasets.ts'
import { hostPolicy } from './routes/host-policy.ts'
import { ingestRoutes } from './routes/ingest.ts'
import { readinessRoutes } from './routes/readiness.ts'
import { researchRunRoutes } from './routes/research.ts'
import { searchRoutes } from './routes/search.ts'
import { statusRoutes } from './routes/status.ts'
import { supportRoutes } from './routes/support.ts'
import { createDrainer } from './runner.ts'
import { type NdsDeps, type NdsSettings, PADDLE_SANDBOX_API } from './service/deps.ts'
import { builtinEmbedder, remoteEmbedder } from './service/embedder.ts'
import { executeJob } from './service/ingest.ts'
import { executeRun } from './service/research.ts'
import { createStore } from './store.ts'

const integer = (min: number, max: number, dflt: number, description: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description })
const urlList = (description: string) =>
  T.String({ pattern: '^https?://[^\\s,]+(,\\s*https?://[^\\s,]+)*$', description })
const secret = (description: string) => T.Optional(T.String({ minLength: 1, description }))

const env = {
  NDS_RSS_FEEDS: T.Optional(urlList('comma-separated RSS or Atom feed URLs')),
  NDS_NEWSAPI_URL: T.Optional(urlString('the NewsAPI base URL (https://newsapi.org)')),
  NDS_NEWSAPI_KEY: secret('the NewsAPI key (sent as X-Api-Key)'),
  NDS_NEWSAPI_COUNTRY: T.String({
    pattern: '^[a-z]{2}$',
    default: 'us',
    description: 'a two-letter country code',
  }),
  NDS_EVENT_DB_URL: T.Optional(urlString('the GDELT 2.0 export root (where lastupdate.txt lives)')),
  NDS_CRAWL_SEEDS: T.Optional(urlList('comma-separated article or index page URLs')),
  NDS_CRAWL_HOST_INTERVAL_MS: integer(0, 600_000, 1000, 'milliseconds between requests to one host'),
  NDS_CRAWL_MAX_PAGES: integer(1, 10_000, 50, 'pages per crawl job'),
  NDS_FETCH_TIMEOUT_MS: integer(100, 300_000, 15_000, 'milliseconds per source document'),
  NDS_FETCH_MAX_BYTES: integer(1024, 1_073_741_824, 52_428_800, 'bytes per source document'),
  NDS_CURRENT_WINDOW_HOURS: integer(1, 8760, 48, 'hours'),
  NDS_BACKFILL_MAX_FILES: integer(1, 100_000, 96, 'GDELT export files per backfill job'),
  NDS_JOB_MAX_ATTEMPTS: integer(1, 20, 3, 'attempts before an interrupted job is failed'),
  NDS_EMBEDDING_URL: T.Optional(urlString('the root of an OpenAI-compatible embedding runtime')),
  NDS_EMBEDDING_MODEL: T.String({
    minLength: 1,
    default: 'text-embedding-3-small',
    description: 'a model name',
  }),
  NDS_EMBEDDING_DIMS: integer(8, 4096, 384, 'dimensions the embedding runtime returns'),
  NDS_EMBEDDING_KEY: secret('a bearer token for the embedding runtime'),
  NDS_PADDLE_API_URL: urlString('the Paddle Billing API root'),
  NDS_PADDLE_API_KEY: secret('the Paddle API key'),
  NDS_PADDLE_PRICE_ID: T.Optional(
    T.String({ pattern: '^pri_[a-z0-9]+$', description: 'a Paddle price id (pri_…)' }),
  ),
  PADDLE_WEBHOOK_SECRET: secret('the Paddle notification destination secret'),
  NDS_PEER_TIMEOUT_MS: integer(50, 60_000, 10_000, 'milliseconds per Paddle or embedding call'),
  NDS_PUBLIC_BASE_URL: T.Optional(urlString('the public URL clients use')),
  NDS_FORCE_HTTPS_REDIRECT: T.Boolean({ default: false, description: 'true or false' }),
  NDS_TRUSTED_HOSTS: T.Optional(
    T.String({
      pattern: '^[A-Za-z0-9.:*-]+(,\\s*[A-Za-z0-9.:*-]+)*$',
      description: 'comma-separated host names',
    }),
  ),
  NDS_KEY_MAX_AGE_DAYS: integer(1, 3650, 90, 'days before an API key is due for rotation'),
  NDS_PEN_TEST_REPORT_DATE: T.Optional(
    T.String({
      format: 'date',
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description: 'YYYY-MM-DD of the last penetration test',
    }),
  ),
  NDS_PEN_TEST_REPORT_URL: T.Optional(urlString('where the last penetration-test report is kept')),
  SVC_GIT_COMMIT: T.Optional(
    T.String({ pattern: '^[0-9a-f]{7,40}$', description: 'the deployed git commit' }),
  ),
}
env.NDS_PADDLE_API_URL.default = PADDLE_SANDBOX_API

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

export const nds: HttpUnit = defineUnit({
  kind: 'http',
  ...meta,
  description:
    'News data service: ingest from RSS/Atom, NewsAPI, GDELT event exports and crawled pages; filtered and semantic search; articles with versions and duplicate clusters; dataset snapshots, simulation exports and research runs; billing, support and readiness gates.',
  env,
  migrations,
  libsql: true,
  probeRoutes: ['/v1/health/live', '/v1/health/ready', '/v1/health/info', '/metrics'],
  docsPages: [...DEFAULT_DOCS_PAGES, REDOC],
  validate(config) {
    const problems: string[] = []
    if (config.SVC_ENV === 'production') {
      if (!config.NDS_PUBLIC_BASE_URL?.startsWith('https://'))
        problems.push('NDS_PUBLIC_BASE_URL: required in production, expected an https URL')
    }
    return problems
  },
  build(ctx) {
    const c = ctx.config
    const settings: NdsSettings = {
      environment: c.SVC_ENV,
      rssFeeds: list(c.NDS_RSS_FEEDS),
      newsApiUrl: c.NDS_NEWSAPI_URL,
      newsApiKey: c.NDS_NEWSAPI_KEY,
      newsApiCountry: c.NDS_NEWSAPI_COUNTRY,
      eventDbUrl: c.NDS_EVENT_DB_URL,
      crawlSeeds: list(c.NDS_CRAWL_SEEDS),
      crawlHostIntervalMs: c.NDS_CRAWL_HOST_INTERVAL_MS,
      crawlMaxPages: c.NDS_CRAWL_MAX_PAGES,
      fetchTimeoutMs: c.NDS_FETCH_TIMEOUT_MS,
      fetchMaxBytes: c.NDS_FETCH_MAX_BYTES,
      currentWindowHours: c.NDS_CURRENT_WINDOW_HOURS,
      backfillMaxFiles: c.NDS_BACKFILL_MAX_FILES,
      jobMaxAttempts: c.NDS_JOB_MAX_ATTEMPTS,
      embeddingUrl: c.NDS_EMBEDDING_URL,
      paddleApiUrl: c.NDS_PADDLE_API_URL,
      paddleApiKey: c.NDS_PADDLE_API_KEY,
      paddlePriceId: c.NDS_PADDLE_PRICE_ID,
      paddleWebhookSecret: c.PADDLE_WEBHOOK_SECRET,
      peerTimeoutMs: c.NDS_PEER_TIMEOUT_MS,
      publicBaseUrl: c.NDS_PUBLIC_BASE_URL,
      forceHttpsRedirect: c.NDS_FORCE_HTTPS_REDIRECT,
      trustedHosts: list(c.NDS_TRUSTED_HOSTS),
      keyMaxAgeDays: c.NDS_KEY_MAX_AGE_DAYS,
      penTestReportDate: c.NDS_PEN_TEST_REPORT_DATE,
      penTestReportUrl: c.NDS_PEN_TEST_REPORT_URL,
      commit: c.SVC_GIT_COMMIT,
    }
    const embedder = c.NDS_EMBEDDING_URL
      ? remoteEmbedder({
          url: c.NDS_EMBEDDING_URL,
          model: c.NDS_EMBEDDING_MODEL,
          dims: c.NDS_EMBEDDING_DIMS,
          apiKey: c.NDS_EMBEDDING_KEY,
          timeoutMs: c.NDS_PEER_TIMEOUT_MS,
        })
      : builtinEmbedder
    const store = createStore(ctx.storage, { model: embedder.model, dims: embedder.dims })
    const metrics = createNdsMetrics(ctx.metrics.registry, store)
    let workerStarted = false
    const auth = ndsCredentials(store, () => Date.now())
    const deps: NdsDeps = {
      store,
      auth,
      settings,
      embedder,
      metrics,
      log: ctx.log,
      version: ctx.version,
      startedAt: ctx.startedAt,
      kickJobs: () => jobs.kick(),
      kickRuns: () => runs.kick(),
      now: () => Date.now(),
    }
    const jobs = createDrainer(
      'ingest-jobs',
      {
        recover: () => store.recoverJobs(settings.jobMaxAttempts),
        claim: () => store.claimJob(),
        execute: (job) => executeJob(deps, job),
        fail: (job, message) =>
          store.finishJob(job.jobId, 'failed', job.counts, [{ item: 'job', error: message }]),
      },
      ctx.log,
    )
    const runs = createDrainer(
      'research-runs',
      {
        recover: () => store.recoverRuns(settings.jobMaxAttempts),
        claim: () => store.claimRun(),
        execute: (run) => executeRun(deps, run),
        fail: (run, message) => store.finishRun(run.runId, 'failed', null, message),
      },
      ctx.log,
    )
    // One background task drives both queues, so readiness and tests see one worker.
    const worker = {
      name: 'nds-worker',
      start() {
        workerStarted = true
        jobs.start()
        runs.start()
      },
      kick() {
        jobs.kick()
        runs.kick()
      },
      async idle() {
        await jobs.idle()
        await runs.idle()
      },
      async stop() {
        await jobs.stop()
        await runs.stop()
      },
    }
    const signatures = paddleSignatures(deps)
    const routes = new Elysia({ name: 'nds:routes' })
      .use(hostPolicy(settings))
      .use(statusRoutes(deps, () => workerStarted))
      .use(ingestRoutes(deps))
      .use(searchRoutes(deps))
      .use(articleRoutes(deps))
      .use(datasetRoutes(deps))
      .use(researchRunRoutes(deps))
      .use(billingRoutes(deps, signatures))
      .use(supportRoutes(deps))
      .use(readinessRoutes(deps, () => workerStarted))
      .use(metricsRoute(ctx.metrics.registry))
    return {
      routes,
      // the vector index is filled from the stored vectors before the first request
      starting: store.loadVectors(),
      background: [worker],
      securitySchemes: { ...auth.securitySchemes, ...signatures.securitySchemes },
    }
  },
})

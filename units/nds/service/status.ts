/** Public reads: health, runtime information, platform metadata, the API contract, notices. */
import contract from '../contract.json'
import { SOURCES } from '../model.ts'
import notices from '../release-notices.json'
import type { NdsDeps, NdsSettings } from './deps.ts'

export const VERSION_LABEL = '2026-04-01'
export const API_SURFACE = '/v1'

export const PUBLIC_READS = [
  '/v1/health/live',
  '/v1/health/ready',
  '/v1/health/info',
  '/v1/platform/metadata',
  '/v1/external-api-contract',
  '/v1/release-notices',
]

/** The origin of a URL, without credentials, path or query: safe to publish. */
export function sanitizedTarget(url: string | undefined): string | null {
  if (!url) return null
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

export function runtimeConfig(s: NdsSettings) {
  const base = s.publicBaseUrl ? new URL(s.publicBaseUrl) : undefined
  return {
    public_base_url: s.publicBaseUrl ?? null,
    public_host: base?.host ?? null,
    public_scheme: base ? base.protocol.replace(':', '') : null,
    force_https_redirect: s.forceHttpsRedirect,
    trusted_hosts: s.trustedHosts,
    billing_provider: 'paddle',
  }
}

export async function readiness(deps: NdsDeps, workerRunning: () => boolean) {
  const checks = {
    database: { ok: await deps.store.ready(), detail: 'SELECT 1 on the unit database' },
    ingest_worker: { ok: workerRunning(), detail: 'the ingest job worker has started' },
  }
  const ready = Object.values(checks).every((c) => c.ok)
  return { ready, body: { status: ready ? ('ready' as const) : ('not_ready' as const), checks } }
}

export async function info(deps: NdsDeps) {
  const s = deps.settings
  const jobs = await deps.store.jobStateCounts()
  return {
    service: 'nds' as const,
    environment: s.environment,
    version: deps.version,
    version_label: VERSION_LABEL,
    api_surface: API_SURFACE,
    started_at: deps.startedAt,
    dependency_targets: {
      rss_feeds: s.rssFeeds.length > 0 ? `${s.rssFeeds.length} feed(s)` : null,
      news_api: sanitizedTarget(s.newsApiUrl),
      event_db: sanitizedTarget(s.eventDbUrl),
      crawl_seeds: s.crawlSeeds.length > 0 ? `${s.crawlSeeds.length} seed(s)` : null,
      embedding_runtime: deps.embedder.target === 'built-in' ? 'built-in' : deps.embedder.target,
      payment_provider: sanitizedTarget(s.paddleApiUrl),
    },
    runtime_counts: {
      articles: await deps.store.articleCount(),
      vectors: await deps.store.vectorCount(),
      jobs_queued: jobs.queued ?? 0,
      jobs_running: jobs.running ?? 0,
    },
    runtime_config: runtimeConfig(s),
  }
}

export function platformMetadata(deps: NdsDeps) {
  return {
    tool_key: contract.identity.tool_key,
    title: contract.identity.title,
    capability_class: contract.identity.capability_class,
    version_label: VERSION_LABEL,
    version: deps.version,
    commit: deps.settings.commit ?? null,
    api_surface: API_SURFACE,
    sources: [...SOURCES],
    resource_kinds: [
      'ingest job',
      'article',
      'article version',
      'duplicate cluster',
      'dataset snapshot',
      'simulation export',
      'research run',
      'account',
      'support case evidence',
    ],
    docs: { openapi: '/openapi.json', docs: '/docs', redoc: '/redoc' },
  }
}

export function externalApiContract() {
  return {
    contract_schema: contract.contract_schema,
    unit: contract.unit,
    version: contract.version,
    version_label: VERSION_LABEL,
    compatibility_mode: contract.compatibility_mode,
    auth_scheme: contract.operations.auth_scheme,
    public_reads: PUBLIC_READS,
    families: contract.produces.map((f) => ({
      family: f.family,
      version: f.version,
      description: f.description,
      surfaces: f.surfaces,
    })),
  }
}

export const releaseNotices = () => notices

import type { Logger } from '../../../common/logger.ts'
import type { NdsAuth } from '../auth.ts'
import type { NdsMetrics } from '../metrics.ts'
import type { NdsStore } from '../store.ts'
import type { Embedder } from './embedder.ts'

/** Paddle Billing's sandbox API: the default until NDS_PADDLE_API_URL names production. */
export const PADDLE_SANDBOX_API = 'https://sandbox-api.paddle.com'

/** The unit's configuration, read once at start-up (index.ts) and passed down. */
export interface NdsSettings {
  environment: 'development' | 'test' | 'production'
  rssFeeds: string[]
  newsApiUrl?: string
  newsApiKey?: string
  newsApiCountry: string
  eventDbUrl?: string
  crawlSeeds: string[]
  crawlHostIntervalMs: number
  crawlMaxPages: number
  fetchTimeoutMs: number
  fetchMaxBytes: number
  currentWindowHours: number
  backfillMaxFiles: number
  jobMaxAttempts: number
  embeddingUrl?: string
  paddleApiUrl: string
  paddleApiKey?: string
  paddlePriceId?: string
  paddleWebhookSecret?: string
  peerTimeoutMs: number
  publicBaseUrl?: string
  forceHttpsRedirect: boolean
  trustedHosts: string[]
  keyMaxAgeDays: number
  penTestReportDate?: string
  penTestReportUrl?: string
  commit?: string
}

export interface NdsDeps {
  store: NdsStore
  /** The credentials plugin: `auth: 'apiKey'` on a route needs an API key. */
  auth: NdsAuth
  settings: NdsSettings
  embedder: Embedder
  metrics: NdsMetrics
  log: Logger
  version: string
  startedAt: string
  /** Start draining queued ingest jobs / research runs. */
  kickJobs(): void
  kickRuns(): void
  now(): number
}

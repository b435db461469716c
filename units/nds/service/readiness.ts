/**
 * The eight readiness gates under /v1/research/*: each is a list of real checks over the
 * configuration, the database and the dependencies, never a constant. A gate fails when any
 * check fails, warns when any warns.
 */

import { callPeer } from '../../../common/peer.ts'
import { nowIso } from '../../../common/time.ts'
import { type NdsDeps, PADDLE_SANDBOX_API } from './deps.ts'
import { runtimeConfig } from './status.ts'

type Status = 'pass' | 'warn' | 'fail'
interface Check {
  name: string
  status: Status
  detail: string
}

const DAY_MS = 86_400_000
const STUCK_JOB_MS = 3_600_000
const FRESH_INGEST_MS = DAY_MS
const PEN_TEST_MAX_DAYS = 365
const PEN_TEST_GRACE_DAYS = 90
const WEBHOOK_SECRET_MIN = 32
const SLO_FAILURE_WARN = 0.05
const SLO_FAILURE_FAIL = 0.2

const check = (name: string, status: Status, detail: string): Check => ({ name, status, detail })
const when = (ok: boolean, name: string, pass: string, otherwise: [Status, string]): Check =>
  ok ? check(name, 'pass', pass) : check(name, otherwise[0], otherwise[1])

function gate(name: string, checks: Check[], summary?: Record<string, unknown>) {
  const status: Status = checks.some((c) => c.status === 'fail')
    ? 'fail'
    : checks.some((c) => c.status === 'warn')
      ? 'warn'
      : 'pass'
  return { gate: name, status, checked_at: nowIso(), checks, ...(summary ? { summary } : {}) }
}

const production = (deps: NdsDeps) => deps.settings.environment === 'production'
const ageDays = (iso: string, now: number) => Math.floor((now - Date.parse(iso)) / DAY_MS)

async function stuckJobs(deps: NdsDeps, now: number): Promise<number> {
  return deps.store.runningJobsStartedBefore(new Date(now - STUCK_JOB_MS).toISOString())
}

async function freshness(deps: NdsDeps, now: number): Promise<Check> {
  const last = await deps.store.lastJobFinished('succeeded')
  if (!last) return check('ingest_freshness', 'warn', 'no ingest job has succeeded yet')
  const age = now - Date.parse(last)
  return when(age <= FRESH_INGEST_MS, 'ingest_freshness', `last successful ingest at ${last}`, [
    'warn',
    `last successful ingest at ${last}, over 24 h ago`,
  ])
}

export async function dashboardSummary(deps: NdsDeps, workerRunning: () => boolean) {
  const now = deps.now()
  const jobs = await deps.store.jobStateCounts()
  const stuck = await stuckJobs(deps, now)
  return gate(
    'operational-dashboard-summary',
    [
      when(await deps.store.ready(), 'database', 'the unit database answers', [
        'fail',
        'the unit database does not answer',
      ]),
      when(workerRunning(), 'ingest_worker', 'the job worker is running', [
        'fail',
        'the job worker has not started',
      ]),
      when(stuck === 0, 'stuck_jobs', 'no job has been running for over an hour', [
        'warn',
        `${stuck} job(s) running for over an hour`,
      ]),
      await freshness(deps, now),
    ],
    {
      articles: await deps.store.articleCount(),
      vectors: await deps.store.vectorCount(),
      jobs,
      last_successful_ingest: await deps.store.lastJobFinished('succeeded'),
      last_payment_notification: await deps.store.lastNotificationAt(),
    },
  )
}

export async function sloGates(deps: NdsDeps) {
  const now = deps.now()
  const finished = await deps.store.jobsFinishedSince(new Date(now - DAY_MS).toISOString())
  const total = Object.values(finished).reduce((a, b) => a + b, 0)
  const failedRatio = total === 0 ? 0 : (finished.failed ?? 0) / total
  const pct = `${(failedRatio * 100).toFixed(1)}% of ${total} job(s) failed in 24 h`
  return gate(
    'operational-slo-gates',
    [
      total === 0
        ? check('ingest_failure_ratio', 'warn', 'no ingest job finished in the last 24 h')
        : check(
            'ingest_failure_ratio',
            failedRatio > SLO_FAILURE_FAIL ? 'fail' : failedRatio > SLO_FAILURE_WARN ? 'warn' : 'pass',
            pct,
          ),
      await freshness(deps, now),
      when((await stuckJobs(deps, now)) === 0, 'no_stuck_jobs', 'no job is stuck running', [
        'fail',
        'a job has been running for over an hour',
      ]),
    ],
    { finished_24h: finished },
  )
}

async function keysHashed(deps: NdsDeps): Promise<Check> {
  const audit = await deps.store.keyHashAudit()
  return when(
    audit.notHashed === 0,
    'api_keys_stored_hashed',
    `${audit.keys} key(s), all stored as SHA-256`,
    ['fail', `${audit.notHashed} key(s) not stored as a SHA-256 hash`],
  )
}

function tlsChecks(deps: NdsDeps): Check[] {
  const rc = runtimeConfig(deps.settings)
  const strict: Status = production(deps) ? 'fail' : 'warn'
  return [
    when(rc.public_scheme === 'https', 'public_base_url_https', `public_base_url is ${rc.public_base_url}`, [
      strict,
      rc.public_base_url
        ? `public_base_url ${rc.public_base_url} is not https`
        : 'NDS_PUBLIC_BASE_URL is not set',
    ]),
    when(
      rc.force_https_redirect,
      'force_https_redirect',
      'plain-http requests behind the proxy are redirected to https',
      [strict, 'NDS_FORCE_HTTPS_REDIRECT is off'],
    ),
    when(rc.trusted_hosts.length > 0, 'trusted_hosts', `trusted hosts: ${rc.trusted_hosts.join(', ')}`, [
      'warn',
      'NDS_TRUSTED_HOSTS is empty: any Host header is served',
    ]),
    when(
      rc.public_host === null || rc.trusted_hosts.length === 0 || rc.trusted_hosts.includes(rc.public_host),
      'public_host_trusted',
      'the public host is among the trusted hosts',
      ['fail', `public host ${rc.public_host} is not in NDS_TRUSTED_HOSTS`],
    ),
  ]
}

export async function securityComplianceGates(deps: NdsDeps) {
  const s = deps.settings
  return gate('security-compliance-gates', [
    await keysHashed(deps),
    when(
      Boolean(s.paddleWebhookSecret),
      'webhook_signature_enforced',
      'Paddle-Signature is verified with a configured secret',
      ['fail', 'PADDLE_WEBHOOK_SECRET is unset: the webhook refuses everything (503)'],
    ),
    ...tlsChecks(deps).slice(0, 2),
    when(production(deps), 'environment_posture', 'SVC_ENV is production (strict posture)', [
      'warn',
      `SVC_ENV is ${s.environment}`,
    ]),
  ])
}

export async function incidentReadinessGates(deps: NdsDeps) {
  const writable = await deps.store.writable()
  const journal = await deps.store.journalMode()
  const unknown = await deps.store.unmatchedNotifications()
  return gate('incident-readiness-gates', [
    when(writable, 'database_writable', 'a write transaction can be opened', [
      'fail',
      'the database refuses write transactions',
    ]),
    when(journal === 'wal' || journal === 'memory', 'journal_mode', `journal_mode=${journal}`, [
      'warn',
      `journal_mode=${journal}, expected wal`,
    ]),
    when(
      (await stuckJobs(deps, deps.now())) === 0,
      'job_recovery',
      'no job is left running; interrupted jobs are resumed at start',
      ['fail', 'a job has been running for over an hour'],
    ),
    when(unknown === 0, 'unmatched_payment_notifications', 'every payment notification matched an account', [
      'warn',
      `${unknown} notification(s) for unknown accounts recorded`,
    ]),
  ])
}

export async function penTestEvidence(deps: NdsDeps) {
  const s = deps.settings
  const now = deps.now()
  const date = s.penTestReportDate
  const age = date ? ageDays(`${date}T00:00:00Z`, now) : undefined
  return gate('security-pen-test-evidence', [
    age === undefined
      ? check(
          'last_pen_test',
          'fail',
          'NDS_PEN_TEST_REPORT_DATE is not set: no penetration test is on record',
        )
      : check(
          'last_pen_test',
          age <= PEN_TEST_MAX_DAYS
            ? 'pass'
            : age <= PEN_TEST_MAX_DAYS + PEN_TEST_GRACE_DAYS
              ? 'warn'
              : 'fail',
          `last penetration test ${date}, ${age} day(s) ago`,
        ),
    when(Boolean(s.penTestReportUrl), 'report_location', `report kept at ${s.penTestReportUrl}`, [
      'warn',
      'NDS_PEN_TEST_REPORT_URL is not set',
    ]),
  ])
}

export async function secretReadiness(deps: NdsDeps) {
  const s = deps.settings
  const now = deps.now()
  const keys = await deps.store.oldestActiveKeyAge(now)
  const oldest = keys.oldestCreatedAt ? ageDays(keys.oldestCreatedAt, now) : undefined
  return gate('secret-readiness', [
    when(
      (s.paddleWebhookSecret?.length ?? 0) >= WEBHOOK_SECRET_MIN,
      'paddle_webhook_secret',
      'PADDLE_WEBHOOK_SECRET is set',
      ['fail', `PADDLE_WEBHOOK_SECRET is unset or shorter than ${WEBHOOK_SECRET_MIN} characters`],
    ),
    when(Boolean(s.paddleApiKey), 'paddle_api_key', 'NDS_PADDLE_API_KEY is set', [
      'fail',
      'NDS_PADDLE_API_KEY is unset',
    ]),
    when(
      !s.newsApiUrl || Boolean(s.newsApiKey),
      'newsapi_key',
      s.newsApiUrl ? 'NDS_NEWSAPI_KEY is set' : 'NewsAPI is not configured',
      ['fail', 'NDS_NEWSAPI_URL is set without NDS_NEWSAPI_KEY'],
    ),
    oldest === undefined
      ? check('api_key_rotation_age', 'warn', 'no active API key')
      : when(
          oldest <= s.keyMaxAgeDays,
          'api_key_rotation_age',
          `oldest of ${keys.count} active key(s) is ${oldest} day(s) old`,
          ['warn', `oldest active key is ${oldest} day(s) old, over NDS_KEY_MAX_AGE_DAYS=${s.keyMaxAgeDays}`],
        ),
  ])
}

export async function paymentReadiness(deps: NdsDeps) {
  const s = deps.settings
  const sandbox = s.paddleApiUrl.replace(/\/+$/, '') === PADDLE_SANDBOX_API
  let live: Check
  if (!s.paddleApiKey)
    live = check('paddle_api_reachable', 'fail', 'not checked: NDS_PADDLE_API_KEY is unset')
  else {
    const res = await callPeer({
      url: `${s.paddleApiUrl.replace(/\/+$/, '')}/event-types`,
      headers: { authorization: `Bearer ${s.paddleApiKey}` },
      timeoutMs: s.peerTimeoutMs,
    })
    live = res.ok
      ? check('paddle_api_reachable', 'pass', `GET /event-types answered ${res.status}`)
      : check('paddle_api_reachable', 'fail', `GET /event-types: ${res.message}`)
  }
  const last = await deps.store.lastNotificationAt()
  return gate('payment-readiness', [
    when(Boolean(s.paddleApiKey), 'paddle_api_key', 'NDS_PADDLE_API_KEY is set', [
      'fail',
      'NDS_PADDLE_API_KEY is unset',
    ]),
    when(Boolean(s.paddlePriceId), 'paddle_price', `default price ${s.paddlePriceId}`, [
      'warn',
      'NDS_PADDLE_PRICE_ID is unset: checkout needs price_id in each request',
    ]),
    when(Boolean(s.paddleWebhookSecret), 'paddle_webhook_secret', 'PADDLE_WEBHOOK_SECRET is set', [
      'fail',
      'PADDLE_WEBHOOK_SECRET is unset',
    ]),
    when(
      production(deps) ? !sandbox : true,
      'paddle_environment',
      sandbox ? 'Paddle sandbox API' : `Paddle API at ${new URL(s.paddleApiUrl).origin}`,
      ['fail', 'production points at the Paddle sandbox API'],
    ),
    live,
    when(last !== null, 'webhook_received', `last notification at ${last}`, [
      'warn',
      'no payment notification received yet',
    ]),
  ])
}

export async function tlsProxyReadiness(deps: NdsDeps) {
  return gate('tls-proxy-readiness', tlsChecks(deps), { runtime_config: runtimeConfig(deps.settings) })
}

/**
 * Per unit: the main write route the crash test loads, how to build a valid write, which id the
 * 2xx answer acknowledges, and how to find that write in the unit's SQLite file after a restart.
 */
import type { Database } from 'bun:sqlite'
import { issueSession } from '../common/session.ts'
import { hmacHex, signBody } from '../common/signature.ts'
import type { Env } from '../runtime/run.ts'
import { captureIo, fakePeer, json } from '../test/harness.ts'
import { webContact } from '../units/eis/testing.ts'

export interface CrashSetup {
  env: Env
  headers?: Record<string, string>
  stop(): void
}

export interface CrashTarget {
  /**
   * Environment for the unit (and any fake peer it needs) on its data directory, before the unit
   * first starts; `headers` join every request (a credential made there); `stop` ends the peers.
   */
  setup(dataDir: string): CrashSetup | Promise<CrashSetup>
  method: string
  path: string
  headers: Record<string, string>
  /** The i-th write of a run: unique, valid, accepted. */
  body(i: number): unknown
  /** Headers computed over the exact body text sent (signed webhooks). */
  sign?(raw: string): Record<string, string>
  /** The id the answer acknowledges, or undefined when the answer does not name one. */
  ackId(answer: unknown): string | undefined
  /** Whether the acknowledged write is in the database (opened read-only). */
  exists(db: Database, id: string): boolean
}

const RMS_TOKEN = 'crash-token-rms-0001'
/** The NDS fixture server's address, known once the target's setup started it. */
let ndsFixtures = ''
const EIS_SECRET = 'crash-eis-contact-secret-0123456789abcdef'
const PWS_SECRET = 'crash-pws-session-secret-0123456789abcdef'
const PWS_OWNER_REPO = 'acme/crash'
// An admin operator session, minted once (jose signs asynchronously).
const PWS_ADMIN = await issueSession(
  { secret: PWS_SECRET, maxAgeS: 28_800, secure: false },
  { sub: 'crashtest', role: 'admin' },
)

export const crashTargets: Record<string, CrashTarget> = {
  web: {
    setup() {
      const siteverify = fakePeer(() => json({ success: true, hostname: 'localhost' }))
      return {
        env: { TURNSTILE_SECRET_KEY: 'crash-secret-0123456789abcdef', TURNSTILE_VERIFY_URL: siteverify.url },
        stop: () => siteverify.stop(),
      }
    },
    method: 'POST',
    path: '/api/contact',
    headers: { 'content-type': 'application/json' },
    body: (i) => ({
      name: `Crash Tester ${i}`,
      email: `crash${i}@example.com`,
      interest: 'reliability',
      message: `write number ${i}`,
      'cf-turnstile-response': 'crash-token',
    }),
    ackId: (answer) => (answer as { intake_id?: string }).intake_id,
    exists: (db, id) => db.query('SELECT 1 FROM contact_intakes WHERE intake_id = ?').get(id) !== null,
  },
  // ALS answers an intake only after its group commit: the route the crash test exists for.
  als: {
    setup: () => ({ env: {}, stop() {} }),
    method: 'POST',
    path: '/api/v1/learning/signals/intake',
    headers: { 'content-type': 'application/json' },
    body: (i) => ({
      tenant_ref: 'tenant-crash',
      trace_id: `crash-trace-${i}-${Date.now()}`,
      correlation_id: `crash-corr-${i}`,
      outcome: 'failure',
      guardrail_decision: 'ALLOW',
      family_version_set: { 'learning.signals': '1.0.0' },
    }),
    ackId: (answer) => (answer as { run_id?: string }).run_id,
    exists: (db, id) => db.query('SELECT 1 FROM als_runs WHERE run_id = ?').get(id) !== null,
  },
  rms: {
    setup: () => ({ env: { RMS_LOCAL_TOKENS: `${RMS_TOKEN}:user:crashtest:rw` }, stop() {} }),
    method: 'POST',
    path: '/api/v1/execution/approvals',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${RMS_TOKEN}` },
    body: (i) => ({
      approval_id: `crash-${i}-${Date.now()}`,
      proposal_ref: `crash-proposal-${i}`,
      decision: 'pending',
      policy_approved: false,
      human_approved: false,
    }),
    ackId: (answer) => (answer as { approval_id?: string }).approval_id,
    exists: (db, id) => db.query('SELECT 1 FROM execution_approvals WHERE approval_id = ?').get(id) !== null,
  },
  // PWS: adapter sandbox writes (idempotent, each creates a task the readback names).
  pws: {
    setup: () => ({
      env: {
        PWS_SESSION_SECRET: PWS_SECRET,
        ADAPTER_SANDBOX_WRITE_ENABLED: 'true',
        ADAPTER_SANDBOX_OWNER_REPO: PWS_OWNER_REPO,
      },
      stop() {},
    }),
    method: 'POST',
    path: '/api/v1/projects/sandbox-crash/adapter-sandbox/writes',
    headers: { 'content-type': 'application/json', cookie: `pm_session=${PWS_ADMIN}` },
    body: (i) => ({
      scenario: 'project',
      idempotency_key: `crash-${i}-${Date.now()}`,
      timeout_ms: 5000,
      retry: { max_attempts: 3, backoff_ms: 10 },
      owner_attribution: {
        owner_repo: PWS_OWNER_REPO,
        owner_actor: 'crashtest',
        owner_reason: 'reliability',
      },
      operation: {
        task_key: `crash-task-${i}-${Date.now()}`,
        title: `Crash write ${i}`,
        lane: 'backlog',
        status: 'open',
      },
    }),
    ackId: (answer) => (answer as { readback?: { target_key?: string } }).readback?.target_key,
    exists: (db, id) =>
      db.query("SELECT 1 FROM pws_tasks WHERE project_id = 'sandbox-crash' AND task_key = ?").get(id) !==
      null,
  },
  // EIS: the website contact intake WEB forwards, signed over the exact body text: each
  // acknowledged delivery is an Integration Event stored before the answer.
  eis: {
    setup: () => ({ env: { ERP_API_SHARED_SECRET: EIS_SECRET }, stop() {} }),
    method: 'POST',
    path: '/api/method/svc_erp_core.api.webhooks.website_contact_intake',
    headers: { 'content-type': 'application/json' },
    body: (i) => webContact(`crash${i}-${Date.now()}@example.org`),
    sign: (raw) => signBody(hmacHex(), EIS_SECRET, raw),
    ackId: (answer) => (answer as { message?: { integration_event?: string } }).message?.integration_event,
    exists: (db, id) => db.query('SELECT 1 FROM integration_events WHERE name = ?').get(id) !== null,
  },
  // The mailbox adapter: publishes are group-committed; an acknowledged (202) message must survive.
  mailbox: {
    setup: () => ({ env: {}, stop() {} }),
    method: 'POST',
    path: '/publish',
    headers: { 'content-type': 'application/json' },
    body: (i) => ({ topic: 'crash', message: { n: i, at: Date.now() } }),
    ackId: (answer) => (answer as { message_id?: string }).message_id,
    exists: (db, id) => db.query('SELECT 1 FROM mailbox_messages WHERE message_id = ?').get(id) !== null,
  },
  // NDS: ingest jobs (RSS backfill from a local fixture server), accepted with a key created the
  // way operators create one. An acknowledged job must survive; the restarted worker resumes it.
  nds: {
    async setup(dataDir) {
      const { ndsCli } = await import('../units/nds/cli.ts')
      const { fixtureServer } = await import('../units/nds/testing.ts')
      const io = captureIo()
      const code = await ndsCli.run(
        ['keys', 'create', 'crash'],
        { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
        io,
      )
      const key = io.out.trim().split('\n').at(-1) ?? ''
      if (code !== 0 || key === '') throw new Error(`nds crash setup: keys create exited ${code}: ${io.err}`)
      const fixtures = fixtureServer()
      ndsFixtures = fixtures.url
      return { env: {}, headers: { authorization: `Bearer ${key}` }, stop: () => fixtures.stop() }
    },
    method: 'POST',
    path: '/v1/ingest/rss/backfill',
    headers: { 'content-type': 'application/json' },
    body: (i) => ({
      urls: [`${ndsFixtures}/rss/world.xml?i=${i}`],
      from: '2026-10-01T00:00:00Z',
      to: '2026-12-31T00:00:00Z',
    }),
    ackId: (answer) => (answer as { job_id?: string }).job_id,
    exists: (db, id) => db.query('SELECT 1 FROM ingest_jobs WHERE job_id = ?').get(id) !== null,
  },
}

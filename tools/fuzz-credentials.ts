/**
 * How the fuzzer gets past each unit's auth check: environment for the unit, headers and body
 * fields for its requests, and any fake peer the credentials need. A unit without an entry is
 * fuzzed with its default configuration and no credentials (right for open units).
 */
import { issueSession } from '../common/session.ts'
import { hmacHex, signBody } from '../common/signature.ts'
import type { Env } from '../runtime/run.ts'
import { captureIo, fakePeer, json, tempDir } from '../test/harness.ts'

export interface FuzzSetup {
  /** Environment for the unit under fuzz (on top of SVC_ENV=test and a fresh data dir). */
  env: Env
  /** Headers sent on every generated request (dropped or garbled by one mutation). */
  headers: Record<string, string>
  /** Body fields set on most valid requests whose body schema declares them. */
  body: Record<string, unknown>
  /** Headers computed over the exact body bytes (signed webhooks); most valid requests carry them. */
  sign?: (body: Uint8Array) => Record<string, string>
  /** Stop what the setup started (fake peers). */
  stop(): void
}

export type FuzzCredentials = () => FuzzSetup | Promise<FuzzSetup>

const RMS_FUZZ_TOKEN = 'fuzz-token-rms-0001'
const EIS_FUZZ_SECRET = 'fuzz-eis-webhook-secret-0123456789abcdef'
const EIS_INTERNAL = 'fuzz-eis-internal-token-0001'
const EIS_MCP = 'fuzz-eis-mcp-key-00000001'
const PWS_FUZZ_SECRET = 'fuzz-pws-session-secret-0123456789abcdef'
const PWS_HANDOFF_TOKEN = 'fuzz-token-pws-handoff-0001'
// An admin operator session, minted once (jose signs asynchronously); valid for the default 8 h.
const PWS_ADMIN_SESSION = await issueSession(
  { secret: PWS_FUZZ_SECRET, maxAgeS: 28_800, secure: false },
  { sub: 'fuzzer', role: 'admin' },
)

const none: FuzzCredentials = () => ({ env: {}, headers: {}, body: {}, stop() {} })

export const fuzzCredentials: Record<string, FuzzCredentials> = {
  // WEB: a siteverify stand-in that accepts every token, behind a secret that is not one of
  // Cloudflare's test secrets (those are answered locally and would skip the peer).
  web: () => {
    const siteverify = fakePeer(() => json({ success: true, hostname: 'localhost' }))
    return {
      env: { TURNSTILE_SECRET_KEY: 'fuzz-secret-0123456789abcdef', TURNSTILE_VERIFY_URL: siteverify.url },
      headers: {},
      body: { 'cf-turnstile-response': 'fuzz-token', website: '' },
      stop: () => siteverify.stop(),
    }
  },
  // RMS: a bearer token from the local token list (no projection layer in test, docs/conventions.md §4).
  rms: () => ({
    env: { RMS_LOCAL_TOKENS: `${RMS_FUZZ_TOKEN}:user:fuzzer:rw` },
    headers: { authorization: `Bearer ${RMS_FUZZ_TOKEN}` },
    body: {},
    stop() {},
  }),
  // ALS is open (docs/conventions.md §3); it runs with promotions enabled, so signals are emitted and
  // proposals made, against an RMS approval lane stand-in that knows no approval (approve-check
  // then refuses with 422 approval_missing instead of failing closed on a missing lane).
  als: () => {
    const lane = fakePeer(() => json({ error: { code: 'approval_not_found', message: 'No approval.' } }, 404))
    return {
      env: {
        ALS_SERVICE_MODE: 'promotion_enabled',
        SVC_RMS_URL: lane.url,
        SVC_RMS_TOKEN: 'fuzz-token-als-0001',
      },
      headers: {},
      body: {},
      stop: () => lane.stop(),
    }
  },
  // PRS is open (docs/conventions.md §3).
  prs: none,
  // PWS: an admin pm_session for every project route (sandbox writes enabled for one owner repo),
  // and EIS's bearer token for the support handoff route.
  pws: () => ({
    env: {
      PWS_SESSION_SECRET: PWS_FUZZ_SECRET,
      PWS_SUPPORT_HANDOFF_TOKEN: PWS_HANDOFF_TOKEN,
      ADAPTER_SANDBOX_WRITE_ENABLED: 'true',
      ADAPTER_SANDBOX_OWNER_REPO: 'acme/fuzz',
    },
    headers: { cookie: `pm_session=${PWS_ADMIN_SESSION}`, authorization: `Bearer ${PWS_HANDOFF_TOKEN}` },
    body: {},
    stop() {},
  }),
  // EIS: the internal bearer token and the MCP key on every request, and every webhook secret set to
  // one value so that one signer signs whichever signed route a request goes to.
  eis: () => ({
    env: {
      EIS_INTERNAL_TOKEN: EIS_INTERNAL,
      EIS_MCP_KEY: EIS_MCP,
      PAYMENT_PROVIDER_A_WEBHOOK_SECRET: EIS_FUZZ_SECRET,
      PAYMENT_PROVIDER_B_WEBHOOK_SECRET: EIS_FUZZ_SECRET,
      AUTOMATION_SHARED_SECRET: EIS_FUZZ_SECRET,
      ERP_API_SHARED_SECRET: EIS_FUZZ_SECRET,
      TICKETING_WEBHOOK_SECRET: EIS_FUZZ_SECRET,
    },
    headers: { authorization: `Bearer ${EIS_INTERNAL}`, 'x-svc-key': EIS_MCP },
    body: {},
    sign: (body) => signBody(hmacHex(), EIS_FUZZ_SECRET, body),
    stop() {},
  }),

  // NDS: an API key created the way operators create one (`svc nds keys create`), in the data
  // directory the unit then boots on; it goes on every request as the bearer token.
  nds: async () => {
    const { ndsCli } = await import('../units/nds/cli.ts')
    const dataDir = tempDir('svc-nds-fuzz-')
    const io = captureIo()
    const code = await ndsCli.run(
      ['keys', 'create', 'fuzz'],
      { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      io,
    )
    const key = io.out.trim().split('\n').at(-1) ?? ''
    if (code !== 0 || key === '') throw new Error(`nds fuzz setup: keys create exited ${code}: ${io.err}`)
    return {
      env: { SVC_DATA_DIR: dataDir },
      headers: { authorization: `Bearer ${key}` },
      body: {},
      stop() {},
    }
  },

  // WTA: a stand-in n8n (the public API's shapes) and a stand-in npm registry for the upstream
  // release, so the workflow and upgrade routes get past "not configured".
  wta: async () => {
    const { fakeN8n } = await import('../units/wta/testing.ts')
    const n8n = fakeN8n()
    const registry = fakePeer(() => json({ 'dist-tags': { latest: '2.8.4' } }))
    return {
      env: {
        WTA_AUTOMATION_URL: n8n.url,
        WTA_AUTOMATION_API_KEY: n8n.apiKey,
        WTA_UPSTREAM_URL: registry.url,
      },
      headers: {},
      body: {},
      stop() {
        n8n.stop()
        registry.stop()
      },
    }
  },
}

export async function credentialsFor(unit: string): Promise<FuzzSetup> {
  return (fuzzCredentials[unit] ?? none)()
}

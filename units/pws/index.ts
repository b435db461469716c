import { join } from 'node:path'
import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { urlString } from '../../common/config.ts'
import { credentials } from '../../common/credentials.ts'
import { errorFields } from '../../common/logger.ts'
import { createPoller } from '../../common/poller.ts'
import { sessionConfigProblems, sessionEnv, sessionOptions, sessionPlugin } from '../../common/session.ts'
import { hmacHex, signaturePlugin } from '../../common/signature.ts'
import { StorageGuard } from '../../db/guard.ts'
import { storageLease } from '../../db/lease.ts'
import { migrations } from '../../db/migrations/pws/index.ts'
import { defineUnit, type HttpUnit } from '../../runtime/unit.ts'
import { pwsContract } from './manifest.ts'
import { meta } from './meta.ts'
import { createPwsMetrics } from './metrics.ts'
import { createPlanningRepo } from './planning-repo.ts'
import { agentRoutes } from './routes/agents.ts'
import { authRoutes, loginRoutes } from './routes/auth.ts'
import { automationRoutes } from './routes/automation.ts'
import { deliveryRoutes, webhookRoutes } from './routes/delivery.ts'
import { planningRoutes } from './routes/planning.ts'
import { projectRoutes } from './routes/projects.ts'
import { sandboxRoutes } from './routes/sandbox.ts'
import { statusRoutes } from './routes/status.ts'
import { supportRoutes } from './routes/support.ts'
import { PROVIDERS, type Provider } from './rules/delivery.ts'
import { GIT_POLL_FALLBACK_MINUTES } from './rules/summary.ts'
import { pollAll } from './service/delivery.ts'
import type { ProviderSettings, PwsDeps, PwsSettings } from './service/deps.ts'
import { createOidcLogin } from './service/oidc.ts'
import { PERSISTENCE_UNAVAILABLE } from './service/sandbox.ts'

const integer = (min: number, max: number, dflt: number, description: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description })
const secret = (description: string, minLength = 16) =>
  T.Optional(T.String({ minLength, description: `${description} (${minLength}+ characters)` }))

const providerEnv = (p: string) => ({
  [`PWS_${p}_URL`]: T.Optional(urlString(`the ${p.toLowerCase()} REST API root`)),
  [`PWS_${p}_TOKEN`]: T.Optional(T.String({ minLength: 1, description: `a ${p.toLowerCase()} API token` })),
  [`PWS_${p}_WEBHOOK_SECRET`]: T.Optional(
    T.String({
      minLength: 16,
      description: 'webhook secrets of 16+ characters, comma-separated for rotation',
    }),
  ),
})

const env = {
  ...sessionEnv,
  PWS_SUPPORT_HANDOFF_TOKEN: secret('the bearer token EIS presents on the support handoff'),
  PWS_SUPPORT_PROJECT_ID: T.String({
    pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
    default: 'support',
    description: 'a lowercase project key',
  }),
  ADAPTER_SANDBOX_WRITE_ENABLED: T.Boolean({ default: false, description: 'true or false' }),
  ADAPTER_SANDBOX_PROJECT_PREFIX: T.String({
    minLength: 1,
    default: 'sandbox-',
    description: 'a project id prefix',
  }),
  ADAPTER_SANDBOX_OWNER_REPO: T.Optional(
    T.String({ minLength: 1, description: 'owner/name of the owner repository' }),
  ),
  PWS_PLANNING_REPO: T.Optional(
    T.String({ minLength: 1, description: 'a git repository path or clone URL' }),
  ),
  PWS_OIDC_ISSUER: T.Optional(urlString('the OpenID provider issuer URL')),
  PWS_OIDC_CLIENT_ID: T.Optional(T.String({ minLength: 1, description: 'the OIDC client id' })),
  PWS_OIDC_CLIENT_SECRET: T.Optional(T.String({ minLength: 1, description: 'the OIDC client secret' })),
  PWS_PUBLIC_BASE_URL: T.Optional(urlString('the public URL PWS is reached at (for the OIDC callback)')),
  PWS_OIDC_ROLE_CLAIM: T.String({
    minLength: 1,
    default: 'pws_role',
    description: 'the ID token claim with the role',
  }),
  PWS_AUTOMATION_URL: T.Optional(urlString('the workflow-automation tool root (n8n-compatible REST API)')),
  PWS_AUTOMATION_API_KEY: T.Optional(T.String({ minLength: 1, description: 'the automation tool API key' })),
  SVC_WTA_URL: T.Optional(urlString('the WTA base URL')),
  SVC_API_TOKEN: T.Optional(
    T.String({ minLength: 1, description: 'the bearer token WTA expects, when it has one' }),
  ),
  PWS_POLL_INTERVAL_S: integer(
    1,
    86_400,
    GIT_POLL_FALLBACK_MINUTES * 60,
    'seconds between provider polls (default 300)',
  ),
  PWS_PEER_TIMEOUT_MS: integer(50, 60_000, 5000, 'milliseconds 50-60000'),
  ...providerEnv('GITHUB'),
  ...providerEnv('GITLAB'),
  ...providerEnv('GITEA'),
}

type Config = Record<string, unknown>

function providerSettings(c: Config): Partial<Record<Provider, ProviderSettings>> {
  const out: Partial<Record<Provider, ProviderSettings>> = {}
  for (const p of PROVIDERS) {
    const up = p.toUpperCase()
    const baseUrl = c[`PWS_${up}_URL`] as string | undefined
    if (!baseUrl) continue
    const secrets = (c[`PWS_${up}_WEBHOOK_SECRET`] as string | undefined) ?? ''
    out[p] = {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      token: c[`PWS_${up}_TOKEN`] as string | undefined,
      webhookSecrets: secrets
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    }
  }
  return out
}

/** PWS on a clock (tests move time forward). */
export const definePws = (clock: () => number = Date.now): HttpUnit =>
  defineUnit({
    kind: 'http',
    ...meta,
    description:
      'Project workflow: projects, tasks and lanes, agents and handoffs, planning synced with git, delivery views from code hosts, the adapter sandbox, the EIS support handoff and the OIDC app login.',
    env,
    migrations,
    libsql: true,
    probeRoutes: ['/healthz', '/readyz', '/metrics'],
    validate(config) {
      const problems = sessionConfigProblems(config)
      const oidc = [config.PWS_OIDC_ISSUER, config.PWS_OIDC_CLIENT_ID, config.PWS_OIDC_CLIENT_SECRET]
      if (oidc.some(Boolean) && !oidc.every(Boolean)) {
        problems.push(
          'PWS_OIDC_ISSUER: set PWS_OIDC_ISSUER, PWS_OIDC_CLIENT_ID and PWS_OIDC_CLIENT_SECRET together',
        )
      }
      if (config.PWS_OIDC_ISSUER && !config.PWS_SESSION_SECRET) {
        problems.push(
          'PWS_SESSION_SECRET: required when PWS_OIDC_ISSUER is set (the login issues pm_session)',
        )
      }
      if (config.ADAPTER_SANDBOX_WRITE_ENABLED && !config.ADAPTER_SANDBOX_OWNER_REPO) {
        problems.push('ADAPTER_SANDBOX_OWNER_REPO: required when ADAPTER_SANDBOX_WRITE_ENABLED is true')
      }
      return problems
    },
    build(ctx) {
      const c = ctx.config
      const contract = pwsContract()
      const sessionOpts = sessionOptions(c)
      const sessions = sessionPlugin(sessionOpts)
      const creds = credentials({
        supportHandoff: {
          kind: 'bearer',
          tokens: [c.PWS_SUPPORT_HANDOFF_TOKEN],
          description: 'PWS_SUPPORT_HANDOFF_TOKEN: the token EIS presents on the support handoff.',
        },
      })
      const settings: PwsSettings = {
        sandbox: {
          enabled: c.ADAPTER_SANDBOX_WRITE_ENABLED,
          projectPrefix: c.ADAPTER_SANDBOX_PROJECT_PREFIX,
          ownerRepo: c.ADAPTER_SANDBOX_OWNER_REPO,
        },
        supportProjectId: c.PWS_SUPPORT_PROJECT_ID,
        supportHandoffToken: c.PWS_SUPPORT_HANDOFF_TOKEN,
        planningRepo: c.PWS_PLANNING_REPO,
        providers: providerSettings(c as Config),
        oidc:
          c.PWS_OIDC_ISSUER && c.PWS_OIDC_CLIENT_ID
            ? { issuer: c.PWS_OIDC_ISSUER, clientId: c.PWS_OIDC_CLIENT_ID, roleClaim: c.PWS_OIDC_ROLE_CLAIM }
            : undefined,
        sessionsAvailable: sessionOpts.secret !== undefined,
        automation: {
          operator: c.PWS_AUTOMATION_URL
            ? { url: c.PWS_AUTOMATION_URL, apiKey: c.PWS_AUTOMATION_API_KEY }
            : undefined,
          expert: c.SVC_WTA_URL ? { url: c.SVC_WTA_URL, apiKey: c.SVC_API_TOKEN } : undefined,
        },
        sessionMaxAgeS: c.PWS_SESSION_MAX_AGE_S,
        peerTimeoutMs: c.PWS_PEER_TIMEOUT_MS,
      }
      const deps: PwsDeps = {
        storage: ctx.storage,
        guard: new StorageGuard(ctx.storage, {
          onFailure: (err) => ctx.log.error({ err: errorFields(err) }, 'persistence failure'),
          code: PERSISTENCE_UNAVAILABLE,
          message: 'The project store is unavailable; nothing was written.',
        }),
        log: ctx.log,
        settings,
        contract,
        counters: createPwsMetrics(ctx.metrics.registry, ctx.storage, contract),
        now: clock,
      }
      const hooks = settings.providers
      const signatures = signaturePlugin({
        githubWebhook: {
          profile: hmacHex('X-Hub-Signature-256'),
          secrets: hooks.github?.webhookSecrets ?? [],
        },
        giteaWebhook: { profile: hmacHex('X-Gitea-Signature'), secrets: hooks.gitea?.webhookSecrets ?? [] },
      })
      const gitlabCreds = credentials({
        gitlabWebhook: { kind: 'header', header: 'X-Gitlab-Token', keys: hooks.gitlab?.webhookSecrets ?? [] },
      })
      // The poll fallback (spec: every 5 minutes); one process of several polls, by a lease in
      // the unit's database (so replicas on one libSQL server take turns).
      const poller = createPoller({
        name: 'pws:provider-poll',
        intervalMs: c.PWS_POLL_INTERVAL_S * 1000,
        initialDelayMs: 1000,
        lease: storageLease(ctx.storage, 'pws:provider-poll', { durationMs: 10 * 60_000 }),
        log: ctx.log,
        run: () => pollAll(deps),
      })
      const oidcLogin =
        c.PWS_OIDC_ISSUER && c.PWS_OIDC_CLIENT_ID && c.PWS_OIDC_CLIENT_SECRET
          ? createOidcLogin({
              issuer: c.PWS_OIDC_ISSUER,
              clientId: c.PWS_OIDC_CLIENT_ID,
              clientSecret: c.PWS_OIDC_CLIENT_SECRET,
              roleClaim: c.PWS_OIDC_ROLE_CLAIM,
              publicBaseUrl: c.PWS_PUBLIC_BASE_URL,
              allowHttp: c.SVC_ENV !== 'production',
              timeoutMs: c.PWS_PEER_TIMEOUT_MS,
            })
          : undefined
      const planningRepo = c.PWS_PLANNING_REPO
        ? createPlanningRepo(c.PWS_PLANNING_REPO, join(c.SVC_DATA_DIR, 'pws-planning'))
        : undefined
      const routes = new Elysia({ name: 'pws:routes' })
        .use(
          statusRoutes({
            deps,
            registry: ctx.metrics.registry,
            version: ctx.version,
            startedAt: ctx.startedAt,
          }),
        )
        .use(projectRoutes(deps, sessions))
        .use(agentRoutes(deps, sessions))
        .use(sandboxRoutes(deps, sessions))
        .use(planningRoutes(deps, sessions, planningRepo))
        .use(oidcLogin ? loginRoutes(deps, sessionOpts, oidcLogin) : new Elysia({ name: 'pws:no-login' }))
        .use(supportRoutes(deps, creds))
        .use(automationRoutes(deps, sessions))
        .use(deliveryRoutes(deps, sessions))
        .use(webhookRoutes(deps, signatures, gitlabCreds))
        .use(
          authRoutes({
            deps,
            sessions,
            sessionOptions: sessionOpts,
            login: oidcLogin,
          }),
        )
      return {
        routes,
        background: Object.keys(hooks).length > 0 ? [poller] : [],
        securitySchemes: {
          ...sessions.securitySchemes,
          ...creds.securitySchemes,
          ...signatures.securitySchemes,
          ...gitlabCreds.securitySchemes,
        },
      }
    },
  })

export const pws: HttpUnit = definePws()

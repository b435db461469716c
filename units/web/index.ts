import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { urlString } from '../../common/config.ts'
import { Gauge } from '../../common/metrics.ts'
import { metricsRoute } from '../../common/routes.ts'
import { migrations } from '../../db/migrations/web/index.ts'
import { defineUnit } from '../../runtime/unit.ts'
import { meta } from './meta.ts'
import { createContactOutbox } from './outbox.ts'
import { contactRoutes } from './routes/contact.ts'
import { createSite, siteRoutes } from './routes/site.ts'
import { statusRoutes } from './routes/status.ts'
import { ALWAYS_PASS_SECRET, CLOUDFLARE_SITEVERIFY, DUMMY_TOKEN, TEST_SECRETS } from './rules/turnstile.ts'
import { outboxSummary } from './store.ts'

export const WEB_IDENTITY = {
  tool_key: 'public-website',
  legacy_slugs: ['website', 'site'],
  runtime_kind: 'bun-elysia-function-runtime',
}

const env = {
  PUBLIC_BASE_URL: T.Optional(urlString('the public https URL of the site')),
  WEB_PUBLIC_DIR: T.Optional(T.String({ minLength: 1, description: 'a directory of static files' })),
  TURNSTILE_SECRET_KEY: T.Optional(T.String({ minLength: 1, description: 'the Turnstile secret key' })),
  TURNSTILE_SITE_KEY: T.Optional(T.String({ minLength: 1, description: 'the Turnstile site key' })),
  TURNSTILE_VERIFY_URL: urlString('the siteverify URL'),
  TURNSTILE_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 30000,
    default: 5000,
    description: 'milliseconds 100-30000',
  }),
  CONTACT_WEBHOOK_URL: T.Optional(urlString('the contact webhook URL')),
  CONTACT_WEBHOOK_SECRET: T.Optional(
    T.String({ minLength: 16, description: 'a signing secret of 16+ characters' }),
  ),
  CONTACT_MAILTO: T.Optional(
    T.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'an e-mail address' }),
  ),
  CONTACT_DELIVERY_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 60000,
    default: 5000,
    description: 'milliseconds',
  }),
  CONTACT_OUTBOX_POLL_MS: T.Integer({
    minimum: 50,
    maximum: 600000,
    default: 5000,
    description: 'milliseconds',
  }),
}
env.TURNSTILE_VERIFY_URL.default = CLOUDFLARE_SITEVERIFY

const ALWAYS_PASS_NOTE =
  "TURNSTILE_SECRET_KEY is not set: development uses Cloudflare's always-pass test secret, so every contact passes the Turnstile check"

export const web = defineUnit({
  kind: 'http',
  ...meta,
  description: 'Health, readiness, version and status documents, the contact intake, and the public site.',
  env,
  migrations,
  libsql: true,
  formRoutes: ['POST /api/contact'],
  validate(config) {
    const problems: string[] = []
    if (Boolean(config.CONTACT_WEBHOOK_URL) !== Boolean(config.CONTACT_WEBHOOK_SECRET)) {
      problems.push('CONTACT_WEBHOOK_SECRET: set CONTACT_WEBHOOK_URL and CONTACT_WEBHOOK_SECRET together')
    }
    if (config.SVC_ENV === 'production') {
      if (!config.PUBLIC_BASE_URL)
        problems.push('PUBLIC_BASE_URL: required in production, expected an https URL')
      if (config.TURNSTILE_SECRET_KEY && TEST_SECRETS[config.TURNSTILE_SECRET_KEY]) {
        problems.push('TURNSTILE_SECRET_KEY: a Cloudflare test secret is not allowed in production')
      }
    }
    return problems
  },
  build(ctx) {
    const c = ctx.config
    const production = c.SVC_ENV === 'production'
    const identity = {
      ...WEB_IDENTITY,
      public_base_url: c.PUBLIC_BASE_URL ?? `http://127.0.0.1:${c.PORT ?? 18080}`,
    }
    const site = {
      tool_key: identity.tool_key,
      public_base_url: identity.public_base_url,
      runtime_kind: identity.runtime_kind,
    }
    const webhookConfigured = Boolean(c.CONTACT_WEBHOOK_URL && c.CONTACT_WEBHOOK_SECRET)
    const outbox =
      c.CONTACT_WEBHOOK_URL && c.CONTACT_WEBHOOK_SECRET
        ? createContactOutbox(ctx.storage, ctx.log, ctx.metrics.registry, {
            url: c.CONTACT_WEBHOOK_URL,
            secret: c.CONTACT_WEBHOOK_SECRET,
            timeoutMs: c.CONTACT_DELIVERY_TIMEOUT_MS,
            pollMs: c.CONTACT_OUTBOX_POLL_MS,
            batch: 50,
          })
        : undefined
    // The quick start has no Turnstile account: outside production, no secret means Cloudflare's
    // always-pass test secret, said in the log and /ready. Production stays strict (503) and
    // refuses test secrets at start.
    const devSecret = !c.TURNSTILE_SECRET_KEY && c.SVC_ENV !== 'production'
    if (devSecret) ctx.log.warn(ALWAYS_PASS_NOTE)
    const secret = c.TURNSTILE_SECRET_KEY ?? (devSecret ? ALWAYS_PASS_SECRET : undefined)
    const turnstile = secret
      ? {
          secret,
          verifyUrl: c.TURNSTILE_VERIFY_URL,
          timeoutMs: c.TURNSTILE_TIMEOUT_MS,
          allowTestSecrets: !production,
        }
      : undefined
    const pages = createSite({ publicDir: c.WEB_PUBLIC_DIR })
    // Without a site key the page cannot render the widget; outside production it sends
    // Cloudflare's documented dummy token instead, which siteverify still has to accept.
    const vars = {
      TURNSTILE_SITE_KEY: c.TURNSTILE_SITE_KEY ?? '',
      TURNSTILE_DEV_TOKEN: !production && !c.TURNSTILE_SITE_KEY ? DUMMY_TOKEN : '',
    }

    new Gauge({
      name: 'svc_contact_outbox_pending',
      help: 'Contact intakes waiting for webhook delivery.',
      registers: [ctx.metrics.registry],
      async collect() {
        this.set((await outboxSummary(ctx.storage)).pending)
      },
    })

    const routes = new Elysia({ name: 'web:routes' })
      .use(
        statusRoutes({
          storage: ctx.storage,
          site: pages,
          identity,
          version: ctx.version,
          startedAt: ctx.startedAt,
          turnstileConfigured: turnstile !== undefined,
          turnstileNote: devSecret ? ALWAYS_PASS_NOTE : undefined,
          webhookConfigured,
          mailto: c.CONTACT_MAILTO,
          production,
        }),
      )
      .use(
        contactRoutes({
          storage: ctx.storage,
          log: ctx.log,
          site,
          turnstile,
          webhookConfigured,
          mailto: c.CONTACT_MAILTO,
          afterStore: () => outbox?.kick(),
        }),
      )
      .use(metricsRoute(ctx.metrics.registry))
      .use(siteRoutes(pages, vars))
    return { routes, background: outbox ? [outbox] : [] }
  },
})

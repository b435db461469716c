import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { urlString } from '../../common/config.ts'
import { migrations } from '../../db/migrations/eis/index.ts'
import { defineUnit, type HttpUnit } from '../../runtime/unit.ts'
import { eisCredentials, eisSignatures } from './access.ts'
import { mcpRoutes } from './mcp/route.ts'
import { meta } from './meta.ts'
import { healthRoutes, integrationStatus } from './routes/health.ts'
import { identityRoutes } from './routes/identity.ts'
import { supportRoutes } from './routes/support.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { workflowRoutes } from './routes/workflows.ts'
import type { EisDeps } from './service/deps.ts'
import { createDispatchOutbox } from './service/dispatch.ts'
import { embeddedErp } from './service/erp.ts'
import { frappeErp } from './service/frappe.ts'

const secret = (what: string) =>
  T.Optional(T.String({ minLength: 16, description: `${what}, 16+ characters` }))
const integer = (min: number, max: number, dflt: number, description: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description })

const env = {
  EIS_INTERNAL_TOKEN: secret('the bearer token of trusted internal callers'),
  EIS_MCP_KEY: secret('the X-SVC-Key of MCP clients'),
  PAYMENT_PROVIDER_A_WEBHOOK_SECRET: secret('the payment provider A signing secret'),
  PAYMENT_PROVIDER_B_WEBHOOK_SECRET: secret('the payment provider B signing secret'),
  AUTOMATION_SHARED_SECRET: secret('the supplier-intake and callback signing secret'),
  ERP_API_SHARED_SECRET: secret('the website contact-intake signing secret'),
  TICKETING_WEBHOOK_SECRET: secret('the ticketing signing secret'),
  PAYMENT_PROVIDER_A_WEBHOOK_SECRET_PREVIOUS: secret(
    'the previous provider A secret, accepted during a rotation',
  ),
  PAYMENT_PROVIDER_B_WEBHOOK_SECRET_PREVIOUS: secret(
    'the previous provider B secret, accepted during a rotation',
  ),
  AUTOMATION_SHARED_SECRET_PREVIOUS: secret('the previous automation secret, accepted during a rotation'),
  ERP_API_SHARED_SECRET_PREVIOUS: secret('the previous contact-intake secret, accepted during a rotation'),
  TICKETING_WEBHOOK_SECRET_PREVIOUS: secret('the previous ticketing secret, accepted during a rotation'),
  EIS_BOOTSTRAP_SUBJECT: T.Optional(
    T.String({ minLength: 1, maxLength: 256, description: 'a technical subject' }),
  ),
  SVC_RMS_URL: T.Optional(urlString('the RMS base URL')),
  SVC_RMS_TOKEN: T.Optional(T.String({ minLength: 1, description: 'the bearer token EIS presents to RMS' })),
  SVC_SUPPORT_HANDOFF_URL: T.Optional(urlString('the PWS support handoff URL')),
  SVC_SUPPORT_HANDOFF_TOKEN: T.Optional(
    T.String({ minLength: 1, description: 'the bearer token of the support handoff' }),
  ),
  ZAMMAD_BASE_URL: T.Optional(urlString('the ticketing system base URL')),
  ZAMMAD_TOKEN: T.Optional(T.String({ minLength: 1, description: 'the ticketing API token' })),
  ERP_BASE_URL: T.Optional(urlString('the Frappe/ERPNext base URL')),
  ERP_API_KEY: T.Optional(T.String({ minLength: 1, description: 'the Frappe API key' })),
  ERP_API_SECRET: T.Optional(T.String({ minLength: 1, description: 'the Frappe API secret' })),
  EIS_PEER_TIMEOUT_MS: integer(50, 60_000, 5000, 'milliseconds 50-60000'),
  EIS_APPROVAL_TTL_S: integer(60, 2_592_000, 86_400, 'seconds 60-2592000'),
}

export const eis: HttpUnit = defineUnit({
  kind: 'http',
  ...meta,
  description:
    'ERP integration: signed webhooks and callbacks, integration evidence, approval workflows, draft invoices, ticketing in and out, identity projections, and an MCP gateway.',
  env,
  migrations,
  libsql: true,
  probeRoutes: ['/healthz', '/api/method/svc_erp_core.api.health.integration_status'],
  validate(config) {
    const problems: string[] = []
    if (config.SVC_RMS_TOKEN && !config.SVC_RMS_URL)
      problems.push('SVC_RMS_URL: required when SVC_RMS_TOKEN is set, expected an http(s) URL')
    if (Boolean(config.SVC_SUPPORT_HANDOFF_URL) !== Boolean(config.SVC_SUPPORT_HANDOFF_TOKEN)) {
      problems.push(
        'SVC_SUPPORT_HANDOFF_TOKEN: set SVC_SUPPORT_HANDOFF_URL and SVC_SUPPORT_HANDOFF_TOKEN together',
      )
    }
    if (Boolean(config.ZAMMAD_BASE_URL) !== Boolean(config.ZAMMAD_TOKEN)) {
      problems.push('ZAMMAD_TOKEN: set ZAMMAD_BASE_URL and ZAMMAD_TOKEN together')
    }
    const erp = [config.ERP_BASE_URL, config.ERP_API_KEY, config.ERP_API_SECRET].filter(Boolean).length
    if (erp !== 0 && erp !== 3)
      problems.push('ERP_API_SECRET: set ERP_BASE_URL, ERP_API_KEY and ERP_API_SECRET together')
    return problems
  },
  build(ctx) {
    const c = ctx.config
    const access = eisCredentials(c)
    const signatures = eisSignatures(c)
    const integrations = {
      payment_provider_a: Boolean(c.PAYMENT_PROVIDER_A_WEBHOOK_SECRET),
      payment_provider_b: Boolean(c.PAYMENT_PROVIDER_B_WEBHOOK_SECRET),
      supplier_intake: Boolean(c.AUTOMATION_SHARED_SECRET),
      website_contact_intake: Boolean(c.ERP_API_SHARED_SECRET),
      ticketing_inbound: Boolean(c.TICKETING_WEBHOOK_SECRET ?? c.AUTOMATION_SHARED_SECRET),
      ticketing_outbound: Boolean(c.ZAMMAD_BASE_URL && c.ZAMMAD_TOKEN),
      support_handoff: Boolean(c.SVC_SUPPORT_HANDOFF_URL),
      runtime_host_dispatch: Boolean(c.SVC_RMS_URL),
      internal_callers: Boolean(c.EIS_INTERNAL_TOKEN),
      mcp_gateway: Boolean(c.EIS_MCP_KEY),
    }
    const dispatchOutbox = createDispatchOutbox(ctx.storage, ctx.log, ctx.metrics.registry, {
      url: c.SVC_RMS_URL,
      token: c.SVC_RMS_TOKEN,
      timeoutMs: c.EIS_PEER_TIMEOUT_MS,
    })
    const deps: EisDeps = {
      storage: ctx.storage,
      log: ctx.log,
      erp:
        c.ERP_BASE_URL && c.ERP_API_KEY && c.ERP_API_SECRET
          ? frappeErp(ctx.storage, {
              baseUrl: c.ERP_BASE_URL,
              apiKey: c.ERP_API_KEY,
              apiSecret: c.ERP_API_SECRET,
              timeoutMs: c.EIS_PEER_TIMEOUT_MS,
            })
          : embeddedErp(ctx.storage),
      runtimeHost: { url: c.SVC_RMS_URL, token: c.SVC_RMS_TOKEN },
      supportHandoff: { url: c.SVC_SUPPORT_HANDOFF_URL, token: c.SVC_SUPPORT_HANDOFF_TOKEN },
      ticketing: { baseUrl: c.ZAMMAD_BASE_URL, token: c.ZAMMAD_TOKEN },
      timeoutMs: c.EIS_PEER_TIMEOUT_MS,
      approvalTtlS: c.EIS_APPROVAL_TTL_S,
      now: () => Date.now(),
      kickDispatch: () => dispatchOutbox.kick(),
    }
    const health = {
      storage: ctx.storage,
      version: ctx.version,
      startedAt: ctx.startedAt,
      erpBackend: deps.erp.kind,
      integrations,
    }
    const routes = new Elysia({ name: 'eis:routes' })
      .use(healthRoutes(health))
      // Signed routes and /mcp come before the credentials plugin: its bearer derive is global and
      // throws in the compiled executable on requests without a Bearer header (docs/units/eis.md).
      .use(webhookRoutes({ ...deps, signatures }))
      .use(mcpRoutes({ ...deps, status: () => integrationStatus(health) }, c.EIS_MCP_KEY))
      .use(identityRoutes({ storage: ctx.storage, access, bootstrapSubject: c.EIS_BOOTSTRAP_SUBJECT }))
      .use(workflowRoutes(deps, access))
      .use(supportRoutes(deps, access))
    return {
      routes,
      background: [dispatchOutbox],
      securitySchemes: { ...access.securitySchemes, ...signatures.securitySchemes },
    }
  },
})

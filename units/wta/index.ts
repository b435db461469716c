import { Elysia } from 'elysia'
import { unauthorized } from '../../common/errors.ts'
import { migrations } from '../../db/migrations/wta/index.ts'
import { defineUnit } from '../../runtime/unit.ts'
import { apiCredentials, bearerMatches } from './access.ts'
import { wtaEnv } from './config.ts'
import { meta } from './meta.ts'
import { catalogRoutes } from './routes/catalog.ts'
import { statusRoutes } from './routes/status.ts'
import { upgradeRoutes } from './routes/upgrade.ts'
import { workflowRoutes } from './routes/workflows.ts'
import { createObservers } from './service/observer.ts'
import { createWta } from './service/wta.ts'

export const OPENAPI_PATH = '/api/v1/openapi.json'

export const wta = defineUnit({
  kind: 'http',
  ...meta,
  description:
    'Workflow tooling for n8n: reachability and status, catalog baseline, upstream release, execution hotspots, workflows with context and validation, and upgrade impact, summary, backlog, batches and alerts. The command line `svc wta` gives the same answers.',
  env: wtaEnv,
  migrations,
  libsql: true,
  openapiPath: OPENAPI_PATH,
  probeRoutes: ['/api/v1/health'],
  validate(config) {
    return Boolean(config.WTA_AUTOMATION_URL) !== Boolean(config.WTA_AUTOMATION_API_KEY)
      ? ['WTA_AUTOMATION_API_KEY: set WTA_AUTOMATION_URL and WTA_AUTOMATION_API_KEY together']
      : []
  },
  build(ctx) {
    const service = createWta(ctx.config, ctx.storage)
    const token = ctx.config.SVC_API_TOKEN
    const creds = apiCredentials(token)
    const observers =
      ctx.config.WTA_OBSERVERS_ENABLED && service.client.configured
        ? createObservers(service, { log: ctx.log })
        : undefined
    service.observer = () => observers?.flow.stats()
    const routes = new Elysia({ name: 'wta:routes' })
      // The OpenAPI document is served by the runtime; with a token it is guarded like every route but health.
      .onRequest(({ request }) => {
        if (
          token &&
          request.method === 'GET' &&
          new URL(request.url).pathname === OPENAPI_PATH &&
          !bearerMatches(request.headers.get('authorization'), token)
        )
          throw unauthorized(
            'authentication_required',
            'This route needs Authorization: Bearer <SVC_API_TOKEN>.',
          )
      })
      .use(statusRoutes(service, creds))
      .use(catalogRoutes(service, creds))
      .use(workflowRoutes(service, creds))
      .use(upgradeRoutes(service, creds))
    return { routes, background: observers?.tasks ?? [], securitySchemes: creds.securitySchemes }
  },
})

import { Elysia } from 'elysia'
import { jsonView } from '../../../common/json-view.ts'
import { DocsCatalogResponse, DocsPlatformResponse, DocsReadinessResponse } from '../model.ts'
import type { PrsDeps } from '../service/deps.ts'

export const docsRoutes = ({ views }: PrsDeps) =>
  new Elysia({ name: 'prs:docs', prefix: '/api/v1/docs' })
    .get('/platform', jsonView(DocsPlatformResponse, views.docsPlatform), {
      response: { 200: DocsPlatformResponse },
      detail: { summary: 'Docs platform' },
    })
    .get('/catalog', jsonView(DocsCatalogResponse, views.docsCatalog), {
      response: { 200: DocsCatalogResponse },
      detail: { summary: 'Docs catalog: every unit’s entrypoint and the sections found' },
    })
    .get('/readiness', jsonView(DocsReadinessResponse, views.docsReadiness), {
      response: { 200: DocsReadinessResponse },
      detail: { summary: 'Docs readiness against the docs standard' },
    })

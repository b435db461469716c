import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { FilterSearchRequest, SearchResponse, SemanticSearchRequest } from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import { filterSearch, semanticSearch } from '../service/search.ts'

const errors = errorResponses(400, 401, 413, 415, 503)

export const searchRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:search' }).use(deps.auth).guard({ auth: 'apiKey' }, (app) =>
    app
      .post('/v1/search/filter', ({ body }) => filterSearch(deps, body), {
        body: FilterSearchRequest,
        response: { 200: SearchResponse, ...errors },
        detail: {
          summary: 'Full-text search (FTS5, BM25) with filters and cursor pagination',
          description:
            'Words must all match; "quoted phrases"; prefix*. Without a query: newest first. 400 invalid_cursor.',
        },
      })
      .post('/v1/search/semantic', ({ body }) => semanticSearch(deps, body), {
        body: SemanticSearchRequest,
        response: { 200: SearchResponse, ...errors },
        detail: {
          summary: 'Vector search over article embeddings; hybrid: true fuses it with full-text ranks (RRF)',
          description: '503 embedding_runtime_unavailable when NDS_EMBEDDING_URL is set and does not answer.',
        },
      }),
  )

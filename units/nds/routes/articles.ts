import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { Article, ArticleParams, ArticleVersions, DedupeCluster } from '../model.ts'
import { getArticle, getCluster, getVersions } from '../service/articles.ts'
import type { NdsDeps } from '../service/deps.ts'

const errors = errorResponses(401, 404)

export const articleRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:articles' }).use(deps.auth).guard({ auth: 'apiKey' }, (app) =>
    app
      .get('/v1/articles/:article_id', ({ params }) => getArticle(deps, params.article_id), {
        params: ArticleParams,
        response: { 200: Article, ...errors },
        detail: { summary: 'An article, current version' },
      })
      .get('/v1/articles/:article_id/versions', ({ params }) => getVersions(deps, params.article_id), {
        params: ArticleParams,
        response: { 200: ArticleVersions, ...errors },
        detail: { summary: 'Every stored version of an article, oldest first' },
      })
      .get('/v1/articles/:article_id/dedupe-cluster', ({ params }) => getCluster(deps, params.article_id), {
        params: ArticleParams,
        response: { 200: DedupeCluster, ...errors },
        detail: { summary: 'The near-duplicate cluster of an article: members and similarity' },
      }),
  )

/** NewsAPI v2: `/v2/everything` (backfill: a query over a date range) and `/v2/top-headlines`. */
import { Type as T } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { RawArticle } from '../rules/normalize.ts'

const NewsApiArticle = T.Object({
  source: T.Optional(
    T.Object({
      id: T.Optional(T.Union([T.String(), T.Null()])),
      name: T.Optional(T.Union([T.String(), T.Null()])),
    }),
  ),
  author: T.Optional(T.Union([T.String(), T.Null()])),
  title: T.Optional(T.Union([T.String(), T.Null()])),
  description: T.Optional(T.Union([T.String(), T.Null()])),
  url: T.String(),
  publishedAt: T.Optional(T.Union([T.String(), T.Null()])),
  content: T.Optional(T.Union([T.String(), T.Null()])),
})

const NewsApiPage = T.Object({
  status: T.Literal('ok'),
  totalResults: T.Integer({ minimum: 0 }),
  articles: T.Array(T.Unknown()),
})

const NewsApiFailure = T.Object({
  status: T.Literal('error'),
  code: T.Optional(T.String()),
  message: T.Optional(T.String()),
})

export const NEWSAPI_PAGE_SIZE = 100

export interface NewsApiQuery {
  mode: 'backfill' | 'current-events'
  query?: string
  sources?: string
  language?: string
  country?: string
  from?: string
  to?: string
}

/** The request URL of one page. */
export function newsApiUrl(base: string, q: NewsApiQuery, page: number): string {
  const path = q.mode === 'backfill' ? '/v2/everything' : '/v2/top-headlines'
  const url = new URL(`${base.replace(/\/+$/, '')}${path}`)
  const params: Record<string, string | undefined> = {
    q: q.query,
    sources: q.sources,
    language: q.mode === 'backfill' ? q.language : undefined,
    country: q.mode === 'current-events' && !q.sources ? q.country : undefined,
    from: q.mode === 'backfill' ? q.from : undefined,
    to: q.mode === 'backfill' ? q.to : undefined,
    sortBy: q.mode === 'backfill' ? 'publishedAt' : undefined,
    pageSize: String(NEWSAPI_PAGE_SIZE),
    page: String(page),
  }
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v)
  return url.toString()
}

export interface NewsApiResult {
  totalResults: number
  articles: RawArticle[]
  /** Items of the page that did not have the documented shape. */
  rejected: { index: number; error: string }[]
}

/** Parse one page; throws with NewsAPI's own code and message when it answered an error. */
export function parseNewsApiPage(text: string, language?: string): NewsApiResult {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new Error('NewsAPI answer is not valid JSON')
  }
  if (Value.Check(NewsApiFailure, body))
    throw new Error(`NewsAPI error ${body.code ?? 'unknown'}: ${body.message ?? ''}`)
  if (!Value.Check(NewsApiPage, body))
    throw new Error('NewsAPI answer lacks status "ok", totalResults or articles')
  const articles: RawArticle[] = []
  const rejected: { index: number; error: string }[] = []
  body.articles.forEach((item, index) => {
    if (!Value.Check(NewsApiArticle, item)) {
      rejected.push({ index, error: 'article lacks a url or has fields of the wrong type' })
      return
    }
    articles.push({
      url: item.url,
      title: item.title,
      // `content` is cut by NewsAPI at 200 characters with "[+N chars]": the description is the better body.
      body: [item.description, item.content?.replace(/\s*\[\+\d+ chars\]$/, '')].filter(Boolean).join(' '),
      publishedAt: item.publishedAt,
      language,
      sourceName: item.source?.name,
      entities: [],
    })
  })
  return { totalResults: body.totalResults, articles, rejected }
}

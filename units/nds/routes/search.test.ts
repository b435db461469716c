import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateCorpus } from '../corpus.ts'
import { BUILTIN_MODEL, dot, EMBED_DIMS, embedText } from '../rules/embed.ts'
import { signature } from '../rules/minhash.ts'
import { normalizeArticle } from '../rules/normalize.ts'
import { contentHash, createStore } from '../store.ts'
import { bootNds, createKey, fixtureServer, sqlOf, waitForJob } from '../testing.ts'
import { POOL_SHARE } from '../vector-index.ts'

const fixtures = fixtureServer()
const unit = await bootNds()
let auth: Record<string, string>
const CORPUS = 3000

const search = async (path: string, body: unknown) => {
  const res = await unit.send('POST', path, body, auth)
  return { status: res.status, body: await res.json() }
}

beforeAll(async () => {
  unit.startWorker()
  ;({ auth } = await createKey(unit))
  const store = createStore(unit.ctx.storage, { model: BUILTIN_MODEL, dims: EMBED_DIMS })
  const prepared = generateCorpus(CORPUS).map((raw) => {
    const n = normalizeArticle(raw)
    if (!n.ok) throw new Error(n.error)
    const text = `${n.article.title}\n${n.article.body}`
    return {
      ...n.article,
      source: 'rss',
      contentHash: contentHash(n.article),
      minhash: signature(text),
      vector: embedText(text),
    }
  })
  for (let i = 0; i < prepared.length; i += 500) await store.applyArticles(prepared.slice(i, i + 500), null)
  // the unit's own store loaded its index at boot: restart to load the corpus vectors
  for (const url of ['rss/world.xml', 'rss/wire.atom', 'rss/latin1.xml']) {
    const job = await (
      await unit.send(
        'POST',
        '/v1/ingest/rss/backfill',
        { urls: [`${fixtures.url}/${url}`], from: '2026-10-01T00:00:00Z' },
        auth,
      )
    ).json()
    await waitForJob(unit, job.job_id, auth)
  }
}, 60_000)
afterAll(async () => {
  fixtures.stop()
  await unit.dispose()
})

describe('filter search', () => {
  test('words, phrases and prefixes, ranked by BM25', async () => {
    const words = await search('/v1/search/filter', { query: 'cranes Rotterdam strike' })
    expect(words.status).toBe(200)
    expect(words.body.ranking).toBe('bm25')
    expect(words.body.results[0].canonical_url).toMatch(/port-strike/)
    expect(words.body.results[0].snippet).toContain('[')
    const phrase = await search('/v1/search/filter', { query: '"research campus near Dresden"' })
    expect(phrase.body.results.map((r: { canonical_url: string }) => r.canonical_url)).toEqual([
      'https://wire.example/stories/chip-campus-dresden',
    ])
    const notPhrase = await search('/v1/search/filter', { query: '"campus research Dresden"' })
    expect(notPhrase.body.results).toEqual([])
    const prefix = await search('/v1/search/filter', { query: 'glaciolog*' })
    expect(prefix.body.results[0].canonical_url).toMatch(/glacier-survey/)
    const folded = await search('/v1/search/filter', { query: 'fete escalade' })
    expect(folded.body.results[0].canonical_url).toBe('https://geneve.example/escalade')
  })

  test('FTS5 syntax in the query is text, never an error', async () => {
    for (const query of ['AND OR NOT', '(unbalanced', '"', '*', 'NEAR(a b)', 'title:x', '^', '-', '💥']) {
      expect((await search('/v1/search/filter', { query })).status).toBe(200)
    }
  })

  test('filters: source, language, dates, entity, cluster representatives only', async () => {
    const fr = await search('/v1/search/filter', { filters: { languages: ['fr'] }, limit: 100 })
    expect(fr.body.results.every((r: { language: string }) => r.language === 'fr')).toBe(true)
    const names = await search('/v1/search/filter', {
      query: 'strike',
      filters: { source_names: ['Example Wire Service'] },
    })
    expect(names.body.results.map((r: { source_name: string }) => r.source_name)).toEqual([
      'Example Wire Service',
    ])
    const dated = await search('/v1/search/filter', {
      filters: { published_from: '2026-11-01T00:00:00Z', published_to: '2026-11-01T23:59:59Z' },
    })
    expect(dated.body.results.length).toBeGreaterThan(0)
    for (const r of dated.body.results) expect(r.published_at.startsWith('2026-11-01')).toBe(true)
    const entity = await search('/v1/search/filter', { filters: { entity: 'labour' } })
    expect(entity.body.results.length).toBe(2)
    const reps = await search('/v1/search/filter', {
      query: 'cranes idle',
      filters: { representative_only: true },
    })
    expect(reps.body.results.length).toBe(1)
    const all = await search('/v1/search/filter', { query: 'cranes idle' })
    expect(all.body.results.length).toBe(2)
  })

  test('cursor pagination: pages join to the whole ordered list without repeats; a foreign cursor is 400', async () => {
    for (const query of ['port OR strike', undefined]) {
      const seen: string[] = []
      let cursor: string | undefined
      const full = await search('/v1/search/filter', { query: query ?? 'Rotterdam', limit: 100 })
      const expected = full.body.results.map((r: { article_id: string }) => r.article_id).slice(0, 60)
      do {
        const page = await search('/v1/search/filter', { query: query ?? 'Rotterdam', limit: 7, cursor })
        seen.push(...page.body.results.map((r: { article_id: string }) => r.article_id))
        cursor = page.body.next_cursor ?? undefined
      } while (cursor && seen.length < 60)
      expect(seen.slice(0, 60)).toEqual(expected)
      expect(new Set(seen).size).toBe(seen.length)
    }
    const first = await search('/v1/search/filter', { limit: 5 })
    const next = await search('/v1/search/filter', { limit: 5, cursor: first.body.next_cursor })
    expect(next.body.results[0].article_id).not.toBe(first.body.results[0].article_id)
    const foreign = await search('/v1/search/filter', { query: 'other', cursor: first.body.next_cursor })
    expect(foreign.status).toBe(400)
    expect(foreign.body.error.code).toBe('invalid_cursor')
    expect((await search('/v1/search/filter', { cursor: 'garbage!!' })).status).toBe(400)
  })
})

describe('semantic search', () => {
  test('finds the article by meaning-bearing words, with filters and hybrid ranking', async () => {
    const res = await search('/v1/search/semantic', { query: 'dock workers walkout idle cranes', limit: 5 })
    expect(res.status).toBe(200)
    expect(res.body.results[0].canonical_url).toMatch(/port-strike/)
    expect(res.body.ranking).toContain('nds-hashing-v1')
    const filtered = await search('/v1/search/semantic', {
      query: 'dock workers walkout',
      filters: { languages: ['fr'] },
    })
    for (const r of filtered.body.results) expect(r.language).toBe('fr')
    const hybrid = await search('/v1/search/semantic', {
      query: 'hydrogen trains northern lines',
      hybrid: true,
      limit: 3,
    })
    expect(hybrid.body.ranking).toContain('rrf')
    expect(hybrid.body.results[0].canonical_url).toMatch(/hydrogen-trains/)
  })

  test('recall@10 of the index against exact search over the same vectors is at least 0.95', async () => {
    // restart so the unit's index holds the generated corpus written beside it
    const fresh = await unit.restart()
    try {
      const rows = await sqlOf(fresh).all<{ seq: number; vector: Uint8Array }>(
        'SELECT seq, vector FROM article_vectors',
      )
      const vectors = rows.map((r) => ({
        seq: r.seq,
        v: new Float32Array(
          r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength),
        ),
      }))
      expect(vectors.length).toBeGreaterThanOrEqual(CORPUS)
      // 4% of the corpus reaches the int8 stage, the share the default pool gives at 100 000 articles
      const store = createStore(fresh.ctx.storage, {
        model: BUILTIN_MODEL,
        dims: EMBED_DIMS,
        minPool: Math.ceil(CORPUS / POOL_SHARE),
      })
      await store.loadVectors()
      const queries = generateCorpus(40, 99).map(
        (a) => `${a.title} ${String(a.body).split(' ').slice(0, 8).join(' ')}`,
      )
      let hits = 0
      for (const q of queries) {
        const qv = embedText(q)
        const exact = vectors
          .map((x) => ({ seq: x.seq, s: dot(x.v, qv) }))
          .sort((a, b) => b.s - a.s || a.seq - b.seq)
          .slice(0, 10)
          .map((x) => x.seq)
        const got = (await store.semanticCandidates(qv, 10)).map((c) => c.seq)
        hits += got.filter((s) => exact.includes(s)).length
      }
      expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95)
    } finally {
      await fresh.close()
    }
  })
})

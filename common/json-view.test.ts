import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import type { Json } from '../test/harness.ts'
import { AppError } from './errors.ts'
import { CACHED_VIEW, jsonView, timedView } from './json-view.ts'
import { openApiDocument } from './openapi.ts'

const GET = (headers: Record<string, string> = {}) => ({
  request: new Request('http://localhost/v', { headers }),
  set: {},
})

describe('jsonView', () => {
  test('serializes a view once per derivation and serves the same text', async () => {
    let view = { a: 'x' }
    let reads = 0
    const serve = jsonView(t.Object({ a: t.String() }), () => {
      reads++
      return view
    })
    expect(await serve(GET()).json()).toEqual({ a: 'x' })
    view.a = 'mutated after serialization'
    expect(await serve(GET()).json()).toEqual({ a: 'x' })
    view = { a: 'new derivation' }
    expect(await serve(GET()).json()).toEqual({ a: 'new derivation' })
    expect(reads).toBe(3)
    expect(serve(GET()).headers.get('content-type')).toBe('application/json; charset=utf-8')
  })

  test('a view that breaks its response schema is a 500, never served', () => {
    const serve = jsonView(t.Object({ a: t.String() }), () => ({ a: 1 }))
    expect(() => serve(GET())).toThrow(AppError)
    try {
      serve(GET())
    } catch (err) {
      expect((err as AppError).status).toBe(500)
    }
  })

  test('a strong ETag per serialization; If-None-Match naming it is a 304 without a body', async () => {
    let view = { a: 'x' }
    const serve = jsonView(t.Object({ a: t.String() }), () => view)
    const first = serve(GET())
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/)
    expect(first.headers.get('cache-control')).toBe('no-cache')
    expect(serve(GET()).headers.get('etag')).toBe(etag)
    const revalidated = serve(GET({ 'if-none-match': etag }))
    expect(revalidated.status).toBe(304)
    expect(await revalidated.text()).toBe('')
    expect(revalidated.headers.get('etag')).toBe(etag)
    // Several tags, weak form, wildcard: each names it (weak comparison, RFC 9110).
    expect(serve(GET({ 'if-none-match': `"other", W/${etag}` })).status).toBe(304)
    expect(serve(GET({ 'if-none-match': '*' })).status).toBe(304)
    expect(serve(GET({ 'if-none-match': '"other"' })).status).toBe(200)
    // A new derivation is new bytes, a new tag: the old one no longer matches.
    view = { a: 'y' }
    const changed = serve(GET({ 'if-none-match': etag }))
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(await changed.json()).toEqual({ a: 'y' })
  })
})

describe('cached views in the OpenAPI document', () => {
  test('list If-None-Match, the ETag header and the 304; other routes do not', async () => {
    const View = t.Object({ a: t.String() })
    const app = new Elysia()
      .get(
        '/view',
        jsonView(View, () => ({ a: 'x' })),
        { response: { 200: View } },
      )
      .get('/variant', () => ({ a: 'y' }), {
        response: { 200: View },
        detail: { summary: 'v', ...CACHED_VIEW },
      })
      .get('/plain', () => ({ a: 'z' }), { response: { 200: View } })
    const doc = await openApiDocument(app, { title: 't', version: '1', description: 'd', formRoutes: [] }, [])
    const paths = doc.paths as Record<string, { get: Json }>
    for (const path of ['/view', '/variant']) {
      const op = paths[path]?.get ?? {}
      expect(Object.keys(op.responses)).toContain('304')
      expect(op.responses['200'].headers.ETag.schema).toEqual({ type: 'string' })
      expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }))
      expect(op['x-svc-cached-view']).toBeUndefined()
    }
    expect(Object.keys(paths['/plain']?.get.responses ?? {})).not.toContain('304')
  })
})

describe('timedView', () => {
  test('one document per time string (and variant), each built for its own time', async () => {
    let clock = '2026-11-24T02:00:00.000Z'
    let builds = 0
    const serve = timedView(
      t.Object({ at: t.String(), path: t.String() }),
      (now, { request }) => {
        builds++
        return { at: now, path: new URL(request.url).pathname }
      },
      { now: () => clock, variant: ({ request }) => new URL(request.url).pathname },
    )
    const at = (path: string) => serve({ request: new Request(`http://localhost${path}`), set: {} })
    expect(await at('/a').json()).toEqual({ at: clock, path: '/a' })
    expect(await at('/a').json()).toEqual({ at: clock, path: '/a' })
    expect(builds).toBe(1)
    expect(await at('/b').json()).toEqual({ at: clock, path: '/b' })
    clock = '2026-11-24T02:00:00.001Z'
    expect(await at('/b').json()).toEqual({ at: clock, path: '/b' })
    expect(builds).toBe(3)
    const broken = timedView(t.Object({ at: t.Number() }), (now) => ({ at: now }))
    expect(() => broken({ request: new Request('http://localhost/'), set: {} })).toThrow(AppError)
  })
})

import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'

// Elysia cleans bodies with exact-mirror before validating them; patches/exact-mirror+0.2.7.patch
// makes the cleaner leave a value of the wrong shape alone so validation refuses it.
const app = new Elysia()
  .post('/record', ({ body }) => body, { body: t.Object({ map: t.Record(t.String(), t.String()) }) })
  .post('/object', ({ body }) => body, {
    body: t.Object({
      inner: t.Object({ a: t.Optional(t.String()) }),
      list: t.Optional(t.Array(t.Object({}))),
    }),
  })
  .post('/array', ({ body }) => body, { body: t.Array(t.Object({ b: t.Optional(t.String()) })) })
  .post('/root', ({ body }) => body, { body: t.Object({ a: t.Optional(t.String()) }) })

const post = (path: string, body: unknown) =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )

describe('body normalization', () => {
  test('a string or array where a record is declared is refused, not copied by index', async () => {
    for (const map of ['ab', '𐀀', ['a']]) expect((await post('/record', { map })).status).toBe(422)
    const ok = await post('/record', { map: { k: 'v' } })
    expect(await ok.json()).toEqual({ map: { k: 'v' } })
  })

  test('a string where an object or array is declared is refused', async () => {
    expect((await post('/object', { inner: 'ab' })).status).toBe(422)
    expect((await post('/object', { inner: {}, list: 'ab' })).status).toBe(422)
    expect((await post('/array', 'ab')).status).toBe(422)
    expect((await post('/array', { b: 'x' })).status).toBe(422)
    expect((await post('/root', 'ab')).status).toBe(422)
    expect((await post('/root', [])).status).toBe(422)
  })

  test('unknown properties of well-shaped values are still removed', async () => {
    const res = await post('/array', [{ b: 'q', extra: 1 }])
    expect(await res.json()).toEqual([{ b: 'q' }])
    const nested = await post('/object', { inner: { a: 'x', z: 1 }, list: [{ y: 2 }] })
    expect(await nested.json()).toEqual({ inner: { a: 'x' }, list: [{}] })
  })
})

import { describe, expect, test } from 'bun:test'
import { t } from 'elysia'
import { AppError } from '../../../common/errors.ts'
import { jsonView } from './json.ts'

describe('jsonView', () => {
  test('serializes a view once per derivation and serves the same text', async () => {
    let view = { a: 'x' }
    let reads = 0
    const serve = jsonView(t.Object({ a: t.String() }), () => {
      reads++
      return view
    })
    expect(await serve().json()).toEqual({ a: 'x' })
    view.a = 'mutated after serialization'
    expect(await serve().json()).toEqual({ a: 'x' })
    view = { a: 'new derivation' }
    expect(await serve().json()).toEqual({ a: 'new derivation' })
    expect(reads).toBe(3)
    expect(serve().headers.get('content-type')).toBe('application/json; charset=utf-8')
  })

  test('a view that breaks its response schema is a 500, never served', () => {
    const serve = jsonView(t.Object({ a: t.String() }), () => ({ a: 1 }))
    expect(() => serve()).toThrow(AppError)
    try {
      serve()
    } catch (err) {
      expect((err as AppError).status).toBe(500)
    }
  })
})

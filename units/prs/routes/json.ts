import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { AppError } from '../../../common/errors.ts'

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' }
const texts = new WeakMap<object, string>()

/**
 * Serve a cached view as JSON text that is checked against its response schema and serialized
 * once per derivation (the view getter returns the same object until the cache is invalidated),
 * so a read costs a lookup, not a validation and a stringify.
 */
export function jsonView<S extends TSchema>(schema: S, get: () => object) {
  const check = TypeCompiler.Compile(schema)
  return (): Response => {
    const view = get()
    let text = texts.get(view)
    if (text === undefined) {
      if (!check.Check(view)) {
        const first = check.Errors(view).First()
        throw new AppError(500, 'internal_error', 'The service produced an invalid response.', {
          path: first?.path,
        })
      }
      text = JSON.stringify(view)
      texts.set(view, text)
    }
    return new Response(text, { headers: JSON_TYPE })
  }
}

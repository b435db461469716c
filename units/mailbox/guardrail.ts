/**
 * The publish route's payload guardrail (spec, Limits): the raw request body is measured before
 * anything parses it, chunked bodies included (bytes are counted as the stream is read, and
 * reading stops at the first byte over the limit), and a larger body gets 413 with the text body
 * `payload too large` (CONTRACTS.md §3): the unit's `payloadTooLarge` replaces the envelope for
 * every 413, the shared body limit's (`SVC_MAX_BODY_BYTES`) included.
 */
import { Elysia } from 'elysia'
import { AppError } from '../../common/errors.ts'

export const PAYLOAD_TOO_LARGE_TEXT = 'payload too large'
export const DEFAULT_MAX_PAYLOAD_BYTES = 131_072

const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`)

/** Bytes of `body`, reading no further than `limit + 1`; undefined when it is larger than `limit`. */
export async function measureWithin(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<number | undefined> {
  if (!body) return 0
  const reader = body.getReader()
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return size
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      return undefined
    }
  }
}

/**
 * Guard `POST path`: take the declared length, or measure a body without one (chunked) on a
 * clone, so the JSON parse still reads the original; remember the size for the route. The 413 is answered as text by the unit's `payloadTooLarge`.
 */
export function payloadGuardrail(path: string, limit: number) {
  const sizes = new WeakMap<Request, number>()
  const onPath = (request: Request) => request.method === 'POST' && new URL(request.url).pathname === path
  const plugin = new Elysia({ name: 'mailbox:guardrail', seed: `${path}:${limit}` }).onRequest(
    async ({ request }) => {
      if (!onPath(request)) return
      const length = request.headers.get('content-length')
      if (length !== null) {
        // A declared length is the body's size: the server reads no more and no less.
        const declared = Number(length)
        if (declared > limit) throw tooLarge(limit)
        sizes.set(request, declared)
        return
      }
      const size = await measureWithin(request.clone().body, limit)
      if (size === undefined) throw tooLarge(limit)
      sizes.set(request, size)
    },
  )
  return { plugin, sizeOf: (request: Request) => sizes.get(request) ?? 0 }
}

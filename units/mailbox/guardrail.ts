/**
 * The publish route's payload guardrail (spec, Limits): the raw request body is measured before
 * anything parses it, chunked bodies included (bytes are counted as the stream is read, and
 * reading stops at the first byte over the limit), and a larger body gets 413 with the text body
 * `payload too large` (CONTRACTS.md §3): the unit's `payloadTooLarge` replaces the envelope for
 * every 413, the shared body limit's (`SVC_MAX_BODY_BYTES`) included.
 *
 * It is the publish route's own parse hook, marked as reading the raw body, so the wire plugin
 * checks the content type and leaves the body to it: no other request runs it or waits for it
 * (a request hook would make every request of the unit await, `/healthz` included).
 */
import { AppError } from '../../common/errors.ts'
import { rawParser } from '../../common/signature.ts'
import { parseJsonText } from '../../common/wire.ts'

export const PAYLOAD_TOO_LARGE_TEXT = 'payload too large'
export const DEFAULT_MAX_PAYLOAD_BYTES = 131_072

const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`)

const decoder = new TextDecoder()

/** The bytes of `body`, reading no further than `limit + 1`; undefined when it is larger than `limit`. */
export async function readWithin(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array()
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks)
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
}

/**
 * Guard a JSON route: refuse a declared length over `limit` before reading, else read the body
 * counting its bytes (a chunked body has no length), then parse it with the wire's JSON checks.
 * `parse` goes in the route's options; `sizeOf(request)` is the body's size in the handler.
 */
export function payloadGuardrail(limit: number) {
  const sizes = new WeakMap<Request, number>()
  const parse = rawParser(async ({ request }: { request: Request }) => {
    const length = request.headers.get('content-length')
    if (length !== null && Number(length) > limit) throw tooLarge(limit)
    const bytes = await readWithin(request.body, limit)
    if (bytes === undefined) throw tooLarge(limit)
    sizes.set(request, bytes.byteLength)
    return parseJsonText(decoder.decode(bytes))
  })
  return { parse, sizeOf: (request: Request) => sizes.get(request) ?? 0 }
}

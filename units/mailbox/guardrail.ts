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
import { rawParser } from '../../common/signature.ts'
import { parseJsonText, payloadTooLarge, readBoundedBytes } from '../../common/wire.ts'

export const PAYLOAD_TOO_LARGE_TEXT = 'payload too large'
export const DEFAULT_MAX_PAYLOAD_BYTES = 131_072

const decoder = new TextDecoder()

/**
 * Guard a JSON route: refuse a declared length over `limit` before reading, else read the body
 * counting its bytes (a chunked body has no length), then parse it with the wire's JSON checks.
 * `parse` goes in the route's options; `sizeOf(request)` is the body's size in the handler.
 */
export function payloadGuardrail(limit: number) {
  const sizes = new WeakMap<Request, number>()
  const parse = rawParser(async ({ request }: { request: Request }) => {
    const length = request.headers.get('content-length')
    if (length !== null && Number(length) > limit) throw payloadTooLarge(limit)
    const bytes = await readBoundedBytes(request, limit)
    sizes.set(request, bytes.byteLength)
    return parseJsonText(decoder.decode(bytes))
  })
  return { parse, sizeOf: (request: Request) => sizes.get(request) ?? 0 }
}

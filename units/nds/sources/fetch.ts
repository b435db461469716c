/**
 * Fetching a source document: bounded in time and size, never following redirects off http(s),
 * and decoded with the charset the document declares (header, XML declaration or HTML meta),
 * so a Latin-1 feed reads as Latin-1 rather than as broken UTF-8.
 */

export const USER_AGENT = 'svc-nds/1 (news data service; +https://example.invalid/nds)'

export interface Fetched {
  url: string
  status: number
  contentType: string
  bytes: Uint8Array
}

export interface FetchLimits {
  timeoutMs: number
  maxBytes: number
}

export class SourceError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SourceError'
  }
}

/** GET a URL; throws SourceError on a network failure, a timeout, a non-2xx or an oversize body. */
export async function fetchDocument(
  url: string,
  limits: FetchLimits,
  headers: Record<string, string> = {},
  acceptStatus: number[] = [],
): Promise<Fetched> {
  let res: Response
  try {
    res = await fetch(url, {
      headers: { 'user-agent': USER_AGENT, ...headers },
      signal: AbortSignal.timeout(limits.timeoutMs),
      redirect: 'follow',
    })
  } catch (err) {
    const name = (err as Error).name
    throw new SourceError(
      name === 'TimeoutError' || name === 'AbortError'
        ? `no answer within ${limits.timeoutMs} ms`
        : `connection failed: ${(err as Error).message}`,
    )
  }
  if (!res.ok && !acceptStatus.includes(res.status)) {
    await res.body?.cancel().catch(() => undefined)
    throw new SourceError(`answered HTTP ${res.status}`)
  }
  const bytes = await readLimited(res, limits.maxBytes)
  return {
    url: res.url || url,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    bytes,
  }
}

async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? 0)
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined)
    throw new SourceError(`document of ${declared} bytes exceeds the limit of ${maxBytes}`)
  }
  if (!res.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = res.body.getReader()
  for (;;) {
    let part: Awaited<ReturnType<typeof reader.read>>
    try {
      part = await reader.read()
    } catch (err) {
      throw new SourceError(`transfer broke off: ${(err as Error).message}`)
    }
    if (part.done) break
    total += part.value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new SourceError(`document exceeds the limit of ${maxBytes} bytes`)
    }
    chunks.push(part.value)
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

const HEADER_CHARSET = /charset\s*=\s*["']?([\w.:-]+)/i
const XML_DECL_CHARSET = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i
const HTML_META_CHARSET = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i

/** The document's text in the charset it declares; UTF-8 (with replacement characters) otherwise. */
export function decodeText(bytes: Uint8Array, contentType = ''): string {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024))
  const label =
    HEADER_CHARSET.exec(contentType)?.[1] ??
    XML_DECL_CHARSET.exec(head)?.[1] ??
    HTML_META_CHARSET.exec(head)?.[1]
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder((label ?? 'utf-8') as ConstructorParameters<typeof TextDecoder>[0])
  } catch {
    decoder = new TextDecoder('utf-8')
  }
  return decoder.decode(bytes)
}

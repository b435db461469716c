import { timingSafeEqual } from 'node:crypto'
import canonicalize from 'canonicalize'

/** RFC 8785 canonical JSON text of a value (docs/conventions.md §2). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError('value has no canonical JSON form')
  return text
}

/** Lowercase hex SHA-256 (`Bun.SHA256.hash`: half the cost of a `CryptoHasher` per call, measured). */
export function sha256Hex(data: string | Uint8Array): string {
  return Bun.SHA256.hash(data, 'hex')
}

/** Lowercase hex SHA-256 of the canonical JSON: what every named hash in the suite is. */
export const canonicalHash = (value: unknown): string => sha256Hex(canonicalJson(value))

export function hmacSha256Hex(secret: string, data: string | Uint8Array): string {
  return new Bun.CryptoHasher('sha256', secret).update(data).digest('hex')
}

/** Constant-time comparison of two strings (lengths leak, contents do not). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  if (ab.length !== bb.length) return false
  return timingSafeEqual(ab, bb)
}

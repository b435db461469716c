/**
 * SimHash (Charikar) over word 3-shingles: near-identical texts get fingerprints a few bits
 * apart. Four 16-bit bands make the candidate search indexable: two fingerprints within
 * MAX_DUPLICATE_DISTANCE (< 4) bits agree exactly on at least one band (pigeonhole).
 */
import { createHash } from 'node:crypto'

export const SHINGLE_WORDS = 3
export const MAX_DUPLICATE_DISTANCE = 3
const MAX_WORDS = 5_000

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
}

function hash64(text: string): bigint {
  return createHash('sha256').update(text).digest().readBigUInt64BE(0)
}

/** The 64-bit fingerprint of a text. */
export function simhash(text: string): bigint {
  const tokens = words(text).slice(0, MAX_WORDS)
  const counts = new Int32Array(64)
  const shingles = tokens.length < SHINGLE_WORDS ? [tokens.join(' ')] : []
  for (let i = 0; i + SHINGLE_WORDS <= tokens.length; i++)
    shingles.push(tokens.slice(i, i + SHINGLE_WORDS).join(' '))
  for (const shingle of shingles) {
    const h = hash64(shingle)
    for (let bit = 0; bit < 64; bit++) counts[bit] = (counts[bit] ?? 0) + ((h >> BigInt(bit)) & 1n ? 1 : -1)
  }
  let out = 0n
  for (let bit = 0; bit < 64; bit++) if ((counts[bit] ?? 0) > 0) out |= 1n << BigInt(bit)
  return out
}

export const toHex = (h: bigint) => h.toString(16).padStart(16, '0')
export const fromHex = (hex: string) => BigInt(`0x${hex}`)

/** The four 16-bit bands, low to high. */
export function bands(h: bigint): [number, number, number, number] {
  return [0, 1, 2, 3].map((i) => Number((h >> BigInt(16 * i)) & 0xffffn)) as [number, number, number, number]
}

export function hamming(a: bigint, b: bigint): number {
  let x = a ^ b
  let n = 0
  while (x) {
    x &= x - 1n
    n++
  }
  return n
}

/** Similarity in [0, 1]: the share of fingerprint bits two texts agree on. */
export const similarity = (distance: number) => Math.round((1 - distance / 64) * 10_000) / 10_000

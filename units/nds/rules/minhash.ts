/**
 * Near-duplicate detection: MinHash over word 3-shingles with LSH banding.
 * The signature estimates the Jaccard similarity of two texts' shingle sets (the share of equal
 * minimums); BANDS bands of ROWS rows each make candidates findable by an index lookup: two texts
 * of Jaccard similarity s share at least one band with probability 1 - (1 - s^ROWS)^BANDS
 * (0.93 at s = 0.5, 0.9998 at s = 0.7). Candidates are kept when the estimate reaches
 * DUPLICATE_THRESHOLD. SimHash was tried first: a rewritten headline alone moved a 64-bit
 * fingerprint 5 bits, past any threshold its banding can index.
 */

export const SHINGLE_WORDS = 3
export const BANDS = 20
export const ROWS = 3
export const PERMUTATIONS = BANDS * ROWS
export const DUPLICATE_THRESHOLD = 0.5
const MAX_WORDS = 5_000

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
}

/** FNV-1a, 32-bit. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** Fixed odd multipliers and offsets: h_i(x) = a_i·x + b_i (mod 2^32), a universal-enough family. */
const A = Array.from({ length: PERMUTATIONS }, (_, i) => (fnv1a(`a${i}`) | 1) >>> 0)
const B = Array.from({ length: PERMUTATIONS }, (_, i) => fnv1a(`b${i}`))

/** The 32-bit hashes of a text's word 3-shingles, from per-word hashes (no shingle strings built). */
export function shingleHashes(text: string): Set<number> {
  const hashes = words(text)
    .slice(0, MAX_WORDS)
    .map((w) => fnv1a(w))
  const out = new Set<number>()
  if (hashes.length < SHINGLE_WORDS) {
    if (hashes.length > 0) out.add(hashes.reduce((h, w) => Math.imul(h ^ w, 0x01000193) >>> 0, 0x811c9dc5))
    return out
  }
  for (let i = 0; i + SHINGLE_WORDS <= hashes.length; i++) {
    let h = 0x811c9dc5
    for (let j = 0; j < SHINGLE_WORDS; j++) h = Math.imul(h ^ (hashes[i + j] as number), 0x01000193) >>> 0
    out.add(h)
  }
  return out
}

export function signature(text: string): Uint32Array {
  const sig = new Uint32Array(PERMUTATIONS).fill(0xffffffff)
  for (const x of shingleHashes(text)) {
    for (let i = 0; i < PERMUTATIONS; i++) {
      const h = (Math.imul(A[i] as number, x) + (B[i] as number)) >>> 0
      if (h < (sig[i] as number)) sig[i] = h
    }
  }
  return sig
}

/** One integer key per band (band index mixed in), for the band index table. */
export function bandKeys(sig: Uint32Array): number[] {
  const keys: number[] = []
  for (let b = 0; b < BANDS; b++) {
    let h = fnv1a(`band${b}`)
    for (let r = 0; r < ROWS; r++) {
      h ^= sig[b * ROWS + r] as number
      h = Math.imul(h, 0x01000193) >>> 0
    }
    // 53 bits fit a SQLite integer and a JS number exactly: band index in the high bits.
    keys.push(b * 2 ** 32 + h)
  }
  return keys
}

/** Estimated Jaccard similarity, rounded to 4 places. */
export function similarity(a: Uint32Array, b: Uint32Array): number {
  let same = 0
  for (let i = 0; i < PERMUTATIONS; i++) if (a[i] === b[i]) same++
  return Math.round((same / PERMUTATIONS) * 10_000) / 10_000
}

export const toBytes = (sig: Uint32Array) => Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength)
export const fromBytes = (b: Uint8Array) =>
  new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))

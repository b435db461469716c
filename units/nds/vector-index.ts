/**
 * The in-memory side of the vector index, in two stages:
 *   1. a binary code per article (rules/binary-code.ts) scanned by Hamming distance picks
 *      `candidatePool` candidates;
 *   2. an int8 copy of each vector (per-vector scale) re-scores those candidates by dot product.
 * The caller re-scores the few best exactly with the float vectors kept in SQLite
 * (store.ts `exactVectors`). Measured choice (docs/units/nds.md): binary alone reached recall@10
 * 0.93 with 400 candidates; binary then int8 over 1 000+ candidates reaches 0.99.
 * Memory per article: bits/8 + dims bytes (64 + 384 B at the built-in 384 dimensions).
 */
import { type Coder, createCoder, popcount32 } from './rules/binary-code.ts'

const INITIAL_CAPACITY = 1024
/** Candidates the binary stage hands on: the larger of MIN_POOL and 1/POOL_SHARE of the index. */
export const MIN_POOL = 1_000
export const POOL_SHARE = 25
const MAX_POOL = 8_000

export interface Scored {
  seq: number
  score: number
}

export interface VectorIndex {
  dims: number
  size(): number
  /** Add or replace the vector of an article (unit length expected). */
  put(seq: number, vector: Float32Array): void
  /** The `limit` best by approximate dot product, optionally only those `allowed` admits. */
  nearest(query: Float32Array, limit: number, allowed?: (seq: number) => boolean): Scored[]
}

export function createVectorIndex(dims: number, minPool = MIN_POOL): VectorIndex {
  const coder: Coder = createCoder(dims)
  const w = coder.words
  let capacity = INITIAL_CAPACITY
  let codes = new Uint32Array(capacity * w)
  let q8 = new Int8Array(capacity * dims)
  let scales = new Float32Array(capacity)
  let seqs = new Int32Array(capacity)
  let count = 0
  const slots = new Map<number, number>()

  const grow = () => {
    capacity *= 2
    const c = new Uint32Array(capacity * w)
    c.set(codes)
    codes = c
    const q = new Int8Array(capacity * dims)
    q.set(q8)
    q8 = q
    const s = new Float32Array(capacity)
    s.set(scales)
    scales = s
    const n = new Int32Array(capacity)
    n.set(seqs)
    seqs = n
  }

  const quantize = (vector: Float32Array, slot: number) => {
    let max = 0
    for (const x of vector) max = Math.max(max, Math.abs(x))
    const scale = max > 0 ? max / 127 : 1
    scales[slot] = scale
    const base = slot * dims
    for (let i = 0; i < dims; i++) q8[base + i] = Math.round((vector[i] ?? 0) / scale)
  }

  const candidates = (code: Uint32Array, pool: number, allowed?: (seq: number) => boolean): number[] => {
    const distances = new Uint16Array(count)
    const histogram = new Uint32Array(coder.bits + 2)
    const skip = coder.bits + 1
    for (let i = 0; i < count; i++) {
      if (allowed && !allowed(seqs[i] as number)) {
        distances[i] = skip
        continue
      }
      let d = 0
      const base = i * w
      for (let j = 0; j < w; j++) d += popcount32(((codes[base + j] as number) ^ (code[j] as number)) >>> 0)
      distances[i] = d
      histogram[d] = (histogram[d] as number) + 1
    }
    // Counting selection: the smallest distance threshold that admits `pool` candidates.
    let threshold = 0
    let taken = 0
    while (threshold <= coder.bits && taken + (histogram[threshold] as number) < pool) {
      taken += histogram[threshold] as number
      threshold++
    }
    const slotsOut: number[] = []
    for (let i = 0; i < count; i++) {
      const d = distances[i] as number
      if (d <= threshold && d !== skip) slotsOut.push(i)
    }
    return slotsOut
  }

  return {
    dims,
    size: () => count,
    put(seq, vector) {
      let slot = slots.get(seq)
      if (slot === undefined) {
        if (count === capacity) grow()
        slot = count++
        slots.set(seq, slot)
        seqs[slot] = seq
      }
      codes.set(coder.encode(vector), slot * w)
      quantize(vector, slot)
    },
    nearest(query, limit, allowed) {
      if (count === 0 || limit <= 0) return []
      const pool = Math.min(MAX_POOL, Math.max(minPool, Math.ceil(count / POOL_SHARE), limit))
      const picked = candidates(coder.encode(query), pool, allowed)
      const scored: Scored[] = []
      for (const slot of picked) {
        const base = slot * dims
        let s = 0
        for (let i = 0; i < dims; i++) s += (q8[base + i] as number) * (query[i] as number)
        scored.push({ seq: seqs[slot] as number, score: s * (scales[slot] as number) })
      }
      scored.sort((a, b) => b.score - a.score || a.seq - b.seq)
      return scored.slice(0, limit)
    },
  }
}

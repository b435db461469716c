/**
 * Binary codes for the vector index: a fixed randomized Hadamard rotation (random signs, then
 * the fast Walsh-Hadamard transform, twice) spreads every vector's energy over all coordinates,
 * and the sign of each rotated coordinate is one bit. The Hamming distance of two codes then
 * estimates the angle between the vectors (sign random projection), at 1 bit per dimension:
 * 100 000 vectors scan in a few milliseconds, and the best candidates are re-scored exactly.
 */

const ROUNDS = 2

function nextPow2(n: number): number {
  let p = 1
  while (p < n) p <<= 1
  return p
}

/** Deterministic ±1 signs (xorshift32 from a fixed seed), so codes are the same on every run. */
function signs(length: number, seed: number): Int8Array {
  const out = new Int8Array(length)
  let x = seed >>> 0 || 1
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    out[i] = x & 1 ? 1 : -1
  }
  return out
}

function fwht(v: Float64Array) {
  for (let h = 1; h < v.length; h <<= 1) {
    for (let i = 0; i < v.length; i += h << 1) {
      for (let j = i; j < i + h; j++) {
        const a = v[j] as number
        const b = v[j + h] as number
        v[j] = a + b
        v[j + h] = a - b
      }
    }
  }
}

export interface Coder {
  /** Bits per code (the rotated dimension, a power of two). */
  bits: number
  /** 32-bit words per code. */
  words: number
  encode(vector: Float32Array): Uint32Array
}

export function createCoder(dims: number): Coder {
  const bits = Math.max(32, nextPow2(dims))
  const wordsPerCode = bits / 32
  const rounds = Array.from({ length: ROUNDS }, (_, r) => signs(bits, 0x9e3779b9 + r * 7919))
  return {
    bits,
    words: wordsPerCode,
    encode(vector) {
      const v = new Float64Array(bits)
      for (let i = 0; i < vector.length && i < bits; i++) v[i] = vector[i] as number
      for (const s of rounds) {
        for (let i = 0; i < bits; i++) v[i] = (v[i] as number) * (s[i] as number)
        fwht(v)
      }
      const code = new Uint32Array(wordsPerCode)
      for (let i = 0; i < bits; i++)
        if ((v[i] as number) > 0) code[i >>> 5] = (code[i >>> 5] as number) | (1 << (i & 31))
      return code
    },
  }
}

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

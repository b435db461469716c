/**
 * The built-in embedder: feature hashing (the "hashing trick") of word unigrams, word bigrams and
 * character 4-grams into EMBED_DIMS signed buckets, sublinear term frequency, L2-normalized.
 *
 * What it captures, honestly: lexical overlap. Texts that share words, word pairs and word
 * fragments (inflections, compounds, misspellings through the character n-grams) land close;
 * synonyms and paraphrases with no shared surface form do not. It needs no model download and
 * gives the same vector for the same text on every machine. With NDS_EMBEDDING_URL set, an
 * OpenAI-compatible embedding runtime replaces it.
 */
import { words } from './minhash.ts'

export const EMBED_DIMS = 384
export const BUILTIN_MODEL = 'nds-hashing-v1'
const CHAR_GRAM = 4
const MAX_TOKENS = 2_000
const CHAR_WEIGHT = 0.5
const BIGRAM_WEIGHT = 0.7

/** FNV-1a, 32-bit, continued from `h` over `text[from..to)`: fast, stable across runs. */
function fnv1a(h: number, text: string, from = 0, to = text.length): number {
  for (let i = from; i < to; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h
}
const FNV_OFFSET = 0x811c9dc5
/** Features are hashed as `w:<word>`, `b:<previous> <word>` and `c:<4 characters of <word>>`. */
const WORD = fnv1a(FNV_OFFSET, 'w:')
const BIGRAM = fnv1a(FNV_OFFSET, 'b:')
const CHARS = fnv1a(FNV_OFFSET, 'c:')
const SPACE = 0x20

/**
 * Weighted counts per feature, keyed by the feature's hash (no feature strings are built; two
 * features whose 32-bit hashes collide would share one count, as they share a bucket anyway).
 */
function add(counts: Map<number, number>, hash: number, weight: number) {
  const h = hash >>> 0
  counts.set(h, (counts.get(h) ?? 0) + weight)
}

export function embedText(text: string): Float32Array {
  const tokens = words(text).slice(0, MAX_TOKENS)
  const features = new Map<number, number>()
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i] as string
    add(features, fnv1a(WORD, w), 1)
    if (i > 0) {
      const previous = fnv1a(BIGRAM, tokens[i - 1] as string)
      add(features, fnv1a(Math.imul(previous ^ SPACE, 0x01000193), w), BIGRAM_WEIGHT)
    }
    const padded = `<${w}>`
    for (let j = 0; j + CHAR_GRAM <= padded.length; j++)
      add(features, fnv1a(CHARS, padded, j, j + CHAR_GRAM), CHAR_WEIGHT)
  }
  const vector = new Float32Array(EMBED_DIMS)
  for (const [h, count] of features) {
    const sign = h & 0x80000000 ? -1 : 1
    const index = h % EMBED_DIMS
    vector[index] = (vector[index] ?? 0) + sign * (1 + Math.log(count))
  }
  return normalize(vector)
}

export function normalize(vector: Float32Array): Float32Array {
  let sum = 0
  for (const x of vector) sum += x * x
  const norm = Math.sqrt(sum)
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm
  return vector
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number)
  return s
}

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

/** FNV-1a, 32-bit: fast, stable across runs, enough spread for bucket choice. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function add(counts: Map<string, number>, feature: string, weight: number) {
  counts.set(feature, (counts.get(feature) ?? 0) + weight)
}

export function embedText(text: string): Float32Array {
  const tokens = words(text).slice(0, MAX_TOKENS)
  const features = new Map<string, number>()
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i] as string
    add(features, `w:${w}`, 1)
    if (i > 0) add(features, `b:${tokens[i - 1]} ${w}`, BIGRAM_WEIGHT)
    const padded = `<${w}>`
    for (let j = 0; j + CHAR_GRAM <= padded.length; j++)
      add(features, `c:${padded.slice(j, j + CHAR_GRAM)}`, CHAR_WEIGHT)
  }
  const vector = new Float32Array(EMBED_DIMS)
  for (const [feature, count] of features) {
    const h = fnv1a(feature)
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

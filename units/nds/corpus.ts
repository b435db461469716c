/**
 * A generated news corpus for search tests and the benchmark: deterministic (seeded), with topics
 * that share vocabulary, Zipf-like word frequencies, several sources and languages, and dates
 * spread over a year, so that ranking and filters have something real to separate.
 */
import type { RawArticle } from './rules/normalize.ts'

const TOPICS: Record<string, string[]> = {
  ports: [
    'port',
    'strike',
    'dock',
    'crane',
    'container',
    'vessel',
    'shipping',
    'harbour',
    'union',
    'terminal',
  ],
  energy: [
    'wind',
    'solar',
    'grid',
    'turbine',
    'auction',
    'power',
    'battery',
    'offshore',
    'megawatt',
    'utility',
  ],
  rates: [
    'bank',
    'inflation',
    'rate',
    'interest',
    'bond',
    'yield',
    'currency',
    'lending',
    'economy',
    'prices',
  ],
  climate: [
    'glacier',
    'heat',
    'drought',
    'flood',
    'emissions',
    'carbon',
    'warming',
    'rainfall',
    'forest',
    'ice',
  ],
  rail: [
    'train',
    'rail',
    'hydrogen',
    'station',
    'line',
    'timetable',
    'commuter',
    'freight',
    'track',
    'signal',
  ],
  tech: [
    'chip',
    'semiconductor',
    'software',
    'cloud',
    'startup',
    'engineer',
    'campus',
    'data',
    'algorithm',
    'robot',
  ],
  health: [
    'hospital',
    'vaccine',
    'clinic',
    'doctor',
    'patient',
    'virus',
    'nurse',
    'trial',
    'medicine',
    'care',
  ],
  politics: [
    'parliament',
    'election',
    'minister',
    'vote',
    'coalition',
    'reform',
    'party',
    'law',
    'senate',
    'budget',
  ],
}
const COMMON = [
  'the',
  'and',
  'of',
  'to',
  'in',
  'said',
  'on',
  'for',
  'with',
  'new',
  'after',
  'year',
  'week',
  'city',
  'report',
  'officials',
  'plan',
  'group',
  'people',
  'country',
]
const PLACES = [
  'Rotterdam',
  'Hamburg',
  'Antwerp',
  'Geneva',
  'Dresden',
  'Lyon',
  'Porto',
  'Gdansk',
  'Bergen',
  'Turin',
]
const SOURCES = ['Example Times', 'Harbour Daily', 'Wire Service', 'Capital Post', 'Morning Ledger']
const LANGUAGES = ['en', 'en', 'en', 'de', 'fr']
const FILLER = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`)

function rng(seed: number) {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x / 4294967296
  }
}

export interface CorpusArticle extends RawArticle {
  topic: string
}

export function generateCorpus(n: number, seed = 7, start = Date.UTC(2026, 0, 1)): CorpusArticle[] {
  return [...corpusStream(n, seed, start)]
}

/** The same articles as generateCorpus, one at a time (a million need not be held at once). */
export function* corpusStream(n: number, seed = 7, start = Date.UTC(2026, 0, 1)): Generator<CorpusArticle> {
  const r = rng(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)] as T
  const topics = Object.keys(TOPICS)
  for (let i = 0; i < n; i++) {
    const topic = pick(topics)
    const vocab = TOPICS[topic] as string[]
    const place = pick(PLACES)
    const length = 40 + Math.floor(r() * 120)
    const body: string[] = []
    for (let w = 0; w < length; w++) {
      const u = r()
      body.push(
        u < 0.35
          ? pick(vocab)
          : u < 0.75
            ? pick(COMMON)
            : u < 0.8
              ? place
              : (FILLER[Math.floor(r() ** 2 * FILLER.length)] as string),
      )
    }
    const title = `${place} ${pick(vocab)} ${pick(vocab)} ${pick(COMMON)} ${pick(vocab)}`
    yield {
      url: `https://corpus.example/${topic}/${i}`,
      title,
      body: body.join(' '),
      publishedAt: new Date(start + Math.floor(r() * 365 * 86_400_000)).toISOString(),
      language: pick(LANGUAGES),
      sourceName: pick(SOURCES),
      entities: [place, topic],
      topic,
    }
  }
}

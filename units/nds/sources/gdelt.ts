/**
 * GDELT 2.0 event exports: the tab-separated events file (`YYYYMMDDHHMMSS.export.CSV`, usually
 * zipped) with the 61 columns of the GDELT 2.0 Event Codebook. Each event becomes an event row;
 * each distinct SOURCEURL becomes an article titled after its actors and action, with the actors
 * and places as entities.
 */
import { unzipSync } from 'fflate'
import { isoTime, type RawArticle } from '../rules/normalize.ts'

/** The 61 columns, in file order (GDELT 2.0 Event Codebook). */
export const GDELT_COLUMNS = [
  'GLOBALEVENTID',
  'SQLDATE',
  'MonthYear',
  'Year',
  'FractionDate',
  'Actor1Code',
  'Actor1Name',
  'Actor1CountryCode',
  'Actor1KnownGroupCode',
  'Actor1EthnicCode',
  'Actor1Religion1Code',
  'Actor1Religion2Code',
  'Actor1Type1Code',
  'Actor1Type2Code',
  'Actor1Type3Code',
  'Actor2Code',
  'Actor2Name',
  'Actor2CountryCode',
  'Actor2KnownGroupCode',
  'Actor2EthnicCode',
  'Actor2Religion1Code',
  'Actor2Religion2Code',
  'Actor2Type1Code',
  'Actor2Type2Code',
  'Actor2Type3Code',
  'IsRootEvent',
  'EventCode',
  'EventBaseCode',
  'EventRootCode',
  'QuadClass',
  'GoldsteinScale',
  'NumMentions',
  'NumSources',
  'NumArticles',
  'AvgTone',
  'Actor1Geo_Type',
  'Actor1Geo_FullName',
  'Actor1Geo_CountryCode',
  'Actor1Geo_ADM1Code',
  'Actor1Geo_ADM2Code',
  'Actor1Geo_Lat',
  'Actor1Geo_Long',
  'Actor1Geo_FeatureID',
  'Actor2Geo_Type',
  'Actor2Geo_FullName',
  'Actor2Geo_CountryCode',
  'Actor2Geo_ADM1Code',
  'Actor2Geo_ADM2Code',
  'Actor2Geo_Lat',
  'Actor2Geo_Long',
  'Actor2Geo_FeatureID',
  'ActionGeo_Type',
  'ActionGeo_FullName',
  'ActionGeo_CountryCode',
  'ActionGeo_ADM1Code',
  'ActionGeo_ADM2Code',
  'ActionGeo_Lat',
  'ActionGeo_Long',
  'ActionGeo_FeatureID',
  'DATEADDED',
  'SOURCEURL',
] as const

export type GdeltColumn = (typeof GDELT_COLUMNS)[number]

/** CAMEO root codes (01-20): the action class of an event, for readable titles. */
const CAMEO_ROOTS: Record<string, string> = {
  '01': 'makes a public statement',
  '02': 'appeals',
  '03': 'expresses intent to cooperate',
  '04': 'consults',
  '05': 'engages in diplomatic cooperation',
  '06': 'engages in material cooperation',
  '07': 'provides aid',
  '08': 'yields',
  '09': 'investigates',
  '10': 'demands',
  '11': 'disapproves',
  '12': 'rejects',
  '13': 'threatens',
  '14': 'protests',
  '15': 'exhibits force posture',
  '16': 'reduces relations',
  '17': 'coerces',
  '18': 'assaults',
  '19': 'fights',
  '20': 'uses unconventional mass violence',
}

export interface GdeltEvent {
  globalEventId: string
  day: string
  dateAdded: string
  eventCode: string
  rootCode: string
  actor1: string | null
  actor2: string | null
  goldstein: number | null
  numMentions: number
  avgTone: number | null
  countryCode: string | null
  sourceUrl: string | null
}

export interface ParsedEvents {
  events: GdeltEvent[]
  articles: RawArticle[]
  rejected: { line: number; error: string }[]
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]

/** The events file's text: the first `.CSV` member of a zip, or the bytes themselves. */
export function eventsText(bytes: Uint8Array): string {
  if (ZIP_MAGIC.every((b, i) => bytes[i] === b)) {
    let files: Record<string, Uint8Array>
    try {
      files = unzipSync(bytes)
    } catch (err) {
      throw new Error(`zip archive is damaged: ${(err as Error).message}`)
    }
    const name = Object.keys(files).find((n) => /\.csv$/i.test(n)) ?? Object.keys(files)[0]
    const member = name ? files[name] : undefined
    if (!member) throw new Error('zip archive holds no events file')
    return new TextDecoder().decode(member)
  }
  return new TextDecoder().decode(bytes)
}

const number = (s: string | undefined): number | null => {
  if (s === undefined || s.trim() === '') return null
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

/** `YYYYMMDDHHMMSS` (DATEADDED) → ISO 8601 UTC. */
export function gdeltTime(stamp: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp)
  return m ? isoTime(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : null
}

export function parseEvents(text: string): ParsedEvents {
  const events: GdeltEvent[] = []
  const rejected: { line: number; error: string }[] = []
  const byUrl = new Map<string, RawArticle>()
  const lines = text.split(/\r?\n/)
  lines.forEach((line, i) => {
    if (line.trim() === '') return
    const cells = line.split('\t')
    if (cells.length !== GDELT_COLUMNS.length) {
      rejected.push({ line: i + 1, error: `expected ${GDELT_COLUMNS.length} columns, found ${cells.length}` })
      return
    }
    const col = (name: GdeltColumn) => cells[GDELT_COLUMNS.indexOf(name)]?.trim() ?? ''
    const id = col('GLOBALEVENTID')
    const dateAdded = gdeltTime(col('DATEADDED'))
    if (!/^\d+$/.test(id) || !dateAdded || !/^\d{8}$/.test(col('SQLDATE'))) {
      rejected.push({ line: i + 1, error: 'GLOBALEVENTID, SQLDATE or DATEADDED is malformed' })
      return
    }
    const sqlDate = col('SQLDATE')
    const event: GdeltEvent = {
      globalEventId: id,
      day: `${sqlDate.slice(0, 4)}-${sqlDate.slice(4, 6)}-${sqlDate.slice(6, 8)}`,
      dateAdded,
      eventCode: col('EventCode'),
      rootCode: col('EventRootCode'),
      actor1: col('Actor1Name') || null,
      actor2: col('Actor2Name') || null,
      goldstein: number(col('GoldsteinScale')),
      numMentions: number(col('NumMentions')) ?? 0,
      avgTone: number(col('AvgTone')),
      countryCode: col('ActionGeo_CountryCode') || null,
      sourceUrl: col('SOURCEURL') || null,
    }
    events.push(event)
    if (!event.sourceUrl) return
    const action = CAMEO_ROOTS[event.rootCode.padStart(2, '0')] ?? `acts (CAMEO ${event.eventCode})`
    const place = col('ActionGeo_FullName')
    const sentence = `${event.actor1 ?? 'An actor'} ${action}${event.actor2 ? ` toward ${event.actor2}` : ''}${place ? ` in ${place}` : ''}.`
    const existing = byUrl.get(event.sourceUrl)
    if (existing) {
      existing.body = `${existing.body} ${sentence}`
      existing.entities = [...(existing.entities ?? []), event.actor1, event.actor2, place || null]
      return
    }
    byUrl.set(event.sourceUrl, {
      url: event.sourceUrl,
      title: sentence.slice(0, -1),
      body: sentence,
      publishedAt: dateAdded,
      sourceName: safeHost(event.sourceUrl),
      entities: [event.actor1, event.actor2, place || null],
    })
  })
  return { events, articles: [...byUrl.values()], rejected }
}

const safeHost = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return 'gdelt'
  }
}

/** GDELT publishes one export every 15 minutes, named by its UTC stamp. */
export const GDELT_INTERVAL_MS = 15 * 60 * 1000

/** Export file URLs covering [from, to], newest last, at most `max`. */
export function exportUrls(base: string, from: Date, to: Date, max: number): string[] {
  const root = base.replace(/\/+$/, '')
  const start = Math.ceil(from.getTime() / GDELT_INTERVAL_MS) * GDELT_INTERVAL_MS
  const urls: string[] = []
  for (let t = start; t <= to.getTime() && urls.length < max; t += GDELT_INTERVAL_MS) {
    const stamp = new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14)
    urls.push(`${root}/${stamp}.export.CSV.zip`)
  }
  return urls
}

/** The export URL named by `lastupdate.txt` (lines of "size md5 url"). */
export function latestExportUrl(lastUpdate: string): string | undefined {
  for (const line of lastUpdate.split(/\r?\n/)) {
    const url = line.trim().split(/\s+/)[2]
    if (url && /\.export\.CSV(\.zip)?$/i.test(url)) return url
  }
  return undefined
}

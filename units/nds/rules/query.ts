/**
 * The full-text query language of /v1/search/filter, translated to an FTS5 MATCH expression
 * built only from quoted strings, so no input can be an FTS5 syntax error:
 *   word            all words must match (implicit AND)
 *   "two words"     a phrase
 *   pref*           a prefix
 * A term that splits into several words (covid-19) is searched as a phrase of them.
 */

const TOKEN = /"([^"]*)"?|(\S+)/g
const WORD = /[\p{L}\p{N}]+/gu
const MAX_TERMS = 32

const quote = (words: string[]) => `"${words.join(' ')}"`

/** The MATCH expression, or undefined when the text holds no searchable word. */
export function ftsQuery(text: string | undefined): string | undefined {
  if (!text) return undefined
  const parts: string[] = []
  for (const m of text.matchAll(TOKEN)) {
    if (parts.length >= MAX_TERMS) break
    const phrase = m[1]
    const term = m[2]
    if (phrase !== undefined) {
      const words = phrase.match(WORD)
      if (words) parts.push(quote(words))
      continue
    }
    if (!term) continue
    const prefix = term.endsWith('*')
    const words = term.match(WORD)
    if (!words) continue
    parts.push(prefix ? `${quote(words)}*` : quote(words))
  }
  return parts.length > 0 ? parts.join(' ') : undefined
}

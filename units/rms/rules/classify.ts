/** Classification: which domain a piece of work belongs to, by the keywords each domain declares. */
import type { DomainDoc } from '../model/host.ts'

const WORD = /[a-z0-9]+/g

export function classifyText(text: string, domains: DomainDoc[]) {
  const words = new Set(text.toLowerCase().match(WORD) ?? [])
  const scored = domains
    .map((d) => {
      const matched = d.keywords.filter((k) => words.has(k.toLowerCase())).sort()
      return { domain_id: d.domain_id, matched_keywords: matched, score: matched.length }
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.domain_id.localeCompare(b.domain_id))
  const top = scored[0]
  const tied = top ? scored.filter((s) => s.score === top.score) : []
  const total = scored.reduce((n, s) => n + s.score, 0)
  const status = !top
    ? ('unclassified' as const)
    : tied.length > 1
      ? ('ambiguous' as const)
      : ('classified' as const)
  return {
    status,
    // An ambiguous result names no domain: the caller must choose, RMS does not guess.
    domain_id: status === 'classified' ? top!.domain_id : null,
    confidence: status === 'classified' ? Math.round((top!.score / total) * 1000) / 1000 : 0,
    candidates: scored.map((s) => ({ ...s, confidence: Math.round((s.score / total) * 1000) / 1000 })),
  }
}

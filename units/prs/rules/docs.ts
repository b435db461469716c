/**
 * The docs standard and the check of a markdown file against it. Reading files is the caller's
 * job: these functions take the text, so tests need no file system.
 */
import { DocsSection, type DocsSectionKey, type UnitContract } from '../../../common/contract.ts'
import { literalValues } from '../../../common/schema.ts'

/** The heading words that satisfy each documentation section (case-insensitive substrings). */
export const DOCS_SECTIONS = {
  tool_profile: ['what', 'overview', 'profile', 'purpose', 'summary', 'about'],
  capabilities: ['capabilit', 'feature', 'behaviour', 'behavior', 'what it does'],
  api: ['route', 'api', 'endpoint', 'command', 'surface'],
  configuration: ['configuration', 'environment', 'settings', 'config'],
  integrations: ['integration', 'peer', 'depend', 'consum', 'wiring'],
  decisions: ['decision', 'silent', 'choice'],
  not_done: ['not done', 'not implemented', 'limitation', 'missing', 'out of scope', 'gaps', 'left out'],
  open_source_inventory: ['open source', 'open-source', 'dependenc', 'librar', 'inventory', 'third-party'],
  benchmarks: ['benchmark', 'performance'],
} as const satisfies Record<DocsSectionKey, readonly string[]>

/** What a tool brings to admission (the spec's PRS Resources part). */
export const ADMISSION_DOCS_SECTIONS = [
  'tool_profile',
  'integrations',
  'capabilities',
  'api',
  'open_source_inventory',
] as const satisfies readonly DocsSectionKey[]

export function headingsOf(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((l) => /^#{1,6}\s/.test(l))
    .map((l) => l.replace(/^#+\s*/, '').trim())
}

/** A document that opens with a title and a paragraph under it has a tool profile. */
export function opensWithProfile(markdown: string): boolean {
  const lines = markdown.split('\n').map((l) => l.trim())
  const title = lines.findIndex((l) => l !== '')
  if (title < 0 || !/^#\s/.test(lines[title] ?? '')) return false
  const next = lines.slice(title + 1).find((l) => l !== '')
  return next !== undefined && !next.startsWith('#')
}

/** The standard's sections a markdown document has. */
export function sectionsOf(markdown: string, wanted: readonly DocsSectionKey[]): DocsSectionKey[] {
  const headings = headingsOf(markdown)
  return wanted.filter(
    (s) => sectionPresent(headings, s) || (s === 'tool_profile' && opensWithProfile(markdown)),
  )
}

export function sectionPresent(headings: string[], section: DocsSectionKey): boolean {
  const words = DOCS_SECTIONS[section]
  return headings.some((h) => {
    const lower = h.toLowerCase()
    return words.some((w) => lower.includes(w))
  })
}

/** What a doc's opening paragraph states about the runtime ("Port 18092, liveness `GET /health`."). */
export interface DocsClaims {
  port: number | null
  liveness: string | null
}

export function docsClaims(markdown: string): DocsClaims {
  const blocks = markdown.split(/\n\s*\n/).map((b) => b.trim())
  const first = blocks.find((b) => b !== '' && !b.startsWith('#')) ?? ''
  const port = /\bport (\d{2,5})\b/i.exec(first)?.[1]
  const liveness = /liveness `GET ([^`\s]+)`/i.exec(first)?.[1]
  return { port: port ? Number(port) : null, liveness: liveness ?? null }
}

export interface DocsFinding {
  unit: string
  entrypoint: string
  exists: boolean
  required_sections: DocsSectionKey[]
  sections_found: DocsSectionKey[]
  sections_missing: DocsSectionKey[]
  status: 'ready' | 'incomplete' | 'missing'
  claims: DocsClaims
}

/** `read` returns the file's text or null when it does not exist. */
export function docsFindings(
  contracts: readonly UnitContract[],
  read: (path: string) => string | null,
): DocsFinding[] {
  return contracts.map((c) => {
    const text = read(c.docs.entrypoint)
    const required = c.docs.required_sections as DocsSectionKey[]
    if (text === null) {
      return {
        unit: c.unit,
        entrypoint: c.docs.entrypoint,
        exists: false,
        required_sections: required,
        sections_found: [],
        sections_missing: required,
        status: 'missing' as const,
        claims: { port: null, liveness: null },
      }
    }
    const found = sectionsOf(text, required)
    const missing = required.filter((s) => !found.includes(s))
    return {
      unit: c.unit,
      entrypoint: c.docs.entrypoint,
      exists: true,
      required_sections: required,
      sections_found: found,
      sections_missing: missing,
      status: missing.length === 0 ? ('ready' as const) : ('incomplete' as const),
      claims: docsClaims(text),
    }
  })
}

export function deriveDocsStandard(contracts: readonly UnitContract[]) {
  const keys = literalValues(DocsSection)
  const requiredBy = (k: DocsSectionKey) =>
    contracts.filter((c) => c.docs.required_sections.includes(k)).map((c) => c.unit)
  const everyone = keys.filter((k) => requiredBy(k).length === contracts.length)
  return {
    sections: keys.map((k) => ({
      key: k,
      heading_words: [...DOCS_SECTIONS[k]],
      required_by: requiredBy(k),
      mandatory_for_admission: (ADMISSION_DOCS_SECTIONS as readonly DocsSectionKey[]).includes(k),
    })),
    required_for_every_unit: everyone,
    mandatory_for_admission: [...ADMISSION_DOCS_SECTIONS],
    rule: 'a section is present when a markdown heading of the file contains one of its heading words; a title followed by a paragraph also counts as the tool profile',
  }
}

/** A repository-relative markdown path that cannot escape the repository. */
export function safeDocsPath(path: string): string | null {
  const file = path.split('#')[0] ?? ''
  if (file === '' || file.startsWith('/') || file.includes('\\') || file.split('/').includes('..'))
    return null
  if (!file.endsWith('.md')) return null
  return file
}

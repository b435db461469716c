/**
 * Support context: business references hydrated from the ERP backend, each marked found or
 * missing, and partial when a document it links to could not be read.
 */
import type { EisDeps } from './deps.ts'
import type { Doc } from './erp.ts'

export interface BusinessRef {
  doctype: string
  name: string
}

/** The links followed one step to enrich a document: field holding the name → its doctype. */
const LINKS: Record<string, Record<string, string>> = {
  'Supplier Intake': { purchase_invoice: 'Purchase Invoice', integration_event: 'Integration Event' },
  'Revenue Event': { sales_invoice: 'Sales Invoice', integration_event: 'Integration Event' },
  'Purchase Invoice': { supplier_intake: 'Supplier Intake' },
  'Sales Invoice': { revenue_event: 'Revenue Event' },
  Lead: {},
  'Approval Packet': {},
  'Integration Event': {},
}

export interface HydratedRef {
  doctype: string
  name: string
  found: boolean
  /** Why nothing was found: missing_object (no such document), unsupported_doctype, backend_unavailable. */
  missing_reason: 'missing_object' | 'unsupported_doctype' | 'backend_unavailable' | null
  partial: boolean
  /** Linked documents that could not be read. */
  missing_links: { field: string; doctype: string; name: string }[]
  doc: Doc | null
  linked: Record<string, Doc>
}

async function read(deps: EisDeps, doctype: string, name: string): Promise<Doc | undefined | 'unavailable'> {
  try {
    return await deps.erp.getDoc(doctype, name)
  } catch {
    return 'unavailable'
  }
}

function linkTargets(doctype: string, doc: Doc): { field: string; doctype: string; name: string }[] {
  const links = Object.entries(LINKS[doctype] ?? {}).flatMap(([field, target]) =>
    typeof doc[field] === 'string' && doc[field] !== ''
      ? [{ field, doctype: target, name: doc[field] as string }]
      : [],
  )
  if (
    doctype === 'Approval Packet' &&
    typeof doc.target_doctype === 'string' &&
    typeof doc.target_name === 'string'
  ) {
    links.push({ field: 'target_name', doctype: doc.target_doctype, name: doc.target_name })
  }
  return links
}

export async function hydrate(deps: EisDeps, ref: BusinessRef): Promise<HydratedRef> {
  const base = {
    doctype: ref.doctype,
    name: ref.name,
    partial: false,
    missing_links: [],
    doc: null,
    linked: {},
  }
  if (!Object.hasOwn(LINKS, ref.doctype))
    return { ...base, found: false, missing_reason: 'unsupported_doctype' }
  const doc = await read(deps, ref.doctype, ref.name)
  if (doc === 'unavailable') return { ...base, found: false, missing_reason: 'backend_unavailable' }
  if (doc === undefined) return { ...base, found: false, missing_reason: 'missing_object' }
  const linked: Record<string, Doc> = {}
  const missing: HydratedRef['missing_links'] = []
  for (const link of linkTargets(ref.doctype, doc)) {
    const target = await read(deps, link.doctype, link.name)
    if (target === undefined || target === 'unavailable') missing.push(link)
    else linked[link.field] = target
  }
  return {
    ...base,
    found: true,
    missing_reason: null,
    partial: missing.length > 0,
    missing_links: missing,
    doc,
    linked,
  }
}

export async function supportContext(deps: EisDeps, refs: BusinessRef[]) {
  const objects = await Promise.all(refs.map((r) => hydrate(deps, r)))
  return {
    objects,
    summary: {
      requested: refs.length,
      found: objects.filter((o) => o.found).length,
      missing: objects.filter((o) => !o.found).length,
      partial: objects.filter((o) => o.partial).length,
    },
  }
}

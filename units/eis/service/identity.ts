/** Identity projections over the facts an operator loaded (docs/units/eis.md, identity). */
import { Value } from '@sinclair/typebox/value'
import { badRequest } from '../../../common/errors.ts'
import { sha256Hex } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import { IdentityFactInput } from '../model/identity.ts'
import {
  type AccessFact,
  accessFact,
  type Dominance,
  dominanceOf,
  type IdentityFactInput as FactInput,
  lifecycleFact,
  unknownSubjectFact,
} from '../rules/access.ts'
import * as store from '../store.ts'

export const NO_PROJECTION = 'none'
/** Frappe's built-in superuser: the bootstrap principal when EIS_BOOTSTRAP_SUBJECT is unset. */
export const DEFAULT_BOOTSTRAP_SUBJECT = 'Administrator'

const inputOf = (row: store.IdentityFactRow) => row.fact as unknown as FactInput

async function projectionVersion(
  storage: Storage,
): Promise<{ version: string; latest?: store.FactImportRow }> {
  const latest = await store.latestImport(storage)
  return { version: latest ? latest.importId : NO_PROJECTION, latest }
}

/** Dominance of each given row within its business identity (rows without one dominate alone). */
async function dominanceFor(
  storage: Storage,
  rows: store.IdentityFactRow[],
): Promise<Map<string, Dominance>> {
  const ids = [...new Set(rows.map((r) => r.businessIdentityId).filter((id): id is string => id !== null))]
  const groups = new Map<string, FactInput[]>()
  for (const r of await store.factsByBusinessIdentity(storage, ids)) {
    const group = groups.get(r.businessIdentityId ?? '') ?? []
    group.push(inputOf(r))
    groups.set(r.businessIdentityId ?? '', group)
  }
  const out = new Map<string, Dominance>()
  for (const r of rows) {
    const group =
      r.businessIdentityId === null ? [inputOf(r)] : (groups.get(r.businessIdentityId) ?? [inputOf(r)])
    out.set(
      r.technicalSubject,
      dominanceOf(group).get(r.technicalSubject) ?? { dominance: 'dominant', dominated_by: null },
    )
  }
  return out
}

export interface AccessQuery {
  technical_subject?: string
  business_identity_id?: string
}

/** Exactly one of the two identifiers, else 400. */
export function checkAccessQuery(query: AccessQuery): void {
  const given = [query.technical_subject, query.business_identity_id].filter((v) => v !== undefined)
  if (given.length !== 1) {
    throw badRequest(
      'exactly_one_identifier',
      'Give exactly one of technical_subject or business_identity_id.',
      { given: given.length },
    )
  }
}

/**
 * The access fact of one subject. A business identity resolves to its dominant subject. An
 * unknown subject is not an error: it gets the fail-closed fact (login not allowed).
 */
export async function lookupAccessFact(
  storage: Storage,
  query: AccessQuery,
  now = new Date(),
): Promise<AccessFact> {
  checkAccessQuery(query)
  const { version } = await projectionVersion(storage)
  let row: store.IdentityFactRow | undefined
  if (query.technical_subject !== undefined) {
    row = await store.factBySubject(storage, query.technical_subject)
  } else {
    const group = await store.factsByBusinessIdentity(storage, [query.business_identity_id as string])
    const top = [...dominanceOf(group.map(inputOf)).entries()].find(
      ([, d]) => d.dominance === 'dominant',
    )?.[0]
    row = group.find((r) => r.technicalSubject === top)
  }
  if (!row) return unknownSubjectFact(query, version, now)
  const dominance = (await dominanceFor(storage, [row])).get(row.technicalSubject) as Dominance
  return accessFact(inputOf(row), dominance, version, now)
}

export interface BatchQuery {
  limit?: number
  after?: string
}

async function page(storage: Storage, query: BatchQuery) {
  const limit = query.limit ?? 100
  const rows = await store.factPage(storage, query.after, limit)
  const dominance = await dominanceFor(storage, rows)
  const { version } = await projectionVersion(storage)
  const nextAfter = rows.length === limit ? (rows.at(-1)?.technicalSubject ?? null) : null
  return { rows, dominance, version, nextAfter }
}

export async function accessFactBatch(storage: Storage, query: BatchQuery, now = new Date()) {
  const { rows, dominance, version, nextAfter } = await page(storage, query)
  const facts = rows.map((r) =>
    accessFact(inputOf(r), dominance.get(r.technicalSubject) as Dominance, version, now),
  )
  return { facts, count: facts.length, next_after: nextAfter, projection_version: version }
}

export async function lifecycleFactBatch(storage: Storage, query: BatchQuery) {
  const { rows, dominance, version, nextAfter } = await page(storage, query)
  const facts = rows.map((r) => lifecycleFact(inputOf(r), dominance.get(r.technicalSubject) as Dominance))
  return { facts, count: facts.length, next_after: nextAfter, projection_version: version }
}

/**
 * Who the keystore may bootstrap as: the asked subject, or the configured superuser subject.
 * Bootstrap is allowed only when that principal's access fact allows login.
 */
export async function bootstrapPrincipalTruth(
  storage: Storage,
  configured: string | undefined,
  asked: string | undefined,
  now = new Date(),
) {
  const defaultSubject = configured ?? DEFAULT_BOOTSTRAP_SUBJECT
  const subject = asked ?? defaultSubject
  const fact = await lookupAccessFact(storage, { technical_subject: subject }, now)
  const { version, latest } = await projectionVersion(storage)
  return {
    technical_subject: subject,
    is_configured_default: subject === defaultSubject,
    default_source:
      configured === undefined ? ('built_in_default' as const) : ('EIS_BOOTSTRAP_SUBJECT' as const),
    principal_present: fact.subject_known,
    bootstrap_allowed: fact.project_tool_login_allowed,
    access_fact: fact,
    contract_ref: {
      family: 'identity.bootstrap_principal',
      version: '1.0.0',
      access_fact_contract_version: 2 as const,
    },
    projection_ref: {
      projection_version: version,
      imported_at: latest?.importedAt ?? null,
      source: latest?.source ?? null,
    },
  }
}

export interface ImportProblem {
  line: number
  message: string
}

/** Parse a JSON Lines facts file: every problem is reported, nothing is half-loaded. */
export function parseFactsFile(text: string): { facts: FactInput[]; problems: ImportProblem[] } {
  const facts: FactInput[] = []
  const problems: ImportProblem[] = []
  const seen = new Set<string>()
  text.split('\n').forEach((raw, i) => {
    const line = i + 1
    if (raw.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      problems.push({ line, message: 'not valid JSON' })
      return
    }
    if (!Value.Check(IdentityFactInput, value)) {
      const first = Value.Errors(IdentityFactInput, value).First()
      problems.push({ line, message: `${first?.path || '/'}: ${first?.message ?? 'invalid'}` })
      return
    }
    const fact = value as FactInput
    if (seen.has(fact.technical_subject)) {
      problems.push({ line, message: `technical_subject ${fact.technical_subject} appears twice` })
      return
    }
    seen.add(fact.technical_subject)
    facts.push(fact)
  })
  return { facts, problems }
}

/** Load a facts file as the new projection (replacing the previous one). */
export async function importFacts(storage: Storage, text: string, source: string) {
  const { facts, problems } = parseFactsFile(text)
  if (problems.length > 0) return { ok: false as const, problems }
  const imported = {
    importId: newId(),
    importedAt: nowIso(),
    source,
    contentHash: sha256Hex(text),
    rows: facts.length,
  }
  await store.replaceIdentityFacts(
    storage,
    imported,
    facts.map((f) => ({
      technicalSubject: f.technical_subject,
      businessIdentityId: f.business_identity_id ?? null,
      fact: f as unknown as Record<string, unknown>,
      lifecycleChangedAt: f.lifecycle_changed_at,
    })),
  )
  return {
    ok: true as const,
    import_id: imported.importId,
    rows: facts.length,
    content_hash: imported.contentHash,
  }
}

/**
 * The two POST checks: compatibility and admission dry-run. They read the registry and the stored
 * contract history and persist nothing.
 */
import { Value } from '@sinclair/typebox/value'
import {
  type CompatibilityMode,
  contractProblems,
  ProducedFamily,
  type UnitContract,
} from '../../../common/contract.ts'
import { badRequest, unprocessable } from '../../../common/errors.ts'
import { canonicalHash } from '../../../common/hash.ts'
import { callPeer } from '../../../common/peer.ts'
import type { Storage } from '../../../db/storage.ts'
import {
  type AdmissionDeps,
  type AdmissionInputValue,
  admissionInputProblems,
  type ProbeResult,
  runAdmission,
} from '../rules/admission.ts'
import {
  checkFamily,
  checkUnit,
  type Incompatibility,
  isTransitive,
  type RegisteredVersion,
  verboseMessages,
} from '../rules/compatibility.ts'
import { requiredByFrom } from '../rules/derive.ts'
import { registeredVersions } from '../store.ts'
import type { Views } from './views.ts'

/** Registered versions of a subject, oldest first, ending with the repository's current document. */
async function history<D>(
  db: Storage,
  kind: 'unit' | 'family',
  subject: string,
  current: D,
  version: string,
): Promise<RegisteredVersion<D>[]> {
  const currentHash = canonicalHash(current)
  const stored = (await registeredVersions(db, kind, subject))
    .filter((v) => v.hash !== currentHash)
    .map((v) => ({ version: v.version, document: v.document as D }))
  return [...stored, { version, document: current }]
}

export function unitHistory(db: Storage, c: UnitContract): Promise<RegisteredVersion<UnitContract>[]> {
  return history(db, 'unit', c.unit, c, c.version)
}

export interface CompatibilityBody {
  subject_kind: 'unit' | 'family'
  subject: string
  proposed: unknown
  compatibility_mode?: CompatibilityMode
}

export async function checkCompatibility(views: Views, db: Storage, body: CompatibilityBody) {
  const contracts = views.contracts
  let incompatibilities: Incompatibility[] = []
  let compared: string[] = []
  let registeredCount = 0
  let mode: CompatibilityMode
  let modeSource: 'request' | 'registered' = body.compatibility_mode ? 'request' : 'registered'

  if (body.subject_kind === 'unit') {
    const problems = contractProblems(body.proposed)
    if (problems.length > 0)
      throw unprocessable(
        'invalid_contract',
        'The proposed unit contract does not pass the contract schema.',
        problems,
      )
    const proposed = body.proposed as UnitContract
    if (proposed.unit !== body.subject)
      throw badRequest(
        'subject_mismatch',
        `The proposed contract is for unit ${proposed.unit}, not ${body.subject}.`,
      )
    const current = contracts.find((c) => c.unit === body.subject)
    mode = body.compatibility_mode ?? current?.compatibility_mode ?? proposed.compatibility_mode
    if (!body.compatibility_mode && !current) modeSource = 'request'
    if (current) {
      const versions = await unitHistory(db, current)
      registeredCount = versions.length
      const against = isTransitive(mode) ? versions : versions.slice(-1)
      compared = against.map((v) => v.version)
      incompatibilities = checkUnit(proposed, versions, mode, requiredByFrom(contracts))
    }
  } else {
    if (!Value.Check(ProducedFamily, body.proposed)) {
      const errors = [...Value.Errors(ProducedFamily, body.proposed)]
        .slice(0, 20)
        .map((e) => ({ path: e.path || '/', message: e.message }))
      throw unprocessable(
        'invalid_family',
        'The proposed family declaration does not pass the family schema.',
        errors,
      )
    }
    const proposed = body.proposed as ProducedFamily
    if (proposed.family !== body.subject)
      throw badRequest(
        'subject_mismatch',
        `The proposed declaration is for family ${proposed.family}, not ${body.subject}.`,
      )
    const producers = contracts.filter((c) => c.produces.some((f) => f.family === body.subject))
    const owner = producers[0]
    mode = body.compatibility_mode ?? owner?.compatibility_mode ?? 'BACKWARD'
    if (!body.compatibility_mode && !owner) modeSource = 'request'
    for (const p of producers) {
      const decl = p.produces.find((f) => f.family === body.subject)!
      const versions = await history(db, 'family', `${p.unit}:${decl.family}`, decl, decl.version)
      registeredCount += versions.length
      const against = isTransitive(mode) ? versions : versions.slice(-1)
      compared.push(...against.map((v) => `${p.unit}@${v.version}`))
      incompatibilities.push(...checkFamily(proposed, versions, mode, `/families/${decl.family}`))
    }
  }
  return {
    is_compatible: incompatibilities.length === 0,
    subject_kind: body.subject_kind,
    subject: body.subject,
    compatibility_mode: mode,
    mode_source: modeSource,
    compared_versions: compared,
    registered_versions: registeredCount,
    incompatibilities,
    messages:
      registeredCount === 0
        ? [`subject ${body.subject} has no registered version; nothing to be incompatible with`]
        : mode === 'NONE'
          ? ['compatibility mode NONE: no check']
          : verboseMessages(incompatibilities, mode),
  }
}

export interface AdmissionOptions {
  verifyTimeoutMs: number
}

/** A bounded GET of one readiness surface: any 2xx passes; no answer is "not reachable". */
export async function probeSurface(url: string, timeoutMs: number): Promise<ProbeResult> {
  const res = await callPeer({ url, timeoutMs })
  if (res.ok) return { ok: true, status: res.status, message: `answered ${res.status}`, body: res.body }
  return {
    ok: false,
    status: res.status ?? null,
    message: res.message,
  }
}

export async function dryRunAdmission(
  views: Views,
  db: Storage,
  body: Record<string, unknown>,
  opts: AdmissionOptions,
) {
  const problems = admissionInputProblems(body)
  if (problems.missing.length > 0 || problems.invalid.length > 0) {
    const parts = [
      problems.missing.length > 0 ? `missing: ${problems.missing.join(', ')}` : '',
      problems.invalid.length > 0 ? `invalid: ${problems.invalid.map((i) => i.item).join(', ')}` : '',
    ].filter(Boolean)
    throw badRequest(
      'admission_input_incomplete',
      `The admission input is incomplete (${parts.join('; ')}).`,
      problems,
    )
  }
  const input = body as unknown as AdmissionInputValue
  // The rules are synchronous: read every unit's registered history first.
  const histories = new Map(
    await Promise.all(views.contracts.map(async (c) => [c.unit, await unitHistory(db, c)] as const)),
  )
  const deps: AdmissionDeps = {
    contracts: views.contracts,
    unitVersions: (unit) => histories.get(unit) ?? [],
    readDoc: views.readDoc,
    urls: views.urls,
    probe: (url) => probeSurface(url, opts.verifyTimeoutMs),
    drift: views.drift().items,
    latest: views.latest(),
  }
  const result = await runAdmission(input, deps)
  return { dry_run: true as const, persisted: false as const, ...result }
}

/**
 * Admission dry-run: the spec's input validated (every missing item named), then the six review
 * steps run for real, each with its own verdict. Nothing is persisted.
 */
import { type Static, Type as T, type TObject, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  CapabilityClass,
  CompatibilityMode,
  contractProblems,
  FamilyKey,
  LifecyclePosture,
  type UnitContract,
} from '../../../common/contract.ts'
import { checkUnit, type Incompatibility, type RegisteredVersion, verboseMessages } from './compatibility.ts'
import { deriveMatrix, requiredByFrom } from './derive.ts'
import { ADMISSION_DOCS_SECTIONS, safeDocsPath, sectionsOf } from './docs.ts'
import type { DriftItem, Observation } from './drift.ts'

/** Mandatory review items: each needs a verdict in `checklist`. `na` marks the items n/a may answer. */
export const CHECKLIST_ITEMS = [
  {
    key: 'contract_file_committed',
    na: false,
    summary: 'units/<name>/contract.json is committed and passes the schema',
  },
  { key: 'docs_sections_present', na: false, summary: 'the docs entrypoint has every mandatory section' },
  { key: 'verify_entrypoint_runs', na: false, summary: 'the verify entrypoint runs green in CI' },
  { key: 'readiness_surfaces_declared', na: false, summary: 'liveness and readiness surfaces are declared' },
  { key: 'families_declared', na: false, summary: 'every produced and consumed family is declared' },
  {
    key: 'port_policy_declared',
    na: true,
    summary: 'ports and their policy are declared (n/a without a listener)',
  },
  { key: 'fail_closed_documented', na: false, summary: 'fail-closed conditions are documented' },
  {
    key: 'secrets_outside_repository',
    na: false,
    summary: 'no secret is committed; secrets come from the environment',
  },
] as const

const Verdict = T.Union([T.Literal('pass'), T.Literal('fail'), T.Literal('n/a')])
const DocPath = T.String({
  minLength: 1,
  maxLength: 300,
  description: 'repository-relative markdown path (optional #anchor)',
})

/** One path per section admission requires: the schema follows the docs rules' list. */
const docsPaths = Object.fromEntries(ADMISSION_DOCS_SECTIONS.map((k) => [k, DocPath])) as Record<
  (typeof ADMISSION_DOCS_SECTIONS)[number],
  typeof DocPath
>

export const AdmissionInput = T.Object(
  {
    tool_identity: T.Object({
      tool_key: T.String({ pattern: '^[a-z][a-z0-9-]*$', maxLength: 80 }),
      capability_class: CapabilityClass,
    }),
    docs: T.Object({ entrypoint: DocPath, ...docsPaths }),
    producer_families: T.Array(FamilyKey, { maxItems: 200 }),
    consumer_families: T.Array(FamilyKey, { maxItems: 200 }),
    compatibility_mode: CompatibilityMode,
    lifecycle_posture: LifecyclePosture,
    verify: T.Object({
      entrypoint: T.String({ minLength: 1, maxLength: 300 }),
      readiness_surfaces: T.Array(T.String({ pattern: '^/[^\\s]*$', maxLength: 300 }), {
        minItems: 1,
        maxItems: 20,
      }),
      live_verification_target: T.String({
        minLength: 1,
        maxLength: 300,
        description: 'a unit name or its observed URL',
      }),
    }),
    checklist: T.Object(Object.fromEntries(CHECKLIST_ITEMS.map((i) => [i.key, Verdict])), {
      additionalProperties: false,
    }),
    contract: T.Optional(
      T.Unknown({ description: 'optional full proposed unit contract (svc.unit-contract/1)' }),
    ),
  },
  { description: 'Admission dry-run input' },
)

export interface InputProblems {
  missing: string[]
  invalid: { item: string; message: string }[]
}

/** Walk the schema and name every missing item, at any depth, and every invalid one. */
export function admissionInputProblems(value: unknown): InputProblems {
  const out: InputProblems = { missing: [], invalid: [] }
  const walk = (schema: TSchema, v: unknown, path: string) => {
    const obj = schema as TObject
    if (obj.type === 'object' && obj.properties) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        if (path === '') out.invalid.push({ item: '(body)', message: 'expected an object' })
        else out.invalid.push({ item: path, message: 'expected an object' })
        return
      }
      const rec = v as Record<string, unknown>
      const required = new Set(obj.required ?? [])
      for (const [k, s] of Object.entries(obj.properties)) {
        const p = path ? `${path}.${k}` : k
        if (rec[k] === undefined) {
          if (required.has(k)) collectMissing(s, p, out.missing)
          continue
        }
        walk(s, rec[k], p)
      }
      if (obj.additionalProperties === false) {
        for (const k of Object.keys(rec).filter((k) => !(k in obj.properties)))
          out.invalid.push({ item: path ? `${path}.${k}` : k, message: 'unknown item' })
      }
      return
    }
    if (!Value.Check(schema, v)) {
      const first = Value.Errors(schema, v).First()
      out.invalid.push({ item: path, message: first?.message ?? 'invalid value' })
    }
  }
  walk(AdmissionInput, value, '')
  return out
}

/** Every item the admission input requires, as dotted paths (what admission governance publishes). */
export function requiredInput(): string[] {
  const leaves: string[] = []
  collectMissing(AdmissionInput, '', leaves)
  return leaves.map((path) => path.slice(1))
}

/** A missing object is every one of its required leaves missing. */
function collectMissing(schema: TSchema, path: string, into: string[]) {
  const obj = schema as TObject
  if (obj.type === 'object' && obj.properties && Object.keys(obj.properties).length > 0) {
    const required = new Set(obj.required ?? [])
    for (const [k, s] of Object.entries(obj.properties))
      if (required.has(k)) collectMissing(s, `${path}.${k}`, into)
    return
  }
  into.push(path)
}

export type AdmissionInputValue = Static<typeof AdmissionInput>

export type StepVerdict = 'pass' | 'fail' | 'blocked'

export interface StepResult {
  step: number
  name: string
  verdict: StepVerdict
  reasons: string[]
}

export interface ProbeResult {
  ok: boolean
  status: number | null
  message: string
  body?: unknown
}

export interface AdmissionDeps {
  contracts: readonly UnitContract[]
  /** Registered versions of a unit subject, oldest first. */
  unitVersions(unit: string): RegisteredVersion<UnitContract>[]
  readDoc(path: string): string | null
  urls: Record<string, string>
  probe(url: string): Promise<ProbeResult>
  drift: DriftItem[]
  latest: readonly Observation[]
}

const step = (n: number, name: string, reasons: string[], blocked = false): StepResult => ({
  step: n,
  name,
  verdict: blocked ? 'blocked' : reasons.length === 0 ? 'pass' : 'fail',
  reasons,
})

export function stepSchema(input: AdmissionInputValue): StepResult {
  const reasons: string[] = []
  for (const item of CHECKLIST_ITEMS) {
    const v = input.checklist[item.key]
    if (v === 'fail') reasons.push(`checklist item ${item.key} is marked fail: ${item.summary}`)
    if (v === 'n/a' && !item.na) reasons.push(`checklist item ${item.key} cannot be n/a`)
  }
  if (input.contract !== undefined) {
    for (const p of contractProblems(input.contract)) reasons.push(`contract ${p.path}: ${p.message}`)
    const c = input.contract as Partial<UnitContract>
    if (reasons.length === 0 && c.identity?.tool_key !== input.tool_identity.tool_key)
      reasons.push('contract identity.tool_key differs from tool_identity.tool_key')
  }
  const both = input.producer_families.filter((f) => input.consumer_families.includes(f))
  for (const f of both) reasons.push(`family ${f} is declared as both produced and consumed`)
  return step(1, 'schema', reasons)
}

/** The proposed contract: the full one given, else the registered one with the declared families. */
function proposedContract(input: AdmissionInputValue, registered: UnitContract): UnitContract {
  if (input.contract !== undefined && contractProblems(input.contract).length === 0)
    return input.contract as UnitContract
  const produces = input.producer_families.map(
    (f) =>
      registered.produces.find((x) => x.family === f) ?? {
        family: f,
        version: '1.0.0',
        kind: 'api' as const,
        description: 'declared at admission',
        surfaces: [],
        fields: {},
      },
  )
  const consumes = input.consumer_families.map(
    (f) =>
      registered.consumes.find((x) => x.family === f) ?? {
        family: f,
        required: true,
        source: 'suite' as const,
      },
  )
  return { ...registered, produces, consumes, compatibility_mode: input.compatibility_mode }
}

export function stepCompatibility(
  input: AdmissionInputValue,
  deps: AdmissionDeps,
): StepResult & { incompatibilities: Incompatibility[] } {
  const reasons: string[] = []
  if (input.lifecycle_posture === 'stable' && input.compatibility_mode === 'NONE')
    reasons.push('a stable tool cannot opt out of compatibility checks (mode NONE)')
  const registered = deps.contracts.find((c) => c.identity.tool_key === input.tool_identity.tool_key)
  if (!registered) {
    return { ...step(2, 'compatibility', reasons), incompatibilities: [] }
  }
  const versions = deps.unitVersions(registered.unit)
  const proposed = proposedContract(input, registered)
  const found = checkUnit(
    proposed,
    versions.length > 0 ? versions : [{ version: registered.version, document: registered }],
    input.compatibility_mode,
    requiredByFrom(deps.contracts),
  )
  reasons.push(
    ...verboseMessages(found, input.compatibility_mode).filter((l) => l.startsWith('Incompatibility')),
  )
  return { ...step(2, 'compatibility', reasons), incompatibilities: found }
}

export function stepMatrix(input: AdmissionInputValue, deps: AdmissionDeps): StepResult {
  const reasons: string[] = []
  const matrix = deriveMatrix(deps.contracts)
  const registered = deps.contracts.find((c) => c.identity.tool_key === input.tool_identity.tool_key)
  const self = registered?.unit
  const cells = new Map(matrix.cells.map((c) => [c.family, c]))
  const externals = new Set(matrix.external_families.map((e) => e.family))
  const declaredExternal = new Set(
    (registered?.consumes ?? []).filter((x) => x.source === 'external').map((x) => x.family),
  )
  for (const f of input.consumer_families) {
    if (declaredExternal.has(f)) continue
    const cell = cells.get(f)
    const producers = (cell?.producers ?? []).filter((p) => p !== self)
    if (producers.length === 0 && !input.producer_families.includes(f)) {
      reasons.push(
        externals.has(f)
          ? `consumed family ${f} is external to the suite; declare it in the contract with source external`
          : `consumed family ${f} has no producer in the matrix`,
      )
    }
  }
  for (const f of input.producer_families) {
    const owners = (cells.get(f)?.producers ?? []).filter((p) => p !== self)
    // A family has one owner, except the shared manifest family every manifest-publishing unit produces.
    if (owners.length > 0 && (cells.get(f)?.producers.length ?? 0) < 2)
      reasons.push(`produced family ${f} is already produced by ${owners.join(', ')}`)
  }
  if (registered) {
    const kept = new Set(input.producer_families)
    for (const f of registered.produces.filter((x) => !kept.has(x.family))) {
      const needs = (cells.get(f.family)?.consumers ?? []).filter((c) => c.required).map((c) => c.unit)
      if (needs.length > 0) reasons.push(`family ${f.family} is dropped but required by ${needs.join(', ')}`)
    }
  }
  return step(3, 'matrix', reasons)
}

export function stepDocs(input: AdmissionInputValue, deps: AdmissionDeps): StepResult {
  const reasons: string[] = []
  const entry = safeDocsPath(input.docs.entrypoint)
  if (!entry)
    reasons.push(
      `docs.entrypoint ${JSON.stringify(input.docs.entrypoint)} is not a repository-relative .md path`,
    )
  else if (deps.readDoc(entry) === null)
    reasons.push(`docs.entrypoint ${entry} is not in the owner repository`)
  for (const section of ADMISSION_DOCS_SECTIONS) {
    const given = input.docs[section as keyof AdmissionInputValue['docs']]
    const path = safeDocsPath(given)
    if (!path) {
      reasons.push(`docs.${section} ${JSON.stringify(given)} is not a repository-relative .md path`)
      continue
    }
    const text = deps.readDoc(path)
    if (text === null) {
      reasons.push(`docs.${section}: ${path} is not in the owner repository`)
      continue
    }
    if (sectionsOf(text, [section]).length === 0)
      reasons.push(`docs.${section}: ${path} has no heading for ${section} under the docs standard`)
  }
  return step(4, 'docs_standard', reasons)
}

/** The unit a verification target names: a unit name, or exactly one of the observed URLs. */
export function resolveTarget(
  target: string,
  urls: Record<string, string>,
): { unit: string; url: string } | null {
  if (urls[target]) return { unit: target, url: urls[target] }
  const trimmed = target.replace(/\/+$/, '')
  for (const [unit, url] of Object.entries(urls))
    if (url.replace(/\/+$/, '') === trimmed) return { unit, url }
  return null
}

export async function stepVerify(
  input: AdmissionInputValue,
  deps: AdmissionDeps,
): Promise<
  StepResult & { readbacks: { surface: string; ok: boolean; status: number | null; message: string }[] }
> {
  const target = resolveTarget(input.verify.live_verification_target, deps.urls)
  if (!target) {
    return {
      ...step(
        5,
        'verify',
        [
          `live verification target ${JSON.stringify(input.verify.live_verification_target)} is not a unit PRS observes (SVC_UNIT_URLS); PRS only probes known unit URLs`,
        ],
        true,
      ),
      readbacks: [],
    }
  }
  const reasons: string[] = []
  const readbacks: { surface: string; ok: boolean; status: number | null; message: string }[] = []
  let unreachable = false
  // In parallel: the whole read-back is bounded by one probe timeout.
  const base = target.url.replace(/\/+$/, '')
  const results = await Promise.all(input.verify.readiness_surfaces.map((s) => deps.probe(base + s)))
  for (const [i, surface] of input.verify.readiness_surfaces.entries()) {
    const r = results[i]!
    readbacks.push({ surface, ok: r.ok, status: r.status, message: r.message })
    if (!r.ok) {
      if (r.status === null) unreachable = true
      reasons.push(
        r.status === null
          ? `${surface} on ${target.unit}: not reachable (${r.message})`
          : `${surface} on ${target.unit}: answered ${r.status}`,
      )
    }
  }
  const registered = deps.contracts.find((c) => c.identity.tool_key === input.tool_identity.tool_key)
  if (registered && registered.verify.entrypoint !== input.verify.entrypoint)
    reasons.push(
      `verify.entrypoint ${JSON.stringify(input.verify.entrypoint)} differs from the contract's ${JSON.stringify(registered.verify.entrypoint)}`,
    )
  return { ...step(5, 'verify', reasons, unreachable), readbacks }
}

export function stepDrift(
  input: AdmissionInputValue,
  deps: AdmissionDeps,
  readbacks: { surface: string; ok: boolean }[],
): StepResult {
  const reasons: string[] = []
  const registered = deps.contracts.find((c) => c.identity.tool_key === input.tool_identity.tool_key)
  if (registered) {
    const declared = new Set(registered.readiness_surfaces.map((s) => s.path))
    for (const s of input.verify.readiness_surfaces)
      if (!declared.has(s))
        reasons.push(`readiness surface ${s} is not declared in the contract of ${registered.unit}`)
    if (safeDocsPath(input.docs.entrypoint) !== registered.docs.entrypoint)
      reasons.push(
        `docs.entrypoint ${input.docs.entrypoint} contradicts the contract's ${registered.docs.entrypoint}`,
      )
    if (registered.identity.capability_class !== input.tool_identity.capability_class)
      reasons.push(
        `capability_class ${input.tool_identity.capability_class} contradicts the contract's ${registered.identity.capability_class}`,
      )
    const manifest = deps.latest.find((o) => o.unit === registered.unit && o.surface === 'manifest' && o.ok)
    const published = (manifest?.body as { producer_families?: unknown } | undefined)?.producer_families
    if (Array.isArray(published)) {
      for (const f of input.producer_families.filter((x) => !published.includes(x)))
        reasons.push(`the live manifest of ${registered.unit} does not publish declared family ${f}`)
    }
    for (const d of deps.drift.filter((x) => x.unit === registered.unit && x.severity === 'blocking'))
      reasons.push(`blocking drift on ${registered.unit}: ${d.message}`)
  }
  for (const r of readbacks.filter((x) => x.ok === false))
    reasons.push(`declared readiness surface ${r.surface} does not answer on the live target`)
  return step(6, 'drift', reasons)
}

export interface AdmissionResult {
  tool_key: string
  verdict: 'admissible' | 'refused' | 'blocked'
  steps: StepResult[]
  incompatibilities: Incompatibility[]
  readbacks: { surface: string; ok: boolean; status: number | null; message: string }[]
}

/** All six steps run, so the operator sees every finding at once; the verdict is the worst. */
export async function runAdmission(
  input: AdmissionInputValue,
  deps: AdmissionDeps,
): Promise<AdmissionResult> {
  const s1 = stepSchema(input)
  const s2 = stepCompatibility(input, deps)
  const s3 = stepMatrix(input, deps)
  const s4 = stepDocs(input, deps)
  const s5 = await stepVerify(input, deps)
  const s6 = stepDrift(input, deps, s5.readbacks)
  const steps = [s1, s2, s3, s4, s5, s6].map(({ step, name, verdict, reasons }) => ({
    step,
    name,
    verdict,
    reasons,
  }))
  const verdict = steps.some((s) => s.verdict === 'fail')
    ? 'refused'
    : steps.some((s) => s.verdict === 'blocked')
      ? 'blocked'
      : 'admissible'
  return {
    tool_key: input.tool_identity.tool_key,
    verdict,
    steps,
    incompatibilities: s2.incompatibilities,
    readbacks: s5.readbacks,
  }
}

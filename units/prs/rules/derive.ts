/**
 * Everything PRS publishes that follows from the contracts alone. Pure: the contract list is the
 * input, so a test can change one contract and watch every view follow.
 */

import type { UnitContract } from '../../../common/contract.ts'
import { canonicalHash } from '../../../common/hash.ts'

export interface MatrixCell {
  family: string
  version: string
  kind: string
  producers: string[]
  consumers: { unit: string; required: boolean }[]
}

export interface Matrix {
  producer_families: string[]
  consumer_families: string[]
  cells: MatrixCell[]
  external_families: { family: string; consumers: string[] }[]
  unresolved: { family: string; consumers: string[]; required: boolean }[]
  unconsumed: string[]
}

/** The suite's contract version: a digest of every contract, so any change shows. */
export const contractVersionOf = (contracts: readonly UnitContract[]): string =>
  `c1-${canonicalHash(contracts).slice(0, 16)}`

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()

export function deriveMatrix(contracts: readonly UnitContract[]): Matrix {
  const cells = new Map<string, MatrixCell>()
  for (const c of contracts) {
    for (const f of c.produces) {
      const cell = cells.get(f.family) ?? {
        family: f.family,
        version: f.version,
        kind: f.kind,
        producers: [],
        consumers: [],
      }
      cell.producers.push(c.unit)
      cells.set(f.family, cell)
    }
  }
  const external = new Map<string, string[]>()
  const unresolved = new Map<string, { consumers: string[]; required: boolean }>()
  for (const c of contracts) {
    for (const f of c.consumes) {
      const cell = cells.get(f.family)
      if (cell) cell.consumers.push({ unit: c.unit, required: f.required })
      else if (f.source === 'external') external.set(f.family, [...(external.get(f.family) ?? []), c.unit])
      else {
        const u = unresolved.get(f.family) ?? { consumers: [], required: false }
        u.consumers.push(c.unit)
        u.required ||= f.required
        unresolved.set(f.family, u)
      }
    }
  }
  const all = [...cells.values()].sort((a, b) => a.family.localeCompare(b.family))
  return {
    producer_families: all.map((c) => c.family),
    consumer_families: sorted(
      contracts.flatMap((c) => c.consumes.filter((f) => f.source === 'suite').map((f) => f.family)),
    ),
    cells: all,
    external_families: [...external]
      .map(([family, consumers]) => ({ family, consumers }))
      .sort((a, b) => a.family.localeCompare(b.family)),
    unresolved: [...unresolved].map(([family, u]) => ({ family, ...u })),
    unconsumed: all.filter((c) => c.consumers.length === 0).map((c) => c.family),
  }
}

/** Units that require a family (for naming who breaks when it goes). */
export const requiredByFrom =
  (contracts: readonly UnitContract[]) =>
  (family: string): string[] =>
    contracts.filter((c) => c.consumes.some((f) => f.family === family && f.required)).map((c) => c.unit)

export function deriveRegistry(contracts: readonly UnitContract[]) {
  return contracts.map((c) => ({
    unit: c.unit,
    tool_key: c.identity.tool_key,
    title: c.identity.title,
    kind: c.identity.kind,
    capability_class: c.identity.capability_class,
    lifecycle_posture: c.identity.lifecycle_posture,
    version: c.version,
    compatibility_mode: c.compatibility_mode,
    contract_file: `units/${c.unit}/contract.json`,
    contract_hash: canonicalHash(c),
    producer_families: c.produces.map((f) => f.family),
    consumer_families: c.consumes.map((f) => f.family),
    port: c.ports[0]?.port ?? null,
    port_policy: c.port_policy,
    liveness: c.liveness,
    manifest_path: c.manifest_path,
    docs_entrypoint: c.docs.entrypoint,
    verify_entrypoint: c.verify.entrypoint,
  }))
}

export function deriveProjectionCatalog(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const byFamily = new Map(matrix.cells.map((c) => [c.family, c]))
  return contracts.flatMap((c) =>
    c.produces
      .filter((f) => f.kind === 'projection' || f.kind === 'facts')
      .map((f) => ({
        family: f.family,
        version: f.version,
        kind: f.kind,
        producer: c.unit,
        description: f.description,
        surfaces: f.surfaces.map((s) => `${s.method} ${s.path}`),
        consumers: (byFamily.get(f.family)?.consumers ?? []).map((x) => x.unit),
      })),
  )
}

export function deriveEventCatalog(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const byFamily = new Map(matrix.cells.map((c) => [c.family, c]))
  return contracts.flatMap((c) =>
    c.events.map((e) => ({
      name: e.name,
      unit: c.unit,
      family: e.family,
      delivery: e.delivery,
      description: e.description,
      payload_fields: e.payload_fields,
      consumers: (byFamily.get(e.family)?.consumers ?? []).map((x) => x.unit),
    })),
  )
}

export interface GraphEdge {
  from: string
  to: string
  family: string
  required: boolean
}

export function deriveDependencyGraph(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const edges: GraphEdge[] = []
  for (const cell of matrix.cells) {
    for (const consumer of cell.consumers) {
      for (const producer of cell.producers) {
        if (producer !== consumer.unit)
          edges.push({ from: consumer.unit, to: producer, family: cell.family, required: consumer.required })
      }
    }
  }
  const externals = matrix.external_families.flatMap((e) =>
    e.consumers.map((u) => ({ from: u, to: `external:${e.family}`, family: e.family })),
  )
  const units = contracts.map((c) => c.unit)
  const cycles = findCycles(
    units,
    edges.filter((e) => e.required),
  )
  return {
    nodes: units.map((u) => ({ id: u, kind: contracts.find((c) => c.unit === u)?.identity.kind ?? 'http' })),
    edges,
    external_edges: externals,
    unresolved: matrix.unresolved,
    required_cycles: cycles,
    start_order:
      cycles.length === 0
        ? startOrder(
            units,
            edges.filter((e) => e.required),
          )
        : null,
  }
}

/** Cycles among required dependencies (each reported once, starting at its smallest unit). */
function findCycles(nodes: string[], edges: GraphEdge[]): string[][] {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]))
  for (const e of edges) next.get(e.from)?.push(e.to)
  const seen = new Set<string>()
  const out: string[][] = []
  const walk = (path: string[]) => {
    const here = path[path.length - 1]!
    for (const to of next.get(here) ?? []) {
      const at = path.indexOf(to)
      if (at >= 0) {
        const cycle = path.slice(at)
        const min = [...cycle].sort()[0]!
        const i = cycle.indexOf(min)
        const canon = [...cycle.slice(i), ...cycle.slice(0, i)]
        const key = canon.join('>')
        if (!seen.has(key)) {
          seen.add(key)
          out.push(canon)
        }
      } else if (path.length < nodes.length) walk([...path, to])
    }
  }
  for (const n of nodes) walk([n])
  return out
}

/** Producers before their required consumers. */
function startOrder(nodes: string[], edges: GraphEdge[]): string[] {
  const order: string[] = []
  const done = new Set<string>()
  const visit = (n: string) => {
    if (done.has(n)) return
    done.add(n)
    for (const e of edges.filter((x) => x.from === n)) visit(e.to)
    order.push(n)
  }
  for (const n of nodes) visit(n)
  return order
}

export function deriveAgentContracts(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  return matrix.cells
    .filter((c) => c.family.startsWith('agent.') || c.family === 'execution.approval_lane')
    .map((cell) => {
      const producer = contracts.find((c) => c.unit === cell.producers[0])
      const decl = producer?.produces.find((f) => f.family === cell.family)
      return {
        family: cell.family,
        version: cell.version,
        producers: cell.producers,
        consumers: cell.consumers,
        description: decl?.description ?? '',
        surfaces: (decl?.surfaces ?? []).map((s) => `${s.method} ${s.path}`),
        fields: Object.entries(decl?.fields ?? {}).map(([name, f]) => ({
          name,
          type: Array.isArray(f.type) ? f.type.join('|') : f.type,
          required: f.required,
        })),
      }
    })
}

/** The spec's recommended readiness read order, as PRS routes. */
export const READ_ORDER: { step: number; name: string; route: string }[] = [
  { step: 1, name: 'health', route: '/health' },
  { step: 2, name: 'services', route: '/api/v1/platform/services' },
  { step: 3, name: 'observability', route: '/api/v1/observability/readiness' },
  { step: 4, name: 'security', route: '/api/v1/security/readiness' },
  { step: 5, name: 'recovery', route: '/api/v1/recovery/readiness' },
  { step: 6, name: 'signoff', route: '/api/v1/signoff/readiness' },
  {
    step: 7,
    name: 'subsystem',
    route: 'each unit’s own readiness surfaces (see /api/v1/tools/runtime-contracts)',
  },
]

/** The spec's admission review order. */
export const ADMISSION_STEPS: { step: number; name: string; summary: string }[] = [
  { step: 1, name: 'schema', summary: 'validate the completed payload against the dry-run input schema' },
  { step: 2, name: 'compatibility', summary: 'check compatibility posture with the compatibility check' },
  { step: 3, name: 'matrix', summary: 'cross-check family use against the producer and consumer matrix' },
  { step: 4, name: 'docs_standard', summary: 'cross-check required docs sections against the docs standard' },
  {
    step: 5,
    name: 'verify',
    summary: 'execute the declared verify entrypoint and read back the readiness targets',
  },
  {
    step: 6,
    name: 'drift',
    summary: 'any contradiction among manifest, docs and live surfaces is blocking drift',
  },
] as const

export function deriveAgentWorkflow() {
  return {
    readiness_read_order: READ_ORDER,
    admission_review_order: ADMISSION_STEPS.map((s) => ({
      ...s,
      route:
        s.step === 1
          ? 'POST /api/v1/tools/admission/dry-run'
          : s.step === 2
            ? 'POST /api/v1/contracts/compatibility/check'
            : s.step === 3
              ? 'GET /api/v1/contracts/matrix'
              : s.step === 4
                ? 'GET /api/v1/contracts/docs-standard'
                : s.step === 5
                  ? 'POST /api/v1/tools/admission/dry-run'
                  : 'GET /api/v1/contracts/drift',
    })),
    rules: [
      'contract truth comes from the repository; observations never override it',
      'a family key has the producers the matrix names; agents do not invent families',
      'blocking drift stops admission and signoff',
    ],
  }
}

export function deriveCombinationProfiles(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const producersOf = new Map(matrix.cells.map((c) => [c.family, c.producers]))
  const keys = sorted(contracts.flatMap((c) => c.combination_profiles.map((p) => p.profile_key)))
  return keys.map((key) => {
    const members = contracts.flatMap((c) =>
      c.combination_profiles.filter((p) => p.profile_key === key).map((p) => ({ unit: c.unit, ...p })),
    )
    const required = members.filter((m) => m.role === 'required').map((m) => m.unit)
    const optional = members.filter((m) => m.role === 'optional').map((m) => m.unit)
    const memberSet = new Set([...required, ...optional])
    const needs = contracts
      .filter((c) => required.includes(c.unit))
      .flatMap((c) =>
        c.consumes
          .filter((f) => f.required && f.source === 'suite')
          .map((f) => ({ unit: c.unit, family: f.family })),
      )
    const outside = needs
      .filter((n) => !(producersOf.get(n.family) ?? []).some((p) => memberSet.has(p)))
      .map((n) => ({ ...n, producers: producersOf.get(n.family) ?? [] }))
    const missing = outside.filter((o) => o.producers.length === 0)
    return {
      profile_key: key,
      required_units: required,
      optional_units: optional,
      invariants: sorted(members.flatMap((m) => m.invariants)),
      families: sorted(
        contracts.filter((c) => memberSet.has(c.unit)).flatMap((c) => c.produces.map((f) => f.family)),
      ),
      external_dependencies: outside,
      status: missing.length === 0 ? ('complete' as const) : ('incomplete' as const),
      missing_families: missing.map((m) => m.family),
    }
  })
}

export function deriveOptionalSlices(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const byFamily = new Map(matrix.cells.map((c) => [c.family, c]))
  return contracts.flatMap((c) =>
    c.optional_slices.map((s) => {
      const dependents = s.families.flatMap((f) =>
        (byFamily.get(f)?.consumers ?? [])
          .filter((x) => x.required)
          .map((x) => ({ unit: x.unit, family: f })),
      )
      return {
        slice_key: s.slice_key,
        unit: c.unit,
        title: s.title,
        description: s.description,
        families: s.families,
        toggle: s.toggle,
        default_enabled: s.default_enabled,
        required_by: dependents,
        // A slice that is off by default must not be required by anyone.
        status: !s.default_enabled && dependents.length > 0 ? ('conflict' as const) : ('consistent' as const),
      }
    }),
  )
}

export function deriveVoiceContracts(contracts: readonly UnitContract[]) {
  const matrix = deriveMatrix(contracts)
  const families = matrix.cells.filter((c) => c.family.startsWith('voice.'))
  const familySet = new Set(families.map((f) => f.family))
  return {
    families: families.map((f) => ({
      family: f.family,
      version: f.version,
      producers: f.producers,
      consumers: f.consumers.map((c) => c.unit),
    })),
    events: deriveEventCatalog(contracts).filter((e) => familySet.has(e.family)),
  }
}

/** The admitted-surface contract of the spec (PWS part). */
export const ADMITTED_SURFACE = {
  auth_mode: 'oidc_claim_projection',
  consumer_posture: 'native_oidc_session_consumer',
} as const

export function deriveVersionTruth(contracts: readonly UnitContract[]) {
  return contracts.map((c) => ({
    unit: c.unit,
    contract_version: c.version,
    family_versions: Object.fromEntries(c.produces.map((f) => [f.family, f.version])),
    version_surface: c.version_surface.path,
    version_source: c.version_surface.source,
  }))
}

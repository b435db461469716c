/**
 * Drift: where a live surface, a shipped manifest or the docs contradict the contract. The
 * contract is truth; an observation only ever produces a finding, never a new truth.
 */
import type { UnitContract } from '../../../common/contract.ts'
import { ADMITTED_SURFACE } from './derive.ts'
import type { DocsFinding } from './docs.ts'

export type SurfaceKind = 'liveness' | 'manifest' | 'workspace_facts' | 'membership_facts'

export interface Observation {
  unit: string
  surface: SurfaceKind
  url: string
  observed_at: string
  ok: boolean
  status: number | null
  reason: string | null
  message: string | null
  latency_ms: number
  body: unknown
}

export interface DriftItem {
  unit: string
  kind: string
  severity: 'blocking' | 'warning'
  source: 'manifest' | 'live' | 'docs' | 'facts'
  message: string
  contract_value: unknown
  observed_value: unknown
  observed_at: string | null
}

export interface Unobserved {
  unit: string
  reason: string
}

const setEq = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join()

function get(obj: unknown, path: string): unknown {
  let cur = obj
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[k]
  }
  return cur
}

/** A port policy is published as its name or as an object naming it beside the ports (RMS). */
const policyOf = (v: unknown) =>
  v !== null && typeof v === 'object' && 'policy' in v ? (v as { policy: unknown }).policy : v

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string')

/** Manifest fields PRS reads back, with the contract value each must equal. */
function manifestExpectations(c: UnitContract) {
  return [
    { field: 'unit', expected: c.unit },
    { field: 'contract_version', expected: c.version },
    { field: 'producer_families', expected: c.produces.map((f) => f.family) },
    { field: 'consumer_families', expected: c.consumes.map((f) => f.family) },
    { field: 'runtime_contract.port_policy', expected: c.port_policy },
    { field: 'runtime_contract.liveness', expected: c.liveness },
  ]
}

export function manifestDrift(c: UnitContract, obs: Observation): DriftItem[] {
  const base = { unit: c.unit, source: 'manifest' as const, observed_at: obs.observed_at }
  if (!obs.ok) {
    if (obs.status === 404) {
      return [
        {
          ...base,
          kind: 'manifest_missing',
          severity: 'blocking',
          message: `the contract declares ${c.manifest_path}, the live unit answers 404`,
          contract_value: c.manifest_path,
          observed_value: 404,
        },
      ]
    }
    if (obs.reason === 'bad_body' || obs.reason === 'bad_status') {
      return [
        {
          ...base,
          kind: 'manifest_unreadable',
          severity: 'blocking',
          message: `${c.manifest_path} gave no usable manifest: ${obs.message ?? obs.reason}`,
          contract_value: c.manifest_path,
          observed_value: obs.status,
        },
      ]
    }
    return [
      {
        ...base,
        kind: 'manifest_unobservable',
        severity: 'warning',
        message: `${c.manifest_path} could not be read: ${obs.message ?? obs.reason ?? 'no answer'}`,
        contract_value: c.manifest_path,
        observed_value: null,
      },
    ]
  }
  if (obs.body === null || typeof obs.body !== 'object' || Array.isArray(obs.body)) {
    return [
      {
        ...base,
        kind: 'manifest_unreadable',
        severity: 'blocking',
        message: `${c.manifest_path} is not a JSON object`,
        contract_value: c.manifest_path,
        observed_value: typeof obs.body,
      },
    ]
  }
  const out: DriftItem[] = []
  for (const { field, expected } of manifestExpectations(c)) {
    const raw = get(obs.body, field)
    const seen = field === 'runtime_contract.port_policy' ? policyOf(raw) : raw
    if (seen === undefined) {
      out.push({
        ...base,
        kind: 'manifest_field_absent',
        severity: 'warning',
        message: `the manifest does not publish ${field}`,
        contract_value: expected,
        observed_value: null,
      })
      continue
    }
    const same = Array.isArray(expected) ? isStringArray(seen) && setEq(expected, seen) : seen === expected
    if (!same) {
      const detail =
        Array.isArray(expected) && isStringArray(seen)
          ? `: missing ${expected.filter((x) => !seen.includes(x)).join(', ') || 'none'}; extra ${seen.filter((x) => !expected.includes(x)).join(', ') || 'none'}`
          : ''
      out.push({
        ...base,
        kind: 'manifest_contradicts_contract',
        severity: 'blocking',
        message: `manifest ${field} contradicts the contract${detail}`,
        contract_value: expected,
        observed_value: seen,
      })
    }
  }
  return out
}

export function livenessDrift(c: UnitContract, obs: Observation, url: string): DriftItem[] {
  const out: DriftItem[] = []
  if (!obs.ok && obs.status === 404) {
    out.push({
      unit: c.unit,
      kind: 'liveness_route_missing',
      severity: 'blocking',
      source: 'live',
      message: `the contract's liveness route ${c.liveness} answers 404`,
      contract_value: c.liveness,
      observed_value: 404,
      observed_at: obs.observed_at,
    })
  }
  const port = c.ports[0]
  let observedPort: number | null = null
  try {
    const u = new URL(url)
    observedPort = Number(u.port || (u.protocol === 'https:' ? 443 : 80))
  } catch {
    observedPort = null
  }
  if (port?.policy === 'static-required' && observedPort !== null && observedPort !== port.port) {
    out.push({
      unit: c.unit,
      kind: 'static_port_differs',
      severity: 'warning',
      source: 'live',
      message: `port ${port.port} is static-required, the unit is observed at port ${observedPort} (a proxy may stand between)`,
      contract_value: port.port,
      observed_value: observedPort,
      observed_at: obs.observed_at,
    })
  }
  return out
}

export function membershipDrift(c: UnitContract, obs: Observation): DriftItem[] {
  const out: DriftItem[] = []
  for (const s of c.identity_surfaces) {
    if (!obs.ok) continue
    const seen = get(obs.body, 'auth_mode') ?? get(obs.body, 'operator_console.auth_mode')
    if (seen !== undefined && seen !== s.auth_mode) {
      out.push({
        unit: c.unit,
        kind: 'identity_surface_contradicts_contract',
        severity: 'blocking',
        source: 'facts',
        message: `membership facts publish auth_mode ${JSON.stringify(seen)}, the contract admits ${s.surface_key} as ${s.auth_mode}`,
        contract_value: s.auth_mode,
        observed_value: seen,
        observed_at: obs.observed_at,
      })
    }
    if (s.auth_mode !== ADMITTED_SURFACE.auth_mode) {
      out.push({
        unit: c.unit,
        kind: 'identity_surface_not_admissible',
        severity: 'blocking',
        source: 'facts',
        message: `${s.surface_key} declares auth_mode ${s.auth_mode}; the admitted-surface contract requires ${ADMITTED_SURFACE.auth_mode}`,
        contract_value: ADMITTED_SURFACE.auth_mode,
        observed_value: s.auth_mode,
        observed_at: obs.observed_at,
      })
    }
  }
  return out
}

/** A doc that states another port or liveness route than the contract contradicts it. */
export function docsContradictions(contracts: readonly UnitContract[], findings: DocsFinding[]): DriftItem[] {
  const out: DriftItem[] = []
  for (const f of findings) {
    const c = contracts.find((x) => x.unit === f.unit)
    if (!c) continue
    const base = { unit: f.unit, source: 'docs' as const, severity: 'blocking' as const, observed_at: null }
    const ports = c.ports.flatMap((p) => (p.container_port ? [p.port, p.container_port] : [p.port]))
    if (f.claims.port !== null && !ports.includes(f.claims.port)) {
      out.push({
        ...base,
        kind: 'docs_contradict_contract',
        message: `${f.entrypoint} states port ${f.claims.port}, the contract declares ${ports.join(', ') || 'none'}`,
        contract_value: ports,
        observed_value: f.claims.port,
      })
    }
    if (f.claims.liveness !== null && f.claims.liveness !== c.liveness) {
      out.push({
        ...base,
        kind: 'docs_contradict_contract',
        message: `${f.entrypoint} states liveness ${f.claims.liveness}, the contract declares ${c.liveness ?? 'none'}`,
        contract_value: c.liveness,
        observed_value: f.claims.liveness,
      })
    }
  }
  return out
}

export function docsDrift(findings: DocsFinding[]): DriftItem[] {
  return findings
    .filter((f) => f.status !== 'ready')
    .map((f) => ({
      unit: f.unit,
      kind: f.exists ? 'docs_sections_missing' : 'docs_entrypoint_missing',
      severity: 'warning' as const,
      source: 'docs' as const,
      message: f.exists
        ? `${f.entrypoint} lacks the required sections ${f.sections_missing.join(', ')}`
        : `${f.entrypoint} is not in the repository`,
      contract_value: f.required_sections,
      observed_value: f.exists ? f.sections_found : null,
      observed_at: null,
    }))
}

export interface DriftReport {
  status: 'clean' | 'warnings' | 'blocking'
  blocking_count: number
  warning_count: number
  items: DriftItem[]
  unobserved: Unobserved[]
}

/**
 * `latest` holds the newest observation per (unit, surface); `urls` the units PRS was told to
 * observe. A unit that is down or not configured is reported as unobserved, not as drift.
 */
export function deriveDrift(
  contracts: readonly UnitContract[],
  latest: readonly Observation[],
  docs: DocsFinding[],
  urls: Record<string, string>,
): DriftReport {
  const items: DriftItem[] = []
  const unobserved: Unobserved[] = []
  for (const c of contracts) {
    if (c.identity.kind !== 'http') continue
    const url = urls[c.unit]
    if (!url) {
      unobserved.push({ unit: c.unit, reason: 'not configured in SVC_UNIT_URLS' })
      continue
    }
    const of = (s: SurfaceKind) => latest.find((o) => o.unit === c.unit && o.surface === s)
    const live = of('liveness')
    if (!live) {
      unobserved.push({ unit: c.unit, reason: 'not observed yet' })
      continue
    }
    items.push(...livenessDrift(c, live, url))
    if (!live.ok && live.status !== 404) {
      unobserved.push({
        unit: c.unit,
        reason: `liveness ${live.reason ?? 'failed'}: ${live.message ?? ''}`.trim(),
      })
      continue
    }
    const manifest = of('manifest')
    if (c.manifest_path && manifest) items.push(...manifestDrift(c, manifest))
    const membership = of('membership_facts')
    if (membership) items.push(...membershipDrift(c, membership))
  }
  items.push(...docsContradictions(contracts, docs), ...docsDrift(docs))
  const blocking = items.filter((i) => i.severity === 'blocking').length
  const warnings = items.length - blocking
  return {
    status: blocking > 0 ? 'blocking' : warnings > 0 ? 'warnings' : 'clean',
    blocking_count: blocking,
    warning_count: warnings,
    items,
    unobserved,
  }
}

/**
 * The services list and the four readiness views, in the spec's read order: services,
 * observability, security, recovery, signoff. A down unit degrades the views that depend on it
 * and is named in `degraded_by`; it never fails PRS.
 */
import type { UnitContract } from '../../../common/contract.ts'
import type { Matrix } from './derive.ts'
import type { DocsFinding } from './docs.ts'
import type { DriftReport, Observation } from './drift.ts'

export type ServiceState = 'up' | 'down' | 'not_configured' | 'not_observed_yet' | 'not_applicable'
export type ReadinessStatus = 'ready' | 'degraded' | 'blocked'

export interface ServiceEntry {
  unit: string
  title: string
  kind: 'http' | 'cli'
  lifecycle_posture: string
  port: number | null
  port_policy: string
  liveness: string | null
  url: string | null
  state: ServiceState
  http_status: number | null
  reason: string | null
  latency_ms: number | null
  last_observed_at: string | null
  contract_version: string
  dependents: string[]
}

export interface Degradation {
  unit: string
  reason: string
}

export function deriveServices(
  contracts: readonly UnitContract[],
  latest: readonly Observation[],
  urls: Record<string, string>,
): ServiceEntry[] {
  return contracts.map((c) => {
    const url = urls[c.unit] ?? null
    const live = latest.find((o) => o.unit === c.unit && o.surface === 'liveness')
    const produced = new Set(c.produces.map((f) => f.family))
    const dependents = contracts
      .filter((o) => o.unit !== c.unit && o.consumes.some((f) => produced.has(f.family)))
      .map((o) => o.unit)
    const state: ServiceState =
      c.identity.kind === 'cli'
        ? 'not_applicable'
        : !url
          ? 'not_configured'
          : !live
            ? 'not_observed_yet'
            : live.ok
              ? 'up'
              : 'down'
    return {
      unit: c.unit,
      title: c.identity.title,
      kind: c.identity.kind,
      lifecycle_posture: c.identity.lifecycle_posture,
      port: c.ports[0]?.port ?? null,
      port_policy: c.port_policy,
      liveness: c.liveness,
      url,
      state,
      http_status: live?.status ?? null,
      reason: live && !live.ok ? `${live.reason ?? 'failed'}: ${live.message ?? ''}`.trim() : null,
      latency_ms: live?.latency_ms ?? null,
      last_observed_at: live?.observed_at ?? null,
      contract_version: c.version,
      dependents,
    }
  })
}

const worst = (xs: ReadinessStatus[]): ReadinessStatus =>
  xs.includes('blocked') ? 'blocked' : xs.includes('degraded') ? 'degraded' : 'ready'

/** Units whose absence degrades a view: HTTP units that are down or not observable. */
export function degradations(services: ServiceEntry[]): Degradation[] {
  return services
    .filter((s) => s.kind === 'http' && s.state !== 'up')
    .map((s) => ({
      unit: s.unit,
      reason:
        s.state === 'down'
          ? `down: ${s.reason ?? 'no answer'}`
          : s.state === 'not_configured'
            ? 'not configured in SVC_UNIT_URLS'
            : 'not observed yet',
    }))
}

export function observabilityReadiness(contracts: readonly UnitContract[], services: ServiceEntry[]) {
  const units = contracts.map((c) => {
    const s = services.find((x) => x.unit === c.unit)!
    const findings: string[] = []
    if (c.operations.metrics_path === null && c.identity.kind === 'http')
      findings.push('no metrics surface declared')
    if (c.identity.kind === 'http' && s.state !== 'up')
      findings.push(`liveness ${s.state.replaceAll('_', ' ')}`)
    const status: ReadinessStatus = c.identity.kind === 'cli' || s.state === 'up' ? 'ready' : 'degraded'
    return {
      unit: c.unit,
      liveness: c.liveness,
      metrics_path: c.operations.metrics_path,
      manifest_path: c.manifest_path,
      readiness_surfaces: c.readiness_surfaces.map((r) => r.path),
      observed: s.state,
      last_observed_at: s.last_observed_at,
      status,
      findings,
    }
  })
  return { status: worst(units.map((u) => u.status)), units, degraded_by: degradations(services) }
}

export function securityReadiness(
  contracts: readonly UnitContract[],
  drift: DriftReport,
  services: ServiceEntry[],
) {
  const identityDrift = drift.items.filter(
    (i) => i.kind.startsWith('identity_surface') && i.severity === 'blocking',
  )
  const units = contracts.map((c) => {
    const findings: string[] = []
    if (c.identity.kind === 'http' && c.operations.fail_closed.length === 0)
      findings.push('no fail-closed condition declared')
    const open = c.readiness_surfaces.filter((r) => r.auth === 'none').map((r) => r.path)
    const blocked = identityDrift.filter((i) => i.unit === c.unit)
    for (const b of blocked) findings.push(b.message)
    const pwsFacts =
      c.identity_surfaces.length > 0 ? services.find((s) => s.unit === c.unit)?.state : undefined
    if (pwsFacts !== undefined && pwsFacts !== 'up') findings.push('identity surface facts not observed')
    const status: ReadinessStatus =
      blocked.length > 0 ? 'blocked' : findings.length > 0 ? 'degraded' : 'ready'
    return {
      unit: c.unit,
      auth_scheme: c.operations.auth_scheme,
      open_surfaces: open,
      fail_closed: c.operations.fail_closed,
      identity_surfaces: c.identity_surfaces.map((s) => s.surface_key),
      status,
      findings,
    }
  })
  const identityUnits = new Set(contracts.filter((c) => c.identity_surfaces.length > 0).map((c) => c.unit))
  return {
    status: worst(units.map((u) => u.status)),
    units,
    degraded_by: degradations(services).filter((d) => identityUnits.has(d.unit)),
  }
}

export function recoveryReadiness(
  contracts: readonly UnitContract[],
  services: ServiceEntry[],
  hasMigrations: (unit: string) => boolean,
) {
  const units = contracts.map((c) => {
    const s = services.find((x) => x.unit === c.unit)!
    const findings: string[] = []
    const migrations = c.operations.storage === 'sqlite' ? hasMigrations(c.unit) : null
    if (migrations === false)
      findings.push(`storage is sqlite but db/migrations/${c.unit} is not in the repository`)
    if (s.state === 'down') findings.push('down: recovery not demonstrated')
    const status: ReadinessStatus = findings.length > 0 ? 'degraded' : 'ready'
    return {
      unit: c.unit,
      storage: c.operations.storage,
      migrations_present: migrations,
      recovery: c.operations.recovery,
      observed: s.state,
      status,
      findings,
    }
  })
  return {
    status: worst(units.map((u) => u.status)),
    units,
    degraded_by: degradations(services).filter(
      (d) => services.find((s) => s.unit === d.unit)?.state === 'down',
    ),
  }
}

export function signoffReadiness(input: {
  services: ServiceEntry[]
  observability: ReadinessStatus
  security: ReadinessStatus
  recovery: ReadinessStatus
  drift: DriftReport
  docs: DocsFinding[]
  matrix: Matrix
}) {
  const down = input.services.filter((s) => s.state === 'down')
  const unresolvedRequired = input.matrix.unresolved.filter((u) => u.required)
  const docsNotReady = input.docs.filter((d) => d.status !== 'ready')
  const steps: { step: number; name: string; route: string; status: ReadinessStatus; detail: string }[] = [
    { step: 1, name: 'health', route: '/health', status: 'ready', detail: 'PRS answers' },
    {
      step: 2,
      name: 'services',
      route: '/api/v1/platform/services',
      status: down.length > 0 ? 'degraded' : 'ready',
      detail: down.length > 0 ? `down: ${down.map((s) => s.unit).join(', ')}` : 'no observed unit is down',
    },
    {
      step: 3,
      name: 'observability',
      route: '/api/v1/observability/readiness',
      status: input.observability,
      detail: '',
    },
    { step: 4, name: 'security', route: '/api/v1/security/readiness', status: input.security, detail: '' },
    { step: 5, name: 'recovery', route: '/api/v1/recovery/readiness', status: input.recovery, detail: '' },
    {
      step: 6,
      name: 'drift',
      route: '/api/v1/contracts/drift',
      status:
        input.drift.blocking_count > 0 ? 'blocked' : input.drift.warning_count > 0 ? 'degraded' : 'ready',
      detail: `${input.drift.blocking_count} blocking, ${input.drift.warning_count} warnings`,
    },
    {
      step: 7,
      name: 'matrix',
      route: '/api/v1/contracts/matrix',
      status: unresolvedRequired.length > 0 ? 'blocked' : 'ready',
      detail:
        unresolvedRequired.length > 0
          ? `required families without a producer: ${unresolvedRequired.map((u) => u.family).join(', ')}`
          : 'every required suite family has a producer',
    },
    {
      step: 8,
      name: 'docs',
      route: '/api/v1/docs/readiness',
      status: docsNotReady.length > 0 ? 'degraded' : 'ready',
      detail:
        docsNotReady.length > 0
          ? `not ready: ${docsNotReady.map((d) => d.unit).join(', ')}`
          : 'all docs ready',
    },
  ]
  return {
    status: worst(steps.map((s) => s.status)),
    signed_off: steps.every((s) => s.status === 'ready'),
    steps,
    degraded_by: degradations(input.services),
  }
}

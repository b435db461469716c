/**
 * The derived views, cached. Contract-only views are derived once (the contracts cannot change
 * while the process runs); views that read observations or docs are derived on first read after a
 * change and reused until the next change. Every view carries `generated_at` and `contract_version`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CompatibilityMode, type UnitContract } from '../../../common/contract.ts'
import { literalValues } from '../../../common/schema.ts'
import { nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import { AdmissionVerdict } from '../model.ts'
import { CHECKLIST_ITEMS, requiredInput } from '../rules/admission.ts'
import {
  ADMISSION_STEPS,
  ADMITTED_SURFACE,
  contractVersionOf,
  deriveAgentContracts,
  deriveAgentWorkflow,
  deriveCombinationProfiles,
  deriveDependencyGraph,
  deriveEventCatalog,
  deriveMatrix,
  deriveOptionalSlices,
  deriveProjectionCatalog,
  deriveRegistry,
  deriveVersionTruth,
  deriveVoiceContracts,
  READ_ORDER,
} from '../rules/derive.ts'
import { type DocsFinding, deriveDocsStandard, docsFindings, safeDocsPath } from '../rules/docs.ts'
import { deriveDrift, type Observation } from '../rules/drift.ts'
import {
  degradations,
  deriveServices,
  observabilityReadiness,
  recoveryReadiness,
  securityReadiness,
  signoffReadiness,
} from '../rules/readiness.ts'
import { latestObservations } from '../store.ts'

export interface ViewDeps {
  storage: Storage
  contracts: readonly UnitContract[]
  urls: Record<string, string>
  repoDir: string
  suiteVersion: string
}

export interface CacheStats {
  hits: number
  misses: number
  generation: number
}

export function createViews(deps: ViewDeps) {
  const { contracts, urls } = deps
  const contract_version = contractVersionOf(contracts)
  let generation = 0
  const stats = { hits: 0, misses: 0 }
  const cache = new Map<string, { gen: number; value: unknown }>()

  /** A stamped view, derived once per generation (or once for ever when `stable`). */
  function view<T extends object>(
    key: string,
    stable: boolean,
    derive: () => T,
  ): () => T & { generated_at: string; contract_version: string } {
    return () => {
      const hit = cache.get(key)
      if (hit && (stable || hit.gen === generation)) {
        stats.hits++
        return hit.value as T & { generated_at: string; contract_version: string }
      }
      stats.misses++
      const value = { generated_at: nowIso(), contract_version, ...derive() }
      cache.set(key, { gen: generation, value })
      return value
    }
  }

  const readDoc = (path: string): string | null => {
    const safe = safeDocsPath(path)
    if (!safe) return null
    try {
      return readFileSync(join(deps.repoDir, safe), 'utf8')
    } catch {
      return null
    }
  }
  const hasMigrations = (unit: string) => existsSync(join(deps.repoDir, 'db', 'migrations', unit, 'index.ts'))

  let docs: DocsFinding[] = docsFindings(contracts, readDoc)
  let latest: Observation[] = []

  /** An unstamped intermediate result, shared by several views within one generation. */
  function memo<T>(key: string, derive: () => T): () => T {
    return () => {
      const hit = cache.get(`_${key}`)
      if (hit && hit.gen === generation) return hit.value as T
      const value = derive()
      cache.set(`_${key}`, { gen: generation, value })
      return value
    }
  }

  const matrix = deriveMatrix(contracts)
  const services = memo('services', () => deriveServices(contracts, latest, urls))
  const drift = memo('drift', () => deriveDrift(contracts, latest, docs, urls))
  const observability = memo('observability', () => observabilityReadiness(contracts, services()))
  const security = memo('security', () => securityReadiness(contracts, drift(), services()))
  const recovery = memo('recovery', () => recoveryReadiness(contracts, services(), hasMigrations))

  return {
    contract_version,
    contracts,
    urls,
    readDoc,
    stats: (): CacheStats => ({ ...stats, generation }),
    latest: () => latest,
    drift,
    services,
    /** At start: read the stored observations (the unit's start-up work). */
    async load() {
      latest = await latestObservations(deps.storage)
      generation++
    },
    /** After an observation round: re-read docs and observations; drop the cache when anything is new. */
    async refresh(newObservations: boolean) {
      const nextDocs = docsFindings(contracts, readDoc)
      const docsChanged = JSON.stringify(nextDocs) !== JSON.stringify(docs)
      if (newObservations || docsChanged) {
        const nextLatest = newObservations ? await latestObservations(deps.storage) : latest
        docs = nextDocs
        latest = nextLatest
        generation++
      }
    },

    registry: view('registry', true, () => ({ units: deriveRegistry(contracts) })),
    matrix: view('matrix', true, () => ({ version: contract_version, ...matrix })),
    docsStandard: view('docs-standard', true, () => deriveDocsStandard(contracts)),
    admissionGovernance: view('admission-governance', true, () => ({
      review_order: ADMISSION_STEPS,
      required_input: requiredInput(),
      checklist_items: CHECKLIST_ITEMS.map((i) => ({ key: i.key, summary: i.summary, na_allowed: i.na })),
      compatibility_modes: literalValues(CompatibilityMode),
      verdicts: literalValues(AdmissionVerdict),
      dry_run_route: 'POST /api/v1/tools/admission/dry-run',
      registered_tools: contracts.map((c) => ({
        unit: c.unit,
        tool_key: c.identity.tool_key,
        lifecycle_posture: c.identity.lifecycle_posture,
        compatibility_mode: c.compatibility_mode,
      })),
    })),
    projectionCatalog: view('projection-catalog', true, () => ({
      projections: deriveProjectionCatalog(contracts),
    })),
    eventCatalog: view('event-catalog', true, () => ({ events: deriveEventCatalog(contracts) })),
    dependencyGraph: view('dependency-graph', true, () => deriveDependencyGraph(contracts)),
    agentContracts: view('agent-contracts', true, () => ({ contracts: deriveAgentContracts(contracts) })),
    agentWorkflow: view('agent-workflow', true, () => deriveAgentWorkflow()),
    profiles: view('profiles', true, () => ({ profiles: deriveCombinationProfiles(contracts) })),
    slices: view('slices', true, () => ({ slices: deriveOptionalSlices(contracts) })),
    voice: view('voice', true, () => deriveVoiceContracts(contracts)),

    driftView: view('drift', false, () => ({
      ...drift(),
      degraded_by: degradations(services()),
    })),
    servicesView: view('services', false, () => ({
      read_order: READ_ORDER,
      services: services(),
      degraded_by: degradations(services()),
    })),
    docsPlatform: view('docs-platform', false, () => ({
      docs_root: 'docs',
      owner: 'repository',
      units: contracts.length,
      entrypoints: contracts.map((c) => ({ unit: c.unit, entrypoint: c.docs.entrypoint })),
      standard: '/api/v1/contracts/docs-standard',
      catalog: '/api/v1/docs/catalog',
      readiness: '/api/v1/docs/readiness',
      ready_count: docs.filter((d) => d.status === 'ready').length,
    })),
    docsCatalog: view('docs-catalog', false, () => ({ entries: docs })),
    docsReadiness: view('docs-readiness', false, () => {
      const notReady = docs.filter((d) => d.status !== 'ready')
      return {
        status: notReady.length === 0 ? ('ready' as const) : ('degraded' as const),
        ready: docs.length - notReady.length,
        total: docs.length,
        not_ready: notReady.map((d) => ({
          unit: d.unit,
          status: d.status,
          sections_missing: d.sections_missing,
        })),
      }
    }),
    versionTruth: view('version-truth', false, () => ({
      suite_version: deps.suiteVersion,
      units: deriveVersionTruth(contracts).map((v) => {
        const m = latest.find((o) => o.unit === v.unit && o.surface === 'manifest' && o.ok)
        const observed = (m?.body as { contract_version?: unknown } | undefined)?.contract_version
        const observed_version = typeof observed === 'string' ? observed : null
        return {
          ...v,
          observed_version,
          observed_at: m?.observed_at ?? null,
          agrees: observed_version === null ? null : observed_version === v.contract_version,
        }
      }),
    })),
    observability: view('observability', false, () => observability()),
    security: view('security', false, () => security()),
    recovery: view('recovery', false, () => recovery()),
    signoff: view('signoff', false, () =>
      signoffReadiness({
        services: services(),
        observability: observability().status,
        security: security().status,
        recovery: recovery().status,
        drift: drift(),
        docs,
        matrix,
      }),
    ),
    identityAdmission: view('identity-admission', false, () => {
      const driftItems = drift().items
      const surfaces = contracts.flatMap((c) =>
        c.identity_surfaces.map((s) => {
          const facts = latest.find((o) => o.unit === c.unit && o.surface === 'membership_facts')
          const contradictions = driftItems
            .filter((d) => d.unit === c.unit && d.kind.startsWith('identity_surface'))
            .map((d) => d.message)
          const admissible =
            s.auth_mode === ADMITTED_SURFACE.auth_mode &&
            s.consumer_posture === ADMITTED_SURFACE.consumer_posture
          const verdict =
            !admissible || contradictions.length > 0
              ? ('refused' as const)
              : facts?.ok
                ? ('admitted' as const)
                : ('admitted_unverified' as const)
          return {
            unit: c.unit,
            surface_key: s.surface_key,
            auth_mode: s.auth_mode,
            consumer_posture: s.consumer_posture,
            truth_owners: s.truth_owners,
            facts_path: s.facts_path ?? null,
            observed_facts: facts?.ok ? facts.body : null,
            observed_at: facts?.observed_at ?? null,
            verdict,
            reasons: [
              ...(admissible
                ? []
                : [
                    `the admitted-surface contract requires auth_mode ${ADMITTED_SURFACE.auth_mode} and consumer_posture ${ADMITTED_SURFACE.consumer_posture}`,
                  ]),
              ...contradictions,
              ...(facts && !facts.ok ? [`membership facts not readable: ${facts.reason ?? 'failed'}`] : []),
              ...(!facts ? ['membership facts not observed'] : []),
            ],
          }
        }),
      )
      return {
        admitted_surface_contract: ADMITTED_SURFACE,
        surfaces,
        degraded_by: degradations(services()).filter((d) => surfaces.some((s) => s.unit === d.unit)),
      }
    }),
    runtimeStatus: view('runtime-status', false, () => ({
      units: services()
        .filter((s) => s.kind === 'http')
        .map((s) => ({
          unit: s.unit,
          url: s.url,
          state: s.state,
          http_status: s.http_status,
          reason: s.reason,
          latency_ms: s.latency_ms,
          last_observed_at: s.last_observed_at,
        })),
      degraded_by: degradations(services()),
    })),
    runtimeContracts: view('runtime-contracts', false, () => ({
      units: contracts.map((c) => ({
        unit: c.unit,
        kind: c.identity.kind,
        ports: c.ports,
        port_policy: c.port_policy,
        liveness: c.liveness,
        manifest_path: c.manifest_path,
        readiness_surfaces: c.readiness_surfaces,
        verify: c.verify,
        observed_surfaces: latest
          .filter((o) => o.unit === c.unit)
          .map((o) => ({ surface: o.surface, ok: o.ok, status: o.status, observed_at: o.observed_at })),
      })),
    })),
    runtimeObservations: view('runtime-observations', false, () => ({
      observations: latest,
      degraded_by: degradations(services()),
    })),
  }
}

export type Views = ReturnType<typeof createViews>

/**
 * The machine-readable contract every unit ships beside its code (`units/<name>/contract.json`).
 * PRS derives its registry, matrix, docs standard and readiness views from these files; units that
 * publish `/platform-manifest.json` build it from their own contract with `platformManifest()`.
 */
import { type Static, Type as T } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export const CONTRACT_SCHEMA_ID = 'svc.unit-contract/1'

const KEY = '^[a-z][a-z0-9_]*$'
export const UnitName = T.String({ pattern: '^[a-z][a-z0-9-]*$', maxLength: 40, description: 'unit name' })
export const FamilyKey = T.String({
  pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$',
  maxLength: 120,
  description: 'contract family key: dotted snake_case, e.g. registry.contract_matrix',
})
export const SemVer = T.String({
  pattern: '^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$',
  description: 'semantic version',
})
const Key = (description: string) => T.String({ pattern: KEY, maxLength: 80, description })
const RoutePath = T.String({ pattern: '^/[^\\s]*$', maxLength: 300, description: 'an absolute route path' })

/** Confluent Schema Registry's compatibility modes. */
export const CompatibilityMode = T.Union(
  [
    T.Literal('BACKWARD'),
    T.Literal('BACKWARD_TRANSITIVE'),
    T.Literal('FORWARD'),
    T.Literal('FORWARD_TRANSITIVE'),
    T.Literal('FULL'),
    T.Literal('FULL_TRANSITIVE'),
    T.Literal('NONE'),
  ],
  { description: 'Confluent Schema Registry compatibility mode' },
)
export type CompatibilityMode = Static<typeof CompatibilityMode>

export const CapabilityClass = T.Union(
  [
    T.Literal('control_plane'),
    T.Literal('runtime_management'),
    T.Literal('adaptive_learning'),
    T.Literal('project_workflow'),
    T.Literal('public_edge'),
    T.Literal('data_service'),
    T.Literal('erp_integration'),
    T.Literal('workflow_tooling'),
    T.Literal('messaging'),
    T.Literal('telephony_stack'),
    T.Literal('memory_stack'),
  ],
  { description: 'capability class of the unit' },
)

export const LifecyclePosture = T.Union(
  [
    T.Literal('stable'),
    T.Literal('pilot'),
    T.Literal('optional'),
    T.Literal('internal'),
    T.Literal('deprecated'),
  ],
  {
    description: 'lifecycle posture',
  },
)

export const PortPolicy = T.Union(
  [T.Literal('static-required'), T.Literal('default-overridable'), T.Literal('none')],
  { description: 'static-required: consumers rely on the exact port; default-overridable: PORT may move it' },
)

/** The documentation sections a contract may require (PRS's docs rules say what satisfies each). */
export const DocsSection = T.Union(
  [
    T.Literal('tool_profile'),
    T.Literal('capabilities'),
    T.Literal('api'),
    T.Literal('configuration'),
    T.Literal('integrations'),
    T.Literal('decisions'),
    T.Literal('not_done'),
    T.Literal('open_source_inventory'),
    T.Literal('benchmarks'),
  ],
  {
    description: 'documentation section key',
  },
)
export type DocsSectionKey = Static<typeof DocsSection>

export const FieldType = T.Union([
  T.Literal('string'),
  T.Literal('integer'),
  T.Literal('number'),
  T.Literal('boolean'),
  T.Literal('object'),
  T.Literal('array'),
  T.Literal('timestamp'),
  T.Literal('null'),
])
export type FieldType = Static<typeof FieldType>

/** One field of a family's data schema: what compatibility checks compare. */
export const FieldSpec = T.Object(
  {
    type: T.Union([FieldType, T.Array(FieldType, { minItems: 1 })]),
    required: T.Boolean(),
  },
  { additionalProperties: false },
)
export type FieldSpec = Static<typeof FieldSpec>

export const FamilyFields = T.Record(T.String({ pattern: KEY }), FieldSpec)

export const Surface = T.Object(
  {
    method: T.Union([
      T.Literal('GET'),
      T.Literal('POST'),
      T.Literal('PUT'),
      T.Literal('PATCH'),
      T.Literal('DELETE'),
      T.Literal('CLI'),
      T.Literal('FILE'),
    ]),
    path: T.String({ minLength: 1, maxLength: 300, description: 'route path, command or file path' }),
  },
  { additionalProperties: false },
)

export const ProducedFamily = T.Object(
  {
    family: FamilyKey,
    version: SemVer,
    kind: T.Union(
      [
        T.Literal('api'),
        T.Literal('projection'),
        T.Literal('facts'),
        T.Literal('event'),
        T.Literal('file'),
        T.Literal('command'),
      ],
      { description: 'what kind of surface carries the family' },
    ),
    description: T.String({ minLength: 1, maxLength: 500 }),
    surfaces: T.Array(Surface),
    fields: FamilyFields,
  },
  { additionalProperties: false },
)
export type ProducedFamily = Static<typeof ProducedFamily>

export const ConsumedFamily = T.Object(
  {
    family: FamilyKey,
    required: T.Boolean({ description: 'false: the unit degrades, not fails, without it' }),
    source: T.Union([T.Literal('suite'), T.Literal('external')], {
      description: 'external: produced outside the suite (identity provider, runtime host, …)',
    }),
    via: T.Optional(T.String({ description: 'environment variable holding the producer address' })),
  },
  { additionalProperties: false },
)
export type ConsumedFamily = Static<typeof ConsumedFamily>

export const ReadinessSurface = T.Object(
  {
    kind: T.Union([
      T.Literal('liveness'),
      T.Literal('readiness'),
      T.Literal('version'),
      T.Literal('manifest'),
      T.Literal('metrics'),
      T.Literal('facts'),
      T.Literal('contract'),
      T.Literal('status'),
    ]),
    path: RoutePath,
    auth: T.Union([
      T.Literal('none'),
      T.Literal('bearer'),
      T.Literal('session'),
      T.Literal('hmac'),
      T.Literal('key'),
    ]),
  },
  { additionalProperties: false },
)

export const PortDeclaration = T.Object(
  {
    name: Key('port name'),
    port: T.Integer({ minimum: 1, maximum: 65535 }),
    policy: PortPolicy,
    container_port: T.Optional(T.Integer({ minimum: 1, maximum: 65535 })),
  },
  { additionalProperties: false },
)

export const EventDeclaration = T.Object(
  {
    name: Key('event name'),
    family: FamilyKey,
    delivery: T.Union([
      T.Literal('webhook'),
      T.Literal('outbox'),
      T.Literal('response_field'),
      T.Literal('file'),
      T.Literal('queue'),
      T.Literal('stream'),
      T.Literal('pull'),
    ]),
    description: T.String({ minLength: 1, maxLength: 500 }),
    payload_fields: T.Array(T.String({ pattern: KEY })),
  },
  { additionalProperties: false },
)

export const OptionalSlice = T.Object(
  {
    slice_key: T.String({ pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$', maxLength: 120 }),
    title: T.String({ minLength: 1, maxLength: 200 }),
    description: T.String({ minLength: 1, maxLength: 500 }),
    families: T.Array(FamilyKey),
    toggle: T.String({ minLength: 1, description: 'how the slice is switched on (variable or command)' }),
    default_enabled: T.Boolean(),
  },
  { additionalProperties: false },
)

export const ProfileMembership = T.Object(
  {
    profile_key: Key('combination profile key'),
    role: T.Union([T.Literal('required'), T.Literal('optional')]),
    invariants: T.Array(Key('invariant key')),
  },
  { additionalProperties: false },
)

export const IdentitySurface = T.Object(
  {
    surface_key: Key('admitted surface key'),
    auth_mode: T.String({ minLength: 1 }),
    consumer_posture: T.String({ minLength: 1 }),
    facts_path: T.Optional(RoutePath),
    truth_owners: T.Object(
      {
        session: T.String({ minLength: 1 }),
        upstream_readiness: T.String({ minLength: 1 }),
        projection: T.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

export const UnitContract = T.Object(
  {
    contract_schema: T.Literal(CONTRACT_SCHEMA_ID),
    unit: UnitName,
    version: SemVer,
    identity: T.Object(
      {
        tool_key: T.String({ pattern: '^[a-z][a-z0-9-]*$' }),
        title: T.String({ minLength: 1, maxLength: 200 }),
        capability_class: CapabilityClass,
        kind: T.Union([T.Literal('http'), T.Literal('cli')]),
        lifecycle_posture: LifecyclePosture,
      },
      { additionalProperties: false },
    ),
    compatibility_mode: CompatibilityMode,
    produces: T.Array(ProducedFamily),
    consumes: T.Array(ConsumedFamily),
    docs: T.Object(
      {
        entrypoint: T.String({ pattern: '^[^/].*\\.md$', description: 'repository-relative markdown path' }),
        required_sections: T.Array(DocsSection, { minItems: 1 }),
      },
      { additionalProperties: false },
    ),
    verify: T.Object(
      {
        entrypoint: T.String({ minLength: 1, description: 'command that verifies the unit' }),
        readiness_targets: T.Array(
          T.String({
            pattern: '^([a-z][a-z0-9-]*:)?/[^\\s]*$',
            description: 'a path on the unit itself, or `<unit>:/path` on another unit',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    liveness: T.Union([RoutePath, T.Null()]),
    readiness_surfaces: T.Array(ReadinessSurface),
    ports: T.Array(PortDeclaration),
    port_policy: PortPolicy,
    manifest_path: T.Union([RoutePath, T.Null()]),
    version_surface: T.Object(
      { path: T.Union([RoutePath, T.Null()]), source: T.String({ minLength: 1 }) },
      { additionalProperties: false },
    ),
    events: T.Array(EventDeclaration),
    optional_slices: T.Array(OptionalSlice),
    combination_profiles: T.Array(ProfileMembership),
    identity_surfaces: T.Array(IdentitySurface),
    operations: T.Object(
      {
        auth_scheme: T.String({ minLength: 1 }),
        storage: T.Union([T.Literal('sqlite'), T.Literal('files'), T.Literal('none')]),
        metrics_path: T.Union([RoutePath, T.Null()]),
        fail_closed: T.Array(T.String({ minLength: 1 }), {
          description: 'conditions under which the unit refuses rather than guesses',
        }),
        recovery: T.String({ minLength: 1, description: 'how the unit comes back after a crash' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: CONTRACT_SCHEMA_ID },
)
export type UnitContract = Static<typeof UnitContract>

export interface ContractProblem {
  path: string
  message: string
}

/** Schema problems of a contract, plus the rules a schema cannot express. */
export function contractProblems(value: unknown): ContractProblem[] {
  if (!Value.Check(UnitContract, value)) {
    return [...Value.Errors(UnitContract, value)]
      .slice(0, 50)
      .map((e) => ({ path: e.path || '/', message: e.message }))
  }
  const c = value as UnitContract
  const problems: ContractProblem[] = []
  const dup = <X>(xs: X[], key: (x: X) => string, where: string) => {
    const seen = new Set<string>()
    for (const x of xs) {
      const k = key(x)
      if (seen.has(k)) problems.push({ path: where, message: `duplicate ${k}` })
      seen.add(k)
    }
  }
  dup(c.produces, (f) => f.family, '/produces')
  dup(c.consumes, (f) => f.family, '/consumes')
  dup(c.events, (e) => e.name, '/events')
  dup(c.optional_slices, (s) => s.slice_key, '/optional_slices')
  dup(c.combination_profiles, (p) => p.profile_key, '/combination_profiles')
  const produced = new Set(c.produces.map((f) => f.family))
  for (const f of c.consumes) {
    if (produced.has(f.family))
      problems.push({ path: '/consumes', message: `${f.family} is both produced and consumed` })
  }
  for (const e of c.events) {
    if (!produced.has(e.family))
      problems.push({
        path: '/events',
        message: `event ${e.name} names family ${e.family} the unit does not produce`,
      })
  }
  for (const s of c.optional_slices) {
    for (const f of s.families) {
      if (!produced.has(f))
        problems.push({
          path: '/optional_slices',
          message: `slice ${s.slice_key} names unproduced family ${f}`,
        })
    }
  }
  if (c.identity.kind === 'http') {
    if (c.liveness === null)
      problems.push({ path: '/liveness', message: 'an HTTP unit declares its liveness route' })
    if (c.ports.length === 0) problems.push({ path: '/ports', message: 'an HTTP unit declares its port' })
    if (
      c.liveness !== null &&
      !c.readiness_surfaces.some((s) => s.kind === 'liveness' && s.path === c.liveness)
    ) {
      problems.push({
        path: '/readiness_surfaces',
        message: 'the liveness route is listed as a liveness surface',
      })
    }
  }
  if (c.manifest_path !== null && !c.readiness_surfaces.some((s) => s.path === c.manifest_path)) {
    problems.push({
      path: '/readiness_surfaces',
      message: 'the manifest path is listed as a readiness surface',
    })
  }
  return problems
}

/** The unit's HTTP port: the first declared port (the unit's own listener). */
export const primaryPort = (c: UnitContract): number | null => c.ports[0]?.port ?? null

/**
 * What `/platform-manifest.json` publishes, derived from the contract so the two cannot drift.
 * Units add their own claims with a spread (for example RMS's `compatibility` claims); PRS reads
 * `unit`, `contract_version`, `producer_families`, `consumer_families`, `events` and
 * `runtime_contract` back when it looks for drift.
 */
export function platformManifest(c: UnitContract) {
  return {
    manifest_version: '2',
    unit: c.unit,
    tool_key: c.identity.tool_key,
    capability_class: c.identity.capability_class,
    lifecycle_posture: c.identity.lifecycle_posture,
    contract_version: c.version,
    producer_families: c.produces.map((f) => f.family),
    consumer_families: c.consumes.map((f) => f.family),
    family_versions: Object.fromEntries(c.produces.map((f) => [f.family, f.version])),
    events: c.events.map((e) => e.name),
    docs_entrypoint: c.docs.entrypoint,
    runtime_contract: {
      port: primaryPort(c),
      port_policy: c.port_policy,
      liveness: c.liveness,
      readiness_surfaces: c.readiness_surfaces.map((s) => s.path),
    },
    compatibility: { mode: c.compatibility_mode },
    registry: { owner: 'repository', contract_file: `units/${c.unit}/contract.json` },
  }
}
export type PlatformManifest = ReturnType<typeof platformManifest>

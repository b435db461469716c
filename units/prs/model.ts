/** TypeBox schemas of PRS's routes, named after the spec's resources. */
import { type TProperties, type TSchema, Type } from '@sinclair/typebox'
// Type.Integer, not Elysia's t.Integer: t.Integer carries a string-to-number transform meant
// for query strings, and encoding it costs ~30 µs per response (docs/benchmarks.md).
import { t } from 'elysia'
import { CompatibilityMode } from '../../common/contract.ts'

const S = t.String()
const Strings = t.Array(t.String())
const N = <X extends TSchema>(s: X) => t.Union([s, t.Null()])
const Status = t.Union([t.Literal('ready'), t.Literal('degraded'), t.Literal('blocked')])
const Degradation = t.Array(t.Object({ unit: S, reason: S }), {
  description: 'units whose absence degrades this view',
})

const stamp = {
  generated_at: t.String({ format: 'date-time', description: 'when this view was derived' }),
  contract_version: t.String({ description: 'digest of the unit contracts this view derives from' }),
}
/** Every JSON view: its own fields plus `generated_at` and `contract_version`. */
const View = <P extends TProperties>(props: P, description: string) =>
  t.Object({ ...stamp, ...props }, { description })

export const HealthResponse = t.Object({
  status: t.Literal('ok'),
  service: t.Literal('prs'),
  version: S,
  contract_version: S,
  units: Type.Integer(),
  observed_units: Type.Integer(),
  generated_at: t.String({ format: 'date-time' }),
})

const Consumer = t.Object({ unit: S, required: t.Boolean() })
export const MatrixResponse = View(
  {
    version: t.String({ description: 'the contract version the matrix derives from' }),
    producer_families: t.Array(S, { description: 'family keys with a producer in the suite' }),
    consumer_families: t.Array(S, { description: 'suite family keys some unit consumes' }),
    cells: t.Array(
      t.Object({ family: S, version: S, kind: S, producers: Strings, consumers: t.Array(Consumer) }),
    ),
    external_families: t.Array(t.Object({ family: S, consumers: Strings })),
    unresolved: t.Array(t.Object({ family: S, consumers: Strings, required: t.Boolean() })),
    unconsumed: Strings,
  },
  'Producer x consumer family matrix',
)

export const RegistryResponse = View(
  {
    units: t.Array(
      t.Object({
        unit: S,
        tool_key: S,
        title: S,
        kind: S,
        capability_class: S,
        lifecycle_posture: S,
        version: S,
        compatibility_mode: S,
        contract_file: S,
        contract_hash: S,
        producer_families: Strings,
        consumer_families: Strings,
        port: N(Type.Integer()),
        port_policy: S,
        liveness: N(S),
        manifest_path: N(S),
        docs_entrypoint: S,
        verify_entrypoint: S,
      }),
    ),
  },
  'Contract registry',
)

const DriftItem = t.Object({
  unit: S,
  kind: S,
  severity: t.Union([t.Literal('blocking'), t.Literal('warning')]),
  source: S,
  message: S,
  contract_value: t.Unknown(),
  observed_value: t.Unknown(),
  observed_at: N(S),
})
export const DriftResponse = View(
  {
    status: t.Union([t.Literal('clean'), t.Literal('warnings'), t.Literal('blocking')]),
    blocking_count: Type.Integer(),
    warning_count: Type.Integer(),
    items: t.Array(DriftItem),
    unobserved: t.Array(t.Object({ unit: S, reason: S })),
    degraded_by: Degradation,
  },
  'Drift between contracts, manifests, docs and live surfaces',
)

export const DocsStandardResponse = View(
  {
    sections: t.Array(
      t.Object({
        key: S,
        heading_words: Strings,
        required_by: Strings,
        mandatory_for_admission: t.Boolean(),
      }),
    ),
    required_for_every_unit: Strings,
    mandatory_for_admission: Strings,
    rule: S,
  },
  'Docs standard',
)

const DocsFinding = t.Object({
  unit: S,
  entrypoint: S,
  exists: t.Boolean(),
  required_sections: Strings,
  sections_found: Strings,
  sections_missing: Strings,
  status: t.Union([t.Literal('ready'), t.Literal('incomplete'), t.Literal('missing')]),
  claims: t.Object(
    { port: N(Type.Integer()), liveness: N(S) },
    { description: 'port and liveness route the opening paragraph states' },
  ),
})
export const DocsPlatformResponse = View(
  {
    docs_root: S,
    owner: S,
    units: Type.Integer(),
    entrypoints: t.Array(t.Object({ unit: S, entrypoint: S })),
    standard: S,
    catalog: S,
    readiness: S,
    ready_count: Type.Integer(),
  },
  'Docs platform',
)
export const DocsCatalogResponse = View({ entries: t.Array(DocsFinding) }, 'Docs catalog')
export const DocsReadinessResponse = View(
  {
    status: t.Union([t.Literal('ready'), t.Literal('degraded')]),
    ready: Type.Integer(),
    total: Type.Integer(),
    not_ready: t.Array(t.Object({ unit: S, status: S, sections_missing: Strings })),
  },
  'Docs readiness',
)

const Step = t.Object({ step: Type.Integer(), name: S, summary: S })
export const AdmissionGovernanceResponse = View(
  {
    review_order: t.Array(Step),
    required_input: Strings,
    checklist_items: t.Array(t.Object({ key: S, summary: S, na_allowed: t.Boolean() })),
    compatibility_modes: Strings,
    verdicts: Strings,
    dry_run_route: S,
    registered_tools: t.Array(
      t.Object({ unit: S, tool_key: S, lifecycle_posture: S, compatibility_mode: S }),
    ),
  },
  'Admission governance',
)

export const ProjectionCatalogResponse = View(
  {
    projections: t.Array(
      t.Object({
        family: S,
        version: S,
        kind: S,
        producer: S,
        description: S,
        surfaces: Strings,
        consumers: Strings,
      }),
    ),
  },
  'Projection catalog',
)

export const VersionTruthResponse = View(
  {
    suite_version: S,
    units: t.Array(
      t.Object({
        unit: S,
        contract_version: S,
        family_versions: t.Record(S, S),
        version_surface: N(S),
        version_source: S,
        observed_version: N(S),
        observed_at: N(S),
        agrees: N(t.Boolean()),
      }),
    ),
  },
  'Version truth',
)

const ReadOrder = t.Array(t.Object({ step: Type.Integer(), name: S, route: S }))
const Service = t.Object({
  unit: S,
  title: S,
  kind: t.Union([t.Literal('http'), t.Literal('cli')]),
  lifecycle_posture: S,
  port: N(Type.Integer()),
  port_policy: S,
  liveness: N(S),
  url: N(S),
  state: t.Union([
    t.Literal('up'),
    t.Literal('down'),
    t.Literal('not_configured'),
    t.Literal('not_observed_yet'),
    t.Literal('not_applicable'),
  ]),
  http_status: N(Type.Integer()),
  reason: N(S),
  latency_ms: N(Type.Integer()),
  last_observed_at: N(S),
  contract_version: S,
  dependents: Strings,
})
export const ServicesResponse = View(
  { read_order: ReadOrder, services: t.Array(Service), degraded_by: Degradation },
  'Services list',
)

const Event = t.Object({
  name: S,
  unit: S,
  family: S,
  delivery: S,
  description: S,
  payload_fields: Strings,
  consumers: Strings,
})
export const EventCatalogResponse = View({ events: t.Array(Event) }, 'Event-modeling catalog')
export const DependencyGraphResponse = View(
  {
    nodes: t.Array(t.Object({ id: S, kind: S })),
    edges: t.Array(t.Object({ from: S, to: S, family: S, required: t.Boolean() })),
    external_edges: t.Array(t.Object({ from: S, to: S, family: S })),
    unresolved: t.Array(t.Object({ family: S, consumers: Strings, required: t.Boolean() })),
    required_cycles: t.Array(Strings),
    start_order: N(Strings),
  },
  'Dependency graph',
)
export const AgentContractsResponse = View(
  {
    contracts: t.Array(
      t.Object({
        family: S,
        version: S,
        producers: Strings,
        consumers: t.Array(Consumer),
        description: S,
        surfaces: Strings,
        fields: t.Array(t.Object({ name: S, type: S, required: t.Boolean() })),
      }),
    ),
  },
  'Agent contracts',
)
export const AgentWorkflowResponse = View(
  {
    readiness_read_order: ReadOrder,
    admission_review_order: t.Array(t.Object({ step: Type.Integer(), name: S, summary: S, route: S })),
    rules: Strings,
  },
  'Agent workflow',
)

const UnitFindings = { unit: S, status: Status, findings: Strings }
export const ObservabilityResponse = View(
  {
    status: Status,
    units: t.Array(
      t.Object({
        ...UnitFindings,
        liveness: N(S),
        metrics_path: N(S),
        manifest_path: N(S),
        readiness_surfaces: Strings,
        observed: S,
        last_observed_at: N(S),
      }),
    ),
    degraded_by: Degradation,
  },
  'Observability readiness',
)
export const SecurityResponse = View(
  {
    status: Status,
    units: t.Array(
      t.Object({
        ...UnitFindings,
        auth_scheme: S,
        open_surfaces: Strings,
        fail_closed: Strings,
        identity_surfaces: Strings,
      }),
    ),
    degraded_by: Degradation,
  },
  'Security readiness',
)
export const RecoveryResponse = View(
  {
    status: Status,
    units: t.Array(
      t.Object({
        ...UnitFindings,
        storage: S,
        migrations_present: N(t.Boolean()),
        recovery: S,
        observed: S,
      }),
    ),
    degraded_by: Degradation,
  },
  'Recovery readiness',
)
export const SignoffResponse = View(
  {
    status: Status,
    signed_off: t.Boolean(),
    steps: t.Array(t.Object({ step: Type.Integer(), name: S, route: S, status: Status, detail: S })),
    degraded_by: Degradation,
  },
  'Signoff readiness',
)

export const HostSnapshotResponse = View(
  {
    service: t.Literal('prs'),
    version: S,
    pid: Type.Integer(),
    runtime: S,
    platform: S,
    started_at: S,
    uptime_s: t.Number(),
    memory_rss_bytes: Type.Integer(),
    database: t.Object({
      ready: t.Boolean(),
      observations: Type.Integer(),
      registered_versions: Type.Integer(),
    }),
    observer: t.Object({
      interval_ms: Type.Integer(),
      timeout_ms: Type.Integer(),
      keep_per_surface: Type.Integer(),
      configured_units: Strings,
      rounds: Type.Integer(),
      last_round_at: N(S),
      last_round_ms: N(Type.Integer()),
      running: t.Boolean(),
    }),
    cache: t.Object({ hits: Type.Integer(), misses: Type.Integer(), generation: Type.Integer() }),
  },
  'Host snapshot of the PRS process',
)
export const RuntimeStatusResponse = View(
  {
    units: t.Array(
      t.Object({
        unit: S,
        url: N(S),
        state: S,
        http_status: N(Type.Integer()),
        reason: N(S),
        latency_ms: N(Type.Integer()),
        last_observed_at: N(S),
      }),
    ),
    degraded_by: Degradation,
  },
  'Runtime status of the observed units',
)
const ObservationSchema = t.Object({
  unit: S,
  surface: S,
  url: S,
  observed_at: S,
  ok: t.Boolean(),
  status: N(Type.Integer()),
  reason: N(S),
  message: N(S),
  latency_ms: Type.Integer(),
  body: t.Unknown(),
})
export const RuntimeEvidenceResponse = View(
  { unit: N(S), limit: Type.Integer(), observations: t.Array(ObservationSchema) },
  'Stored observation history, newest first',
)
export const RuntimeEvidenceQuery = t.Object({
  unit: t.Optional(t.String({ pattern: '^[a-z][a-z0-9-]*$', maxLength: 40 })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 100 })),
})
export const RuntimeContractsResponse = View(
  {
    units: t.Array(
      t.Object({
        unit: S,
        kind: S,
        ports: t.Array(
          t.Object({
            name: S,
            port: Type.Integer(),
            policy: S,
            container_port: t.Optional(Type.Integer()),
          }),
        ),
        port_policy: S,
        liveness: N(S),
        manifest_path: N(S),
        readiness_surfaces: t.Array(t.Object({ kind: S, path: S, auth: S })),
        verify: t.Object({ entrypoint: S, readiness_targets: Strings }),
        observed_surfaces: t.Array(
          t.Object({ surface: S, ok: t.Boolean(), status: N(Type.Integer()), observed_at: S }),
        ),
      }),
    ),
  },
  'Runtime contracts with observed surfaces',
)
export const RuntimeObservationsResponse = View(
  { observations: t.Array(ObservationSchema), degraded_by: Degradation },
  'Newest observation of every unit surface',
)

export const IdentityAdmissionResponse = View(
  {
    admitted_surface_contract: t.Object({ auth_mode: S, consumer_posture: S }),
    surfaces: t.Array(
      t.Object({
        unit: S,
        surface_key: S,
        auth_mode: S,
        consumer_posture: S,
        truth_owners: t.Object({ session: S, upstream_readiness: S, projection: S }),
        facts_path: N(S),
        observed_facts: t.Unknown(),
        observed_at: N(S),
        verdict: t.Union([t.Literal('admitted'), t.Literal('admitted_unverified'), t.Literal('refused')]),
        reasons: Strings,
      }),
    ),
    degraded_by: Degradation,
  },
  'Identity surface admission',
)

export const VoiceContractsResponse = View(
  {
    families: t.Array(t.Object({ family: S, version: S, producers: Strings, consumers: Strings })),
    events: t.Array(Event),
  },
  'Voice event contracts',
)
export const ProfilesResponse = View(
  {
    profiles: t.Array(
      t.Object({
        profile_key: S,
        required_units: Strings,
        optional_units: Strings,
        invariants: Strings,
        families: Strings,
        external_dependencies: t.Array(t.Object({ unit: S, family: S, producers: Strings })),
        status: t.Union([t.Literal('complete'), t.Literal('incomplete')]),
        missing_families: Strings,
      }),
    ),
  },
  'Combination profiles',
)
const Slice = t.Object({
  slice_key: S,
  unit: S,
  title: S,
  description: S,
  families: Strings,
  toggle: S,
  default_enabled: t.Boolean(),
  required_by: t.Array(t.Object({ unit: S, family: S })),
  status: t.Union([t.Literal('consistent'), t.Literal('conflict')]),
})
export const SlicesResponse = View({ slices: t.Array(Slice) }, 'Optional slices')
export const SliceResponse = View({ slice: Slice }, 'One optional slice')

export const CompatibilityRequest = t.Object(
  {
    subject_kind: t.Union([t.Literal('unit'), t.Literal('family')], {
      description: 'what the subject names',
    }),
    subject: t.String({ minLength: 1, maxLength: 120, description: 'unit name or family key' }),
    proposed: t.Unknown({
      description: 'unit: a full unit contract (svc.unit-contract/1); family: a produced-family declaration',
    }),
    compatibility_mode: t.Optional(CompatibilityMode),
  },
  { additionalProperties: false },
)
const IncompatibilitySchema = t.Object({
  type: S,
  location: S,
  message: S,
  against_version: S,
  direction: S,
})
export const CompatibilityResponse = View(
  {
    is_compatible: t.Boolean(),
    subject_kind: S,
    subject: S,
    compatibility_mode: S,
    mode_source: t.Union([t.Literal('request'), t.Literal('registered')]),
    compared_versions: Strings,
    registered_versions: Type.Integer(),
    incompatibilities: t.Array(IncompatibilitySchema),
    messages: Strings,
  },
  'Compatibility verdict with reasons',
)

export const AdmissionRequest = t.Record(t.String(), t.Unknown(), {
  description: 'Admission input: see GET /api/v1/contracts/admission-governance (required_input)',
})
export const AdmissionVerdict = t.Union([t.Literal('admissible'), t.Literal('refused'), t.Literal('blocked')])
export const AdmissionResponse = View(
  {
    dry_run: t.Literal(true),
    persisted: t.Literal(false),
    tool_key: S,
    verdict: AdmissionVerdict,
    steps: t.Array(
      t.Object({
        step: Type.Integer(),
        name: S,
        verdict: t.Union([t.Literal('pass'), t.Literal('fail'), t.Literal('blocked')]),
        reasons: Strings,
      }),
    ),
    incompatibilities: t.Array(IncompatibilitySchema),
    readbacks: t.Array(t.Object({ surface: S, ok: t.Boolean(), status: N(Type.Integer()), message: S })),
  },
  'Admission dry-run verdict per review step',
)

export const MonitoringResponse = View(
  {
    units: t.Object({
      total: Type.Integer(),
      http: Type.Integer(),
      observed: Type.Integer(),
      up: Type.Integer(),
      down: Type.Integer(),
    }),
    families: t.Object({
      produced: Type.Integer(),
      consumed: Type.Integer(),
      external: Type.Integer(),
      unresolved: Type.Integer(),
    }),
    drift: t.Object({ blocking: Type.Integer(), warnings: Type.Integer() }),
    observations: t.Object({ stored: Type.Integer(), rounds: Type.Integer(), last_round_at: N(S) }),
    checks: t.Object({
      compatibility_checks: Type.Integer(),
      compatibility_incompatible: Type.Integer(),
      admission_dry_runs: Type.Integer(),
      admission_admissible: Type.Integer(),
    }),
    policy: t.Object({
      signoff_status: Status,
      identity_surfaces_admitted: Type.Integer(),
      optional_slices: Type.Integer(),
      optional_slice_conflicts: Type.Integer(),
      combination_profiles_incomplete: Type.Integer(),
    }),
    cache: t.Object({ hits: Type.Integer(), misses: Type.Integer(), generation: Type.Integer() }),
  },
  'Tool and policy metrics',
)

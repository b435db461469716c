/** TypeBox schemas of TEL's repository files and of its `--json` documents. */
import { type Static, Type as T } from '@sinclair/typebox'
import {
  ChecksDocument,
  cliManifestFile,
  DifferenceSchema,
  ObservationSchema,
  VerdictSchema,
  VersionTruthSchema,
} from '../../common/cli.ts'
import { FamilyKey } from '../../common/contract.ts'

const S = T.String({ minLength: 1 })
const Strings = T.Array(S)
const closed = { additionalProperties: false }

/** The seven contract families of the spec that `svc tel verify` checks. */
export const VERIFY_FAMILIES = [
  'voice_router_runtime_slice',
  'telephony_adapter_slice',
  'stt_tts_flow_slice',
  'voice_runtime_validation_matrix',
  'combination_profile_consumer',
  'producer_consumer_adoption',
  'stack_source_of_truth',
] as const
export type VerifyFamily = (typeof VERIFY_FAMILIES)[number]
const VerifyFamilyKey = T.Union(VERIFY_FAMILIES.map((f) => T.Literal(f)))

const Port = T.Object(
  {
    name: S,
    port: T.Integer({ minimum: 1, maximum: 65535 }),
    policy: T.Union([T.Literal('static-required'), T.Literal('configurable')]),
    purpose: S,
  },
  closed,
)
const SliceRef = { slice_key: S }

/** `units/tel/stack.json`: canonical ports, volumes, startup and verify truth. */
export const StackFile = T.Object(
  {
    $schema: T.Optional(T.String()),
    stack_schema: T.Literal('svc.tel-stack/1'),
    unit: T.Literal('tel'),
    ports: T.Array(Port, { minItems: 1 }),
    interface_port: T.Integer({ minimum: 1, maximum: 65535 }),
    gui_port: T.Integer({ minimum: 1, maximum: 65535 }),
    volumes: T.Array(T.Object({ name: S, mount: S, purpose: S }, closed)),
    router: T.Object(
      { ...SliceRef, enabled: T.Boolean(), runtime_host_liveness: S, target_source: FamilyKey },
      closed,
    ),
    telephony: T.Object(
      { ...SliceRef, enabled: T.Boolean(), info_route_auth: T.Literal('required') },
      closed,
    ),
    stt: T.Object({ ...SliceRef, event: S }, closed),
    tts: T.Object({ ...SliceRef, event: S }, closed),
    stt_tts: T.Object({ ...SliceRef, enabled: T.Boolean() }, closed),
    events: T.Array(T.Object({ name: S, payload_fields: Strings }, closed)),
    combination_profile: T.Object({ profile_key: S, invariants: Strings }, closed),
    startup: T.Object({ order: Strings, ready_when: S }, closed),
    verify: T.Object({ entrypoint: S, families: T.Array(VerifyFamilyKey) }, closed),
  },
  { ...closed, $id: 'svc.tel-stack/1', title: 'TEL stack contract' },
)
export type StackFile = Static<typeof StackFile>

/** `units/tel/manifest.json`. */
export const ManifestFile = cliManifestFile('tel', 'TEL manifest')
export type ManifestFile = Static<typeof ManifestFile>

/** `units/tel/features.json`: the machine-readable feature registry. */
export const FeaturesFile = T.Object(
  {
    $schema: T.Optional(T.String()),
    features_schema: T.Literal('svc.tel-features/1'),
    unit: T.Literal('tel'),
    features: T.Array(
      T.Object(
        {
          key: S,
          title: S,
          families: T.Array(FamilyKey, { minItems: 1 }),
          slice_key: T.Union([S, T.Null()]),
          default_enabled: T.Boolean(),
          verified_by: VerifyFamilyKey,
        },
        closed,
      ),
    ),
  },
  { ...closed, $id: 'svc.tel-features/1', title: 'TEL feature registry' },
)
export type FeaturesFile = Static<typeof FeaturesFile>

// ----------------------------------------------------------------------------------------------
// `--json` documents.

export const VerifyDocument = ChecksDocument({
  registry_url: T.Union([T.String(), T.Null()]),
  families: T.Array(T.Object({ family: VerifyFamilyKey, verdict: VerdictSchema })),
})

export const ManifestDocument = ChecksDocument({ manifest: ManifestFile })

/** The surfaces TEL reads, by key (`prs:/api/v1/contracts/matrix`, `runtime_host:/healthz`, …). */
export const SURFACE_KEYS = [
  'prs:/api/v1/contracts/matrix',
  'prs:/api/v1/contracts/docs-standard',
  'prs:/api/v1/voice/contracts/events',
  'prs:/api/v1/combinations/profiles',
  'prs:/api/v1/combinations/optional-slices',
  'runtime_host:/healthz',
  'telephony:info',
  'telephony:info(no credentials)',
] as const
export type SurfaceKey = (typeof SURFACE_KEYS)[number]

export const SnapshotFile = T.Object({
  snapshot_schema: T.Literal('svc.tel-snapshot/1'),
  unit: T.Literal('tel'),
  taken_at: T.String({ format: 'date-time' }),
  version: VersionTruthSchema,
  surfaces: T.Record(T.String(), ObservationSchema),
  files: T.Object({
    stack: T.Unknown(),
    manifest: T.Unknown(),
    features: T.Unknown(),
    contract: T.Unknown(),
  }),
})
export type SnapshotFile = Static<typeof SnapshotFile>

export const SnapshotDocument = T.Object({
  path: T.String(),
  taken_at: T.String(),
  surfaces: T.Array(T.Object({ key: T.String(), ok: T.Boolean(), status: T.Union([T.Integer(), T.Null()]) })),
})

export const DriftDocument = ChecksDocument({
  mode: T.Union([T.Literal('snapshot_vs_repository'), T.Literal('snapshot_vs_snapshot')]),
  compared: Strings,
  differences: T.Array(T.Intersect([T.Object({ check: T.String() }), DifferenceSchema])),
})

// ----------------------------------------------------------------------------------------------
// What TEL reads from PRS: only the fields it judges (PRS may publish more).

const Loose = { additionalProperties: true }
export const PrsMatrix = T.Object(
  {
    contract_version: S,
    version: S,
    producer_families: Strings,
    consumer_families: Strings,
    cells: T.Array(
      T.Object({
        family: S,
        version: S,
        producers: Strings,
        consumers: T.Array(T.Object({ unit: S, required: T.Boolean() })),
      }),
    ),
    external_families: T.Array(T.Object({ family: S, consumers: Strings })),
  },
  Loose,
)
export const PrsDocsStandard = T.Object(
  {
    contract_version: S,
    sections: T.Array(T.Object({ key: S, heading_words: Strings, required_by: Strings })),
  },
  Loose,
)
export const PrsVoiceContracts = T.Object(
  {
    contract_version: S,
    families: T.Array(T.Object({ family: S, version: S, producers: Strings, consumers: Strings })),
    events: T.Array(T.Object({ name: S, unit: S, family: S, payload_fields: Strings })),
  },
  Loose,
)
export const PrsProfiles = T.Object(
  {
    contract_version: S,
    profiles: T.Array(
      T.Object({
        profile_key: S,
        required_units: Strings,
        optional_units: Strings,
        invariants: Strings,
        status: S,
        missing_families: Strings,
      }),
    ),
  },
  Loose,
)
export const PrsSlices = T.Object(
  {
    contract_version: S,
    slices: T.Array(
      T.Object({ slice_key: S, unit: S, families: Strings, default_enabled: T.Boolean(), status: S }),
    ),
  },
  Loose,
)

/** TypeBox schemas of MEM's repository files, of what it reads from its peers, and of its `--json` documents. */
import { type Static, Type as T } from '@sinclair/typebox'
import { ChecksDocument, cliManifestFile, ObservationSchema, VersionTruthSchema } from '../../common/cli.ts'
import { FamilyKey } from '../../common/contract.ts'

const S = T.String({ minLength: 1 })
const Strings = T.Array(S)
const closed = { additionalProperties: false }
const Loose = { additionalProperties: true }

/** Qdrant's distance names. */
export const Distance = T.Union([
  T.Literal('Cosine'),
  T.Literal('Euclid'),
  T.Literal('Dot'),
  T.Literal('Manhattan'),
])
export type Distance = Static<typeof Distance>

export const StackFile = T.Object(
  {
    $schema: T.Optional(T.String()),
    stack_schema: T.Literal('svc.mem-stack/1'),
    unit: T.Literal('mem'),
    ports: T.Array(T.Object({ name: S, port: T.Integer(), policy: S }, closed)),
    volumes: T.Array(T.Object({ name: S, mount: S, purpose: S }, closed)),
    embedding: T.Object(
      {
        api: T.Literal('openai-compatible'),
        routes: Strings,
        model: T.Union([S, T.Null()], { description: 'null: the first model the runtime lists' }),
        dimension: T.Union([T.Integer({ minimum: 1 }), T.Null()], {
          description: 'null: learned from a real embedding',
        }),
      },
      closed,
    ),
    vector_store: T.Object({ api: T.Literal('qdrant-rest'), collection: S, distance: Distance }, closed),
    startup: T.Object({ order: Strings, ready_when: S }, closed),
    verify: T.Object({ entrypoint: S, commands: Strings }, closed),
  },
  { ...closed, $id: 'svc.mem-stack/1', title: 'MEM stack contract' },
)
export type StackFile = Static<typeof StackFile>

export const ManifestFile = cliManifestFile('mem', 'MEM manifest')
export type ManifestFile = Static<typeof ManifestFile>

export const FeaturesFile = T.Object(
  {
    $schema: T.Optional(T.String()),
    features_schema: T.Literal('svc.mem-features/1'),
    unit: T.Literal('mem'),
    features: T.Array(
      T.Object({ key: S, title: S, families: T.Array(FamilyKey), commands: Strings }, closed),
    ),
  },
  { ...closed, $id: 'svc.mem-features/1', title: 'MEM feature registry' },
)
export type FeaturesFile = Static<typeof FeaturesFile>

// What MEM reads (only the fields it judges).
export const ModelsBody = T.Object({ data: T.Array(T.Object({ id: S }, Loose)) }, Loose)
export const EmbeddingsBody = T.Object(
  {
    data: T.Array(T.Object({ embedding: T.Array(T.Number(), { minItems: 1 }), index: T.Integer() }, Loose), {
      minItems: 1,
    }),
  },
  Loose,
)
export const CollectionBody = T.Object(
  {
    result: T.Object(
      {
        status: T.Optional(T.String()),
        points_count: T.Optional(T.Union([T.Integer(), T.Null()])),
        config: T.Object(
          {
            params: T.Object(
              { vectors: T.Object({ size: T.Integer(), distance: T.String() }, Loose) },
              Loose,
            ),
          },
          Loose,
        ),
      },
      Loose,
    ),
  },
  Loose,
)
export const CollectionsBody = T.Object(
  { result: T.Object({ collections: T.Array(T.Object({ name: S }, Loose)) }, Loose) },
  Loose,
)
export const SearchBody = T.Object(
  { result: T.Array(T.Object({ id: T.Union([T.String(), T.Integer()]), score: T.Number() }, Loose)) },
  Loose,
)
export const PrsMatrix = T.Object(
  {
    version: S,
    producer_families: Strings,
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
export const PrsObservability = T.Object(
  { status: S, units: T.Array(T.Object({ unit: S, status: S, observed: S, findings: Strings }, Loose)) },
  Loose,
)

// `--json` documents.
export const ChecksOutput = ChecksDocument({})
export const InstallOutput = ChecksDocument({
  collection: S,
  model: T.Union([S, T.Null()]),
  dimension: T.Union([T.Integer(), T.Null()]),
  distance: Distance,
  data_dir: S,
})

export const SnapshotFile = T.Object({
  snapshot_schema: T.Literal('svc.mem-snapshot/1'),
  unit: T.Literal('mem'),
  taken_at: T.String({ format: 'date-time' }),
  version: VersionTruthSchema,
  collection: S,
  readyz: ObservationSchema,
  models: T.Array(S),
  model: T.Union([S, T.Null()]),
  dimension: T.Union([T.Integer(), T.Null()]),
  collections: T.Array(
    T.Object({
      name: S,
      size: T.Union([T.Integer(), T.Null()]),
      distance: T.Union([T.String(), T.Null()]),
      points_count: T.Union([T.Integer(), T.Null()]),
      snapshots: T.Array(T.String()),
    }),
  ),
  unavailable: T.Array(T.String(), { description: 'what could not be read, and why' }),
  stack: T.Unknown(),
})
export type SnapshotFile = Static<typeof SnapshotFile>
export const SnapshotOutput = T.Object({
  path: S,
  taken_at: S,
  models: T.Array(S),
  collections: T.Array(S),
  unavailable: Strings,
})
export const DriftOutput = ChecksDocument({
  mode: T.Union([T.Literal('snapshot_vs_repository'), T.Literal('snapshot_vs_snapshot')]),
  compared: Strings,
  differences: T.Array(T.Object({ check: S, path: S, expected: T.Unknown(), observed: T.Unknown() })),
})
export const BundleOutput = ChecksDocument({ path: S, created_at: S, entries: Strings })

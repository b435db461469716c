/**
 * MEM: the memory-stack repository's command-line unit. No network API of its own; it prepares
 * and checks an OpenAI-compatible embedding runtime and a Qdrant collection, and exports
 * snapshots, drift, package metadata and status bundles under dist/.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Type as T } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  artifactDir,
  artifactStamp,
  type Check,
  checksOutcome,
  defineCli,
  driftChecks,
  EXIT_OK,
  type Fact,
  newestArtifact,
  noAnswerReason,
  type Outcome,
  overall,
  PACKAGE_METADATA_FILE,
  packageMetadataOutcome,
  readJsonArtifact,
  redactedEnv,
  redactValues,
  renderChecks,
  SECRET_VARIABLE,
  UsageError,
  versionTruth,
  writeJsonArtifact,
} from '../../common/cli.ts'
import { urlString } from '../../common/config.ts'
import { contract, FILE_PATHS, fileProblems, shippedFiles } from './files.ts'
import {
  Distance,
  PrsMatrix,
  PrsObservability,
  type SnapshotFile,
  SnapshotFile as SnapshotSchema,
} from './model.ts'
import { collectionCheck, compatibility, modelChecks, unanswered } from './rules/checks.ts'
import { tar } from './rules/tar.ts'
import * as rt from './service/runtime.ts'

const SNAPSHOT_PREFIX = 'mem-snapshot-'
const SMOKE_TEXTS = [
  'the cat sat on the mat',
  'quarterly revenue grew by four percent',
  'a recipe for sourdough bread',
]

export const memEnv = {
  MEM_EMBEDDING_URL: T.Optional(urlString('the root URL of an OpenAI-compatible embedding runtime')),
  MEM_EMBEDDING_MODEL: T.Optional(T.String({ minLength: 1, description: 'a model id the runtime lists' })),
  MEM_EMBEDDING_API_KEY: T.Optional(T.String({ minLength: 1, description: 'a bearer token' })),
  MEM_VECTOR_STORE_URL: T.Optional(urlString('the Qdrant REST base URL')),
  MEM_VECTOR_STORE_API_KEY: T.Optional(T.String({ minLength: 1, description: "Qdrant's api-key" })),
  MEM_COLLECTION: T.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z0-9_-]+$',
    default: shippedFiles.stack.vector_store.collection,
    description: 'a collection name',
  }),
  MEM_VECTOR_DISTANCE: {
    ...Distance,
    default: shippedFiles.stack.vector_store.distance,
    description: 'Cosine, Euclid, Dot or Manhattan',
  },
  MEM_VECTOR_SIZE: T.Optional(T.Integer({ minimum: 1, maximum: 65_536, description: 'an integer 1-65536' })),
  MEM_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 10_000,
    description: 'milliseconds 100-120000',
  }),
  SVC_REGISTRY_URL: T.Optional(urlString('the PRS base URL')),
  SVC_DATA_DIR: T.String({ minLength: 1, default: './data', description: 'a directory path' }),
  SVC_DIST_DIR: T.String({ minLength: 1, default: 'dist', description: 'a directory path' }),
}
const ENV_NAMES = Object.keys(memEnv)

type Config = rt.RuntimeConfig & { SVC_REGISTRY_URL?: string; SVC_DATA_DIR: string; SVC_DIST_DIR: string }

const dataDir = (c: Config) => join(c.SVC_DATA_DIR, 'mem')
const INSTALL_RECORD = 'install.json'

function filesCheck(): Check {
  const problems = fileProblems(shippedFiles)
  return problems.length === 0
    ? {
        name: 'files.valid',
        status: 'passed',
        reason: 'stack.json, manifest.json and features.json match their schemas',
      }
    : { name: 'files.valid', status: 'failed', reason: problems.join('; ') }
}

function writable(name: string, dir: string): Check {
  try {
    mkdirSync(dir, { recursive: true })
    const probe = join(dir, '.write-probe')
    writeFileSync(probe, '')
    Bun.file(probe).delete?.()
    return { name, status: 'passed', reason: `${dir} exists and is writable` }
  } catch (err) {
    return { name, status: 'failed', reason: `${dir}: ${(err as Error).message}` }
  }
}

/** The model and collection checks every runtime command shares. */
async function runtimeChecks(c: Config) {
  const [probe, collection] = await Promise.all([
    c.MEM_EMBEDDING_URL ? rt.probeModel(c) : Promise.resolve(null),
    rt.getCollection(c),
  ])
  const checks = [
    ...(probe ? modelChecks(probe, c.MEM_EMBEDDING_MODEL) : []),
    collectionCheck(c.MEM_COLLECTION, collection),
  ]
  if (collection.ok)
    checks.push(
      compatibility(c.MEM_COLLECTION, collection.body, {
        modelDimension: probe ? probe.dimension : null,
        configuredSize: c.MEM_VECTOR_SIZE,
        distance: c.MEM_VECTOR_DISTANCE,
      }),
    )
  return { probe, collection, checks }
}

async function install(c: Config) {
  const checks: Check[] = [filesCheck(), writable('data_dir', dataDir(c))]
  const probe = await rt.probeModel(c)
  checks.push(...modelChecks(probe, c.MEM_EMBEDDING_MODEL))
  const dimension = probe.dimension.ok ? probe.dimension.body : null
  if (dimension !== null && c.MEM_VECTOR_SIZE !== undefined && dimension !== c.MEM_VECTOR_SIZE)
    checks.push({
      name: 'config.dimension',
      status: 'failed',
      reason: `MEM_VECTOR_SIZE ${c.MEM_VECTOR_SIZE}, the model produces ${dimension}`,
    })
  const size = dimension ?? c.MEM_VECTOR_SIZE ?? null
  const existing = await rt.getCollection(c)
  if (!existing.ok)
    checks.push(unanswered('vector_store.collection', existing, `collection ${c.MEM_COLLECTION}`))
  else if (existing.body === null) {
    if (size === null || checks.some((x) => x.status === 'failed'))
      checks.push({
        name: 'vector_store.create',
        status: 'unknown',
        reason: 'collection not created: the dimension is not known or a check failed',
      })
    else {
      const made = await rt.createCollection(c, size, c.MEM_VECTOR_DISTANCE)
      checks.push(
        made.ok
          ? {
              name: 'vector_store.create',
              status: 'passed',
              reason: `created collection ${c.MEM_COLLECTION} (${size}/${c.MEM_VECTOR_DISTANCE})`,
            }
          : unanswered('vector_store.create', made, `PUT collection ${c.MEM_COLLECTION}`),
      )
    }
  } else {
    checks.push(
      compatibility(c.MEM_COLLECTION, existing.body, {
        modelDimension: probe.dimension,
        configuredSize: c.MEM_VECTOR_SIZE,
        distance: c.MEM_VECTOR_DISTANCE,
      }),
    )
  }
  const record = {
    collection: c.MEM_COLLECTION,
    model: probe.model,
    dimension: size,
    distance: c.MEM_VECTOR_DISTANCE,
    data_dir: dataDir(c),
  }
  if (overall(checks) === 'passed')
    writeJsonArtifact(dataDir(c), INSTALL_RECORD, {
      ...record,
      installed_at: new Date().toISOString(),
      version: versionTruth().version,
    })
  return checksOutcome(
    `mem install: collection ${c.MEM_COLLECTION} at ${c.MEM_VECTOR_STORE_URL}`,
    checks,
    record,
  )
}

async function smokeTest(c: Config): Promise<Check[]> {
  const { probe, checks } = await runtimeChecks(c)
  if (checks.some((x) => x.status !== 'passed') || !probe?.model) return checks
  const vectors = await rt.embed(c, probe.model, SMOKE_TEXTS)
  if (!vectors.ok) return [...checks, unanswered('smoke.embed', vectors, 'POST /v1/embeddings')]
  const ordered = [...vectors.body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding)
  checks.push({
    name: 'smoke.embed',
    status: ordered.length === SMOKE_TEXTS.length ? 'passed' : 'failed',
    reason: `${ordered.length} embeddings for ${SMOKE_TEXTS.length} texts`,
  })
  const run = Bun.randomUUIDv7()
  const ids = ordered.map(() => crypto.randomUUID())
  const up = await rt.upsertPoints(
    c,
    ordered.map((vector, i) => ({
      id: ids[i] ?? '',
      vector,
      payload: { smoke_test: run, text: SMOKE_TEXTS[i] },
    })),
  )
  if (!up.ok) return [...checks, unanswered('smoke.upsert', up, 'PUT points')]
  checks.push({ name: 'smoke.upsert', status: 'passed', reason: `${ids.length} points upserted (wait=true)` })
  const hit = await rt.searchPoints(c, ordered[0] ?? [], 3)
  if (!hit.ok) checks.push(unanswered('smoke.search', hit, 'POST points/search'))
  else {
    const top = hit.body.result[0]
    checks.push(
      top && String(top.id) === ids[0]
        ? {
            name: 'smoke.search',
            status: 'passed',
            reason: `the first text finds its own point first (score ${top.score})`,
          }
        : {
            name: 'smoke.search',
            status: 'failed',
            reason: `search returned ${top ? `point ${top.id}` : 'nothing'}, expected ${ids[0]}`,
          },
    )
  }
  const gone = await rt.deletePoints(c, ids)
  checks.push(
    gone.ok
      ? { name: 'smoke.cleanup', status: 'passed', reason: 'smoke points deleted' }
      : unanswered('smoke.cleanup', gone, 'delete points'),
  )
  return checks
}

async function runtimeContractChecks(c: Config & { SVC_REGISTRY_URL: string }): Promise<Check[]> {
  const base = c.SVC_REGISTRY_URL.replace(/\/+$/, '')
  const [matrix, readiness] = await Promise.all(
    ['/api/v1/contracts/matrix', '/api/v1/observability/readiness'].map((p) =>
      rt.call(c, `${base}${p}`, {}, p.includes('matrix') ? PrsMatrix : PrsObservability),
    ),
  )
  const checks: Check[] = [filesCheck()]
  if (!matrix?.ok)
    checks.push(
      matrix
        ? unanswered('prs.matrix', matrix, 'PRS contract matrix')
        : { name: 'prs.matrix', status: 'unknown', reason: 'no answer' },
    )
  else {
    const m = matrix.body as import('@sinclair/typebox').Static<typeof PrsMatrix>
    const problems = [
      ...contract.produces.flatMap((f) => {
        const cell = m.cells.find((x) => x.family === f.family)
        if (!cell?.producers.includes('mem')) return [`${f.family} not produced by mem in the matrix`]
        return cell.version === f.version ? [] : [`${f.family} ${cell.version} in PRS, ${f.version} here`]
      }),
      ...contract.consumes.flatMap((f) => {
        if (f.source === 'external')
          return m.external_families.find((e) => e.family === f.family)?.consumers.includes('mem')
            ? []
            : [`external ${f.family} does not list mem`]
        const cell = m.cells.find((x) => x.family === f.family)
        if (!cell || cell.producers.length === 0) return [`${f.family} has no producer`]
        return cell.consumers.some((x) => x.unit === 'mem' && x.required === f.required)
          ? []
          : [`${f.family} does not list mem as consumer`]
      }),
    ]
    checks.push(
      problems.length === 0
        ? {
            name: 'prs.matrix',
            status: 'passed',
            reason: `${contract.produces.length} produced and ${contract.consumes.length} consumed families agree (matrix ${m.version})`,
          }
        : { name: 'prs.matrix', status: 'failed', reason: problems.join('; ') },
    )
  }
  if (!readiness?.ok)
    checks.push(
      readiness
        ? unanswered('prs.readiness', readiness, 'PRS observability readiness')
        : { name: 'prs.readiness', status: 'unknown', reason: 'no answer' },
    )
  else {
    const mine = (readiness.body as import('@sinclair/typebox').Static<typeof PrsObservability>).units.find(
      (u) => u.unit === 'mem',
    )
    checks.push(
      !mine
        ? { name: 'prs.readiness', status: 'failed', reason: 'PRS readiness lists no mem' }
        : mine.status === 'ready'
          ? {
              name: 'prs.readiness',
              status: 'passed',
              reason: `mem is ready in PRS (observed ${mine.observed})`,
            }
          : {
              name: 'prs.readiness',
              status: 'failed',
              reason: `mem is ${mine.status} in PRS: ${mine.findings.join('; ')}`,
            },
    )
  }
  return checks
}

async function takeSnapshot(c: Config): Promise<SnapshotFile> {
  const unavailable: string[] = []
  const [probe, list] = await Promise.all([rt.probeModel(c), rt.listCollections(c)])
  if (!probe.models.ok) unavailable.push(noAnswerReason(probe.models.observation, 'GET /v1/models'))
  if (!probe.dimension.ok)
    unavailable.push(noAnswerReason(probe.dimension.observation, 'POST /v1/embeddings'))
  if (!list.ok) unavailable.push(noAnswerReason(list.observation, 'GET /collections'))
  const names = list.ok ? list.body.result.collections.map((x) => x.name) : []
  const collections = await Promise.all(
    names.map(async (name) => {
      const info = await rt.getCollection({ ...c, MEM_COLLECTION: name })
      const snaps = await rt.listSnapshots(c, name)
      if (!info.ok) unavailable.push(noAnswerReason(info.observation, `collection ${name}`))
      const v = info.ok ? info.body?.result : undefined
      return {
        name,
        size: v?.config.params.vectors.size ?? null,
        distance: v?.config.params.vectors.distance ?? null,
        points_count: v?.points_count ?? null,
        snapshots: snaps.ok ? snaps.body.result.map((s) => s.name) : [],
      }
    }),
  )
  return {
    snapshot_schema: 'svc.mem-snapshot/1',
    unit: 'mem',
    taken_at: new Date().toISOString(),
    version: versionTruth(),
    collection: c.MEM_COLLECTION,
    readyz: probe.readyz,
    models: probe.models.ok ? probe.models.body.data.map((m) => m.id) : [],
    model: probe.model,
    dimension: probe.dimension.ok ? probe.dimension.body : null,
    collections,
    unavailable,
    stack: shippedFiles.stack,
  }
}

/** The facts of a snapshot that drift compares. */
function snapshotFacts(s: SnapshotFile, withLive: boolean): Record<string, Fact> {
  const mine = s.collections.find((x) => x.name === s.collection)
  const listed = !s.unavailable.some((u) => u.startsWith('GET /collections'))
  const facts: Record<string, Fact> = {
    'collection.present': listed
      ? { value: mine !== undefined }
      : { unknown: 'collections could not be listed when the snapshot was taken' },
    'collection.distance': mine
      ? { value: mine.distance }
      : { unknown: `collection ${s.collection} not in the snapshot` },
    'collection.size_matches_model':
      mine && s.dimension !== null
        ? { value: mine.size === s.dimension }
        : { unknown: 'the model dimension or the collection is not in the snapshot' },
    'files.stack': { value: s.stack },
  }
  if (withLive) {
    facts.models = { value: s.models }
    facts.model = { value: s.model }
    facts.dimension = { value: s.dimension }
    facts.collections = {
      value: Object.fromEntries(s.collections.map((x) => [x.name, { size: x.size, distance: x.distance }])),
    }
    facts.readyz = { value: s.readyz.ok ? s.readyz.status : `no answer (${s.readyz.failure})` }
  }
  return facts
}

function repoFacts(c: Config): Record<string, Fact> {
  const stack = shippedFiles.stack
  return {
    'collection.present': { value: true },
    'collection.distance': { value: c.MEM_VECTOR_DISTANCE },
    'collection.size_matches_model': { value: true },
    'files.stack': { value: stack },
  }
}

function readSnapshot(path: string): SnapshotFile {
  const doc = readJsonArtifact(path)
  if (!Value.Check(SnapshotSchema, doc))
    throw new UsageError(`${path} is not a MEM snapshot (svc.mem-snapshot/1)`)
  return doc
}

/** Status bundle: everything an operator attaches to a ticket, secrets redacted. */
async function statusBundle(c: Config, env: Record<string, string | undefined>): Promise<Outcome> {
  const createdAt = new Date().toISOString()
  const checks: Check[] = [filesCheck()]
  if (c.MEM_VECTOR_STORE_URL) checks.push(...(await runtimeChecks(c)).checks)
  else if (c.MEM_EMBEDDING_URL) checks.push(...modelChecks(await rt.probeModel(c), c.MEM_EMBEDDING_MODEL))
  if (!c.MEM_EMBEDDING_URL)
    checks.push({ name: 'embedding.readyz', status: 'unknown', reason: 'MEM_EMBEDDING_URL: not configured' })
  if (!c.MEM_VECTOR_STORE_URL)
    checks.push({
      name: 'vector_store.collection',
      status: 'unknown',
      reason: 'MEM_VECTOR_STORE_URL: not configured',
    })
  const secrets = Object.entries(env)
    .filter(([k, v]) => SECRET_VARIABLE.test(k) && v)
    .map(([, v]) => v as string)
  const files: { name: string; text: string }[] = [
    {
      name: 'status.json',
      text: JSON.stringify(
        {
          created_at: createdAt,
          version: versionTruth(),
          verdict: overall(checks),
          checks,
          configuration: redactedEnv(env, ENV_NAMES),
        },
        null,
        2,
      ),
    },
    ...Object.entries(FILE_PATHS).map(([k, p]) => ({
      name: `files/${basename(p)}`,
      text: JSON.stringify(shippedFiles[k as keyof typeof FILE_PATHS], null, 2),
    })),
    { name: 'files/contract.json', text: JSON.stringify(contract, null, 2) },
  ]
  const extra = [
    join(c.SVC_DIST_DIR, PACKAGE_METADATA_FILE),
    newestArtifact(c.SVC_DIST_DIR, SNAPSHOT_PREFIX),
    join(dataDir(c), INSTALL_RECORD),
  ]
  for (const path of extra)
    if (path && existsSync(path))
      files.push({ name: `artifacts/${basename(path)}`, text: readFileSync(path, 'utf8') })
  const redacted = files.map((f) => ({
    name: `mem-status-${artifactStamp(createdAt)}/${f.name}`,
    text: redactValues(f.text, secrets),
  }))
  const path = join(artifactDir(c.SVC_DIST_DIR), `mem-status-${artifactStamp(createdAt)}.tar.gz`)
  writeFileSync(path, gzipSync(tar(redacted)))
  const entries = redacted.map((f) => f.name)
  const outcome = checksOutcome('', checks, { path, created_at: createdAt, entries })
  return {
    ...outcome,
    exit: EXIT_OK,
    human: `wrote ${path} (${entries.length} files)\n${renderChecks('checks recorded in the bundle:', checks)}`,
  }
}

export const mem = defineCli({
  name: 'mem',
  title: 'memory-stack repository',
  env: memEnv,
  commands: {
    bootstrap: {
      summary: 'check the repository files and prepare the data and dist directories',
      run: async (ctx) => {
        const c = ctx.config as Config
        const checks = [filesCheck(), writable('data_dir', dataDir(c)), writable('dist_dir', c.SVC_DIST_DIR)]
        return checksOutcome('mem bootstrap', checks, { configuration: redactedEnv(ctx.env, ENV_NAMES) })
      },
    },
    install: {
      summary: "create the collection with the model's dimension and the configured distance",
      run: async (ctx) => {
        ctx.require('MEM_EMBEDDING_URL')
        ctx.require('MEM_VECTOR_STORE_URL')
        return install(ctx.config as Config)
      },
    },
    'smoke-test': {
      summary: 'embed, upsert, search and delete a few points end to end',
      run: async (ctx) => {
        ctx.require('MEM_EMBEDDING_URL')
        ctx.require('MEM_VECTOR_STORE_URL')
        return checksOutcome('mem smoke-test', await smokeTest(ctx.config as Config))
      },
    },
    'vector-store-check': {
      summary: "the collection's dimension and distance against the model's",
      run: async (ctx) => {
        ctx.require('MEM_VECTOR_STORE_URL')
        const c = ctx.config as Config
        return checksOutcome(`mem vector-store-check: ${c.MEM_COLLECTION}`, (await runtimeChecks(c)).checks)
      },
    },
    'self-check': {
      summary: 'files, embedding runtime, collection and compatibility',
      run: async (ctx) => {
        ctx.require('MEM_EMBEDDING_URL')
        ctx.require('MEM_VECTOR_STORE_URL')
        return checksOutcome('mem self-check', [
          filesCheck(),
          ...(await runtimeChecks(ctx.config as Config)).checks,
        ])
      },
    },
    'runtime-contract-check': {
      summary: "MEM's families and readiness in the live PRS",
      run: async (ctx) => {
        const url = ctx.require('SVC_REGISTRY_URL')
        return checksOutcome(
          `mem runtime-contract-check against ${url}`,
          await runtimeContractChecks({ ...(ctx.config as Config), SVC_REGISTRY_URL: url }),
        )
      },
    },
    snapshot: {
      summary: 'export the runtime state (models, dimension, collections) under dist/',
      run: async (ctx) => {
        ctx.require('MEM_EMBEDDING_URL')
        ctx.require('MEM_VECTOR_STORE_URL')
        const c = ctx.config as Config
        const doc = await takeSnapshot(c)
        const path = writeJsonArtifact(
          c.SVC_DIST_DIR,
          `${SNAPSHOT_PREFIX}${artifactStamp(doc.taken_at)}.json`,
          doc,
        )
        const json = {
          path,
          taken_at: doc.taken_at,
          models: doc.models,
          collections: doc.collections.map((x) => x.name),
          unavailable: doc.unavailable,
        }
        const human = [
          `wrote ${path}`,
          `model ${doc.model ?? '-'} (${doc.dimension ?? '?'} dimensions) of [${doc.models.join(', ')}]`,
          ...doc.collections.map(
            (x) => `collection ${x.name}: ${x.size}/${x.distance}, ${x.points_count ?? '?'} points`,
          ),
          ...doc.unavailable.map((u) => `unavailable: ${u}`),
        ].join('\n')
        return { exit: EXIT_OK, human, json }
      },
    },
    drift: {
      summary: 'compare a snapshot with the stack contract, or two snapshots (exit 1 on drift)',
      args: '[<snapshot> [<other-snapshot>]]',
      positionals: { min: 0, max: 2 },
      run: async (ctx) => {
        const c = ctx.config as Config
        const [first, second] = ctx.positionals
        const path = first ?? newestArtifact(c.SVC_DIST_DIR, SNAPSHOT_PREFIX)
        if (!path)
          throw new UsageError(`no snapshot named and none under ${c.SVC_DIST_DIR}: run 'svc mem snapshot'`)
        const a = readSnapshot(path)
        const { checks, differences } = second
          ? driftChecks(snapshotFacts(a, true), snapshotFacts(readSnapshot(second), true))
          : driftChecks(repoFacts(c), snapshotFacts(a, false))
        const compared = second ? [path, second] : [path, 'repository files']
        return checksOutcome(`mem drift: ${compared.join(' vs ')}`, checks, {
          mode: second ? 'snapshot_vs_snapshot' : 'snapshot_vs_repository',
          compared,
          differences,
        })
      },
    },
    metadata: {
      summary: 'write dist/package-metadata.json (name, version truth, file digests)',
      run: async (ctx) =>
        packageMetadataOutcome((ctx.config as Config).SVC_DIST_DIR, {
          unit: 'mem',
          name: shippedFiles.manifest.tool_key,
          contract_version: contract.version,
          files: Object.entries(FILE_PATHS).map(([k, path]) => ({
            path,
            text: JSON.stringify(shippedFiles[k as keyof typeof FILE_PATHS]),
          })),
        }),
    },
    'status-bundle': {
      summary: 'a tar.gz under dist/ of status, checks, files and artifacts, secrets redacted',
      run: async (ctx) => statusBundle(ctx.config as Config, ctx.env),
    },
  },
})

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, PackageMetadataSchema } from '../../common/cli.ts'
import {
  captureIo,
  type FakePeer,
  fakePeer,
  type Json,
  json,
  listenForTest,
  tempDir,
} from '../../test/harness.ts'
import { prs } from '../prs/index.ts'
import { FILE_SCHEMAS, fileProblems, shippedFiles } from './files.ts'
import { mem } from './index.ts'
import {
  BundleOutput,
  ChecksOutput,
  DriftOutput,
  InstallOutput,
  SnapshotFile,
  SnapshotOutput,
} from './model.ts'
import { fakeEmbedding, fakeQdrant } from './testing.ts'

const ROOT = join(import.meta.dir, '../..')
const SECRET = 'qdrant-key-Zx81plantedSecret'

let registry: ReturnType<typeof listenForTest>
let embedding: FakePeer
let qdrant: ReturnType<typeof fakeQdrant>
const stopped = fakePeer(() => json({}))
stopped.stop()

beforeAll(() => {
  registry = listenForTest(prs, { PRS_REPO_DIR: ROOT })
  embedding = fakeEmbedding({ dimension: 8 })
  qdrant = fakeQdrant({ key: SECRET })
})
afterAll(async () => {
  embedding.stop()
  qdrant.stop()
  await registry.dispose()
})

/** A fresh environment: its own collection name, data and dist directories. */
function env(extra: Record<string, string | undefined> = {}) {
  return {
    MEM_EMBEDDING_URL: embedding.url,
    MEM_VECTOR_STORE_URL: qdrant.url,
    MEM_VECTOR_STORE_API_KEY: SECRET,
    MEM_COLLECTION: `memory_${Math.random().toString(36).slice(2, 8)}`,
    SVC_REGISTRY_URL: registry.url,
    SVC_DATA_DIR: tempDir('svc-mem-data-'),
    SVC_DIST_DIR: tempDir('svc-mem-dist-'),
    ...extra,
  }
}

async function run(args: string[], e: Record<string, string | undefined>, schema?: TSchema) {
  const io = captureIo()
  const code = await mem.run(args, e, io)
  const doc = () => {
    const d = JSON.parse(io.out) as Json
    if (schema && !Value.Check(schema, d))
      throw new Error(`--json off schema: ${JSON.stringify([...Value.Errors(schema, d)][0])}`)
    return d
  }
  return { code, out: io.out, err: io.err, doc }
}
const statuses = (doc: Json) => Object.fromEntries(doc.checks.map((c: Json) => [c.name, c.status]))

describe('MEM files', () => {
  test('stack, manifest and feature registry are valid; the manifest lists the real commands', () => {
    expect(fileProblems(shippedFiles)).toEqual([])
    expect(shippedFiles.manifest.commands).toEqual(mem.commands)
    for (const key of ['stack', 'manifest', 'features'] as const) {
      const path = join(ROOT, `units/mem/schemas/${key}.schema.json`)
      if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(path, JSON.stringify(FILE_SCHEMAS[key], null, 2))
      const schemaFile = JSON.parse(readFileSync(path, 'utf8'))
      expect(schemaFile).toEqual(JSON.parse(JSON.stringify(FILE_SCHEMAS[key])))
    }
    const broken = structuredClone(shippedFiles) as Json
    broken.stack.vector_store.distance = 'Hamming'
    expect(fileProblems(broken)).toContainEqual(
      expect.stringContaining('units/mem/stack.json/vector_store/distance'),
    )
  })
})

describe('mem bootstrap and install', () => {
  test('bootstrap prepares directories and shows configuration with secrets redacted', async () => {
    const e = env()
    const r = await run(['bootstrap', '--json'], e, ChecksOutput)
    expect(r.code).toBe(EXIT_OK)
    expect(r.doc().configuration.MEM_VECTOR_STORE_API_KEY).toBe('[redacted]')
    expect(r.out).not.toContain(SECRET)
  })

  test('install creates the collection with the learned dimension; a second install finds it compatible', async () => {
    const e = env()
    let r = await run(['install', '--json'], e, InstallOutput)
    expect(r.code).toBe(EXIT_OK)
    expect(r.doc()).toMatchObject({ model: 'nomic-embed-text', dimension: 8, distance: 'Cosine' })
    expect(statuses(r.doc())['vector_store.create']).toBe('passed')
    expect(qdrant.collections.get(e.MEM_COLLECTION)).toMatchObject({ size: 8, distance: 'Cosine' })
    expect(JSON.parse(readFileSync(join(e.SVC_DATA_DIR, 'mem', 'install.json'), 'utf8')).dimension).toBe(8)
    r = await run(['install'], e)
    expect(r.code).toBe(EXIT_OK)
    expect(r.out).toContain('COMPATIBLE: collection')
  })

  test('install refuses to touch an incompatible collection (exit 1) and writes no install record', async () => {
    const e = env()
    qdrant.collections.set(e.MEM_COLLECTION, { size: 384, distance: 'Dot', points: new Map() })
    const r = await run(['install', '--json'], e)
    expect(r.code).toBe(EXIT_FAILED)
    const c = r.doc().checks.find((x: Json) => x.name === 'vector_store.compatibility')
    expect(c.status).toBe('failed')
    expect(c.reason).toContain('INCOMPATIBLE')
    expect(c.reason).toContain('size 384, the model produces 8')
    expect(c.reason).toContain('distance Dot, configured Cosine')
    expect(qdrant.collections.get(e.MEM_COLLECTION)?.size).toBe(384)
    expect(readdirSync(join(e.SVC_DATA_DIR, 'mem'))).not.toContain('install.json')
  })

  test('MEM_EMBEDDING_URL unset for a command that needs it is exit 2 naming it', async () => {
    for (const cmd of ['install', 'smoke-test', 'self-check', 'snapshot']) {
      const r = await run([cmd], env({ MEM_EMBEDDING_URL: undefined }))
      expect(r.code).toBe(EXIT_USAGE)
      expect(r.err).toContain('MEM_EMBEDDING_URL is not set')
    }
    const bad = await run(['self-check'], env({ MEM_VECTOR_DISTANCE: 'Hamming' }))
    expect(bad.code).toBe(EXIT_USAGE)
    expect(bad.err).toContain('MEM_VECTOR_DISTANCE')
    const bare = await run([], env())
    expect(bare.code).toBe(EXIT_USAGE)
    expect(bare.err).toContain('svc mem status-bundle')
  })
})

describe('mem checks', () => {
  test('smoke-test embeds, upserts, finds and deletes its points', async () => {
    const e = env()
    await run(['install'], e)
    const r = await run(['smoke-test', '--json'], e, ChecksOutput)
    expect(r.doc().checks.filter((c: Json) => c.status !== 'passed')).toEqual([])
    expect(r.code).toBe(EXIT_OK)
    expect(qdrant.collections.get(e.MEM_COLLECTION)?.points.size).toBe(0)
  })

  test('self-check passes on a compatible stack; a model with another dimension fails it', async () => {
    const e = env()
    await run(['install'], e)
    let r = await run(['self-check', '--json'], e, ChecksOutput)
    expect(r.code).toBe(EXIT_OK)
    const wide = fakeEmbedding({ dimension: 16 })
    try {
      r = await run(['self-check', '--json'], { ...e, MEM_EMBEDDING_URL: wide.url }, ChecksOutput)
      expect(r.code).toBe(EXIT_FAILED)
      expect(statuses(r.doc())['vector_store.compatibility']).toBe('failed')
    } finally {
      wide.stop()
    }
  })

  test('vector-store-check: compatible, then unknown when the model cannot be asked, failed when the collection is missing', async () => {
    const e = env()
    await run(['install'], e)
    let r = await run(['vector-store-check', '--json'], e, ChecksOutput)
    expect(r.code).toBe(EXIT_OK)
    r = await run(['vector-store-check', '--json'], { ...e, MEM_EMBEDDING_URL: stopped.url }, ChecksOutput)
    expect(r.code).toBe(EXIT_FAILED)
    expect(r.doc().verdict).toBe('unknown')
    expect(statuses(r.doc())['vector_store.compatibility']).toBe('unknown')
    expect(statuses(r.doc())['embedding.readyz']).toBe('unknown')
    r = await run(
      ['vector-store-check', '--json'],
      { ...e, MEM_EMBEDDING_URL: undefined, MEM_VECTOR_SIZE: '8' },
      ChecksOutput,
    )
    expect(r.code).toBe(EXIT_OK)
    r = await run(['vector-store-check', '--json'], { ...e, MEM_COLLECTION: 'missing_one' }, ChecksOutput)
    expect(statuses(r.doc())['vector_store.collection']).toBe('failed')
    r = await run(['vector-store-check', '--json'], { ...e, MEM_VECTOR_STORE_URL: stopped.url }, ChecksOutput)
    expect(statuses(r.doc())['vector_store.collection']).toBe('unknown')
    expect(r.doc().verdict).toBe('unknown')
  })

  test('a wrong vector-store key is a refusal (failed), an embedding runtime not ready fails readyz', async () => {
    const e = env()
    let r = await run(['vector-store-check', '--json'], { ...e, MEM_VECTOR_STORE_API_KEY: 'wrong' })
    expect(statuses(r.doc())['vector_store.collection']).toBe('failed')
    const loading = fakeEmbedding({ ready: false })
    try {
      r = await run(['self-check', '--json'], { ...e, MEM_EMBEDDING_URL: loading.url })
      expect(statuses(r.doc())['embedding.readyz']).toBe('failed')
    } finally {
      loading.stop()
    }
  })

  test('runtime-contract-check against the real PRS unit; unreachable is unknown; unset is exit 2', async () => {
    let r = await run(['runtime-contract-check', '--json'], env(), ChecksOutput)
    expect(r.doc().checks.filter((c: Json) => c.status !== 'passed')).toEqual([])
    expect(r.code).toBe(EXIT_OK)
    r = await run(['runtime-contract-check', '--json'], env({ SVC_REGISTRY_URL: stopped.url }), ChecksOutput)
    expect(r.code).toBe(EXIT_FAILED)
    expect(statuses(r.doc())).toMatchObject({ 'prs.matrix': 'unknown', 'prs.readiness': 'unknown' })
    r = await run(['runtime-contract-check'], env({ SVC_REGISTRY_URL: undefined }))
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain('SVC_REGISTRY_URL is not set')
  })
})

describe('mem snapshot, drift, metadata, status-bundle', () => {
  test('snapshot then drift: clean (exit 0); a collection recreated with another distance drifts (exit 1)', async () => {
    const e = env()
    await run(['install'], e)
    const snap = await run(['snapshot', '--json'], e, SnapshotOutput)
    expect(snap.code).toBe(EXIT_OK)
    expect(Value.Check(SnapshotFile, JSON.parse(readFileSync(snap.doc().path, 'utf8')))).toBe(true)
    expect(snap.doc().collections).toContain(e.MEM_COLLECTION)
    let drift = await run(['drift', '--json'], e, DriftOutput)
    expect(drift.doc().checks.filter((c: Json) => c.status !== 'passed')).toEqual([])
    expect(drift.code).toBe(EXIT_OK)

    qdrant.collections.set(e.MEM_COLLECTION, { size: 8, distance: 'Euclid', points: new Map() })
    await Bun.sleep(2)
    const changed = (await run(['snapshot', '--json'], e)).doc()
    drift = await run(['drift', '--json', changed.path], e, DriftOutput)
    expect(drift.code).toBe(EXIT_FAILED)
    expect(drift.doc().differences).toContainEqual({
      check: 'drift.collection.distance',
      path: '/',
      expected: 'Cosine',
      observed: 'Euclid',
    })
    const two = await run(['drift', '--json', snap.doc().path, changed.path], e, DriftOutput)
    expect(two.code).toBe(EXIT_FAILED)
    expect(statuses(two.doc())['drift.collections']).toBe('failed')
    expect(statuses(two.doc())['drift.models']).toBe('passed')
  })

  test('drift with no snapshot is exit 2', async () => {
    const r = await run(['drift'], env())
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain("run 'svc mem snapshot'")
  })

  test('metadata writes dist/package-metadata.json', async () => {
    const e = env()
    const r = await run(['metadata', '--json'], e)
    expect(r.code).toBe(EXIT_OK)
    const written = JSON.parse(readFileSync(join(e.SVC_DIST_DIR, 'package-metadata.json'), 'utf8'))
    expect(Value.Check(PackageMetadataSchema, written)).toBe(true)
    expect(written.name).toBe('memory-stack')
  })

  test('status-bundle is a real tar.gz with status, files and artifacts, and no secret in it', async () => {
    const e = env({ MEM_EMBEDDING_API_KEY: 'emb-key-Q7plantedToo' })
    const keyed = fakeEmbedding({ key: 'emb-key-Q7plantedToo' })
    e.MEM_EMBEDDING_URL = keyed.url
    try {
      await run(['install'], e)
      await run(['metadata'], e)
      await run(['snapshot'], e)
      // an artifact that (wrongly) captured a secret must still leave the bundle clean
      writeFileSync(
        join(e.SVC_DIST_DIR, 'mem-snapshot-99999999T999999999Z.json'),
        JSON.stringify({ leaked: SECRET }),
      )
      const r = await run(['status-bundle', '--json'], e, BundleOutput)
      expect(r.code).toBe(EXIT_OK)
      const out = tempDir('svc-mem-untar-')
      const untar = Bun.spawnSync(['tar', '-xzf', r.doc().path, '-C', out])
      expect(untar.exitCode).toBe(0)
      const top = readdirSync(out)[0] ?? ''
      const names = readdirSync(join(out, top), { recursive: true }).map(String).sort()
      expect(names).toEqual(
        expect.arrayContaining([
          'status.json',
          'files/stack.json',
          'artifacts/package-metadata.json',
          'artifacts/install.json',
        ]),
      )
      const grep = Bun.spawnSync(['grep', '-r', '-l', '-e', SECRET, '-e', 'emb-key-Q7plantedToo', out])
      expect(grep.stdout.toString()).toBe('')
      expect(grep.exitCode).toBe(1)
      const status = JSON.parse(readFileSync(join(out, top, 'status.json'), 'utf8'))
      expect(status.configuration.MEM_VECTOR_STORE_API_KEY).toBe('[redacted]')
      expect(status.verdict).toBe('passed')
      expect(
        readFileSync(join(out, top, 'artifacts', 'mem-snapshot-99999999T999999999Z.json'), 'utf8'),
      ).toContain('[redacted]')
    } finally {
      keyed.stop()
    }
  })

  test('status-bundle with nothing configured still writes a bundle, checks unknown', async () => {
    const r = await run(
      ['status-bundle', '--json'],
      { SVC_DIST_DIR: tempDir('svc-mem-dist-'), SVC_DATA_DIR: tempDir() },
      BundleOutput,
    )
    expect(r.code).toBe(EXIT_OK)
    expect(r.doc().verdict).toBe('unknown')
  })
})

describe('the real svc process', () => {
  test('svc mem self-check exits 0 against the fakes; svc mem with no command exits 2', async () => {
    const e = env()
    await run(['install'], e)
    const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'mem', 'self-check'], {
      cwd: ROOT,
      env: { ...process.env, ...e },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = await new Response(proc.stdout).text()
    expect(await proc.exited).toBe(EXIT_OK)
    expect(out).toContain('PASS    vector_store.compatibility: COMPATIBLE')
    const bare = Bun.spawn([process.execPath, 'bin/svc.ts', 'mem'], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await bare.exited).toBe(EXIT_USAGE)
    expect(await new Response(bare.stderr).text()).toContain('usage: svc mem <command>')
  })
})

describe('version truth in the compiled executable', () => {
  test('svc mem metadata, run from the built executable outside the repository, reports the commit it was built from', async () => {
    const { buildCommand } = await import('../../bin/build.ts')
    const dir = tempDir('svc-mem-exe-')
    const exe = join(dir, 'svc')
    const build = Bun.spawnSync(buildCommand(exe), { cwd: ROOT, stdout: 'ignore', stderr: 'pipe' })
    expect(build.exitCode).toBe(0)
    const head = Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { cwd: ROOT }).stdout.toString().trim()
    const run = Bun.spawnSync([exe, 'mem', 'metadata', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SVC_DIST_DIR: join(dir, 'dist') },
    })
    expect(run.exitCode).toBe(EXIT_OK)
    const doc = JSON.parse(run.stdout.toString())
    expect(doc.version_truth.commit).toBe(head)
    expect(doc.version).toMatch(/^(0\.\d+\.\d+|0\.0\.0\+[0-9a-f]{7})$/)
    expect(readFileSync(join(dir, 'dist', 'package-metadata.json'), 'utf8')).toContain(head)
  }, 60_000)
})

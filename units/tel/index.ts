/**
 * TEL: the telephony-stack repository's command-line unit. No network API of its own; it
 * verifies its contract families against PRS, the runtime host and the telephony info route.
 */
import { join } from 'node:path'
import { Type as T } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  artifactStamp,
  checksOutcome,
  defineCli,
  driftChecks,
  EXIT_OK,
  type Fact,
  newestArtifact,
  packageMetadataOutcome,
  readJsonArtifact,
  renderChecks,
  UsageError,
  versionTruth,
  writeJsonArtifact,
} from '../../common/cli.ts'
import { urlString } from '../../common/config.ts'
import { FILE_PATHS, shippedFiles } from './files.ts'
import { SnapshotFile, VERIFY_FAMILIES, type VerifyFamily } from './model.ts'
import { declaredFacts, fileFacts, liveFacts, observedFacts } from './rules/drift.ts'
import { localChecks, verifyChecks } from './rules/verify.ts'
import { observeSurfaces } from './service/surfaces.ts'

const SNAPSHOT_PREFIX = 'tel-snapshot-'

export const telEnv = {
  SVC_REGISTRY_URL: T.Optional(urlString('the PRS base URL')),
  SVC_RUNTIME_HOST_URL: T.Optional(urlString('the runtime host base URL (GET /healthz)')),
  TEL_TELEPHONY_INFO_URL: T.Optional(urlString('the full URL of the telephony info route')),
  TEL_TELEPHONY_AUTH: T.Optional(
    T.String({ minLength: 1, description: 'user:password (Basic) or a bearer token' }),
  ),
  TEL_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 3000,
    description: 'milliseconds 100-60000',
  }),
  SVC_DIST_DIR: T.String({ minLength: 1, default: 'dist', description: 'a directory path' }),
}

function parseFamily(raw: unknown): readonly VerifyFamily[] {
  if (raw === undefined) return VERIFY_FAMILIES
  const key = String(raw)
  if (!(VERIFY_FAMILIES as readonly string[]).includes(key))
    throw new UsageError(`unknown family '${key}'; one of: ${VERIFY_FAMILIES.join(', ')}`)
  return [key as VerifyFamily]
}

function readSnapshot(path: string): SnapshotFile {
  const doc = readJsonArtifact(path)
  if (!Value.Check(SnapshotFile, doc))
    throw new UsageError(`${path} is not a TEL snapshot (svc.tel-snapshot/1)`)
  return doc
}

const repoFiles = () => ({
  stack: shippedFiles.stack,
  manifest: shippedFiles.manifest,
  features: shippedFiles.features,
  contract: shippedFiles.contract,
})

export const tel = defineCli({
  name: 'tel',
  title: 'telephony-stack repository',
  env: telEnv,
  commands: {
    verify: {
      summary: 'check every contract family against PRS, the runtime host and the telephony info route',
      args: '[--family <key>]',
      options: { family: { type: 'string' } },
      run: async (ctx) => {
        const families = parseFamily(ctx.options.family)
        const registry = ctx.require('SVC_REGISTRY_URL')
        const surfaces = await observeSurfaces(ctx.config)
        const checks = verifyChecks(
          {
            surfaces,
            files: shippedFiles,
            commands: tel.commands,
            telephonyAuth: ctx.config.TEL_TELEPHONY_AUTH !== undefined,
          },
          families,
        )
        const perFamily = families.map((family) => {
          const own = checks.filter((c) => c.name.startsWith(`${family}.`))
          return {
            family,
            verdict: checksOutcome('', own).json as { verdict: 'passed' | 'failed' | 'unknown' },
          }
        })
        return checksOutcome(
          `tel verify against ${registry} (${families.length} famil${families.length === 1 ? 'y' : 'ies'})`,
          checks,
          {
            registry_url: registry,
            families: perFamily.map((f) => ({ family: f.family, verdict: f.verdict.verdict })),
          },
        )
      },
    },
    manifest: {
      summary: 'print the manifest, checked against its schema, the contract and the stack files',
      run: async () => {
        const checks = localChecks(shippedFiles, tel.commands)
        const m = shippedFiles.manifest
        const outcome = checksOutcome('', checks, { manifest: m })
        const head = [
          `${m.unit}: ${m.title} (${m.tool_key}, contract ${m.contract_version}, no network API)`,
          `commands: ${m.commands.join(', ')}`,
          `produces: ${m.producer_families.join(', ')}`,
          `consumes: ${m.consumer_families.join(', ')}`,
          `files: ${Object.values(m.files).join(', ')}`,
          `ports: ${shippedFiles.stack.ports.map((p) => `${p.port} ${p.name} (${p.policy})`).join(', ')}`,
        ].join('\n')
        return { ...outcome, human: `${head}\n${renderChecks('checks:', checks)}` }
      },
    },
    snapshot: {
      summary: 'record the live state of every checked surface under dist/',
      run: async (ctx) => {
        ctx.require('SVC_REGISTRY_URL')
        const takenAt = new Date().toISOString()
        const surfaces = await observeSurfaces(ctx.config)
        const doc: SnapshotFile = {
          snapshot_schema: 'svc.tel-snapshot/1',
          unit: 'tel',
          taken_at: takenAt,
          version: versionTruth(),
          surfaces,
          files: repoFiles(),
        }
        const path = writeJsonArtifact(
          ctx.config.SVC_DIST_DIR,
          `${SNAPSHOT_PREFIX}${artifactStamp(takenAt)}.json`,
          doc,
        )
        const rows = Object.entries(surfaces).map(([key, o]) => ({ key, ok: o.ok, status: o.status }))
        const human = [
          `wrote ${path}`,
          ...Object.entries(surfaces).map(
            ([k, o]) => `  ${k.padEnd(42)} ${o.ok ? `answered ${o.status}` : `no answer: ${o.message}`}`,
          ),
        ].join('\n')
        return { exit: EXIT_OK, human, json: { path, taken_at: takenAt, surfaces: rows } }
      },
    },
    drift: {
      summary: 'compare a snapshot with the repository files, or two snapshots (exit 1 on drift)',
      args: '[<snapshot> [<other-snapshot>]]',
      positionals: { min: 0, max: 2 },
      run: async (ctx) => {
        const [first, second] = ctx.positionals
        const path = first ?? newestArtifact(join(ctx.config.SVC_DIST_DIR), SNAPSHOT_PREFIX)
        if (!path)
          throw new UsageError(
            `no snapshot named and none under ${ctx.config.SVC_DIST_DIR}: run 'svc tel snapshot'`,
          )
        const a = readSnapshot(path)
        let expected: Record<string, Fact>
        let observed: Record<string, Fact>
        if (second) {
          const b = readSnapshot(second)
          expected = { ...observedFacts(a), ...liveFacts(a), ...fileFacts(a.files) }
          observed = { ...observedFacts(b), ...liveFacts(b), ...fileFacts(b.files) }
        } else {
          expected = { ...declaredFacts(shippedFiles), ...fileFacts(repoFiles()) }
          observed = { ...observedFacts(a), ...fileFacts(a.files) }
        }
        const { checks, differences } = driftChecks(expected, observed)
        const mode = second ? 'snapshot_vs_snapshot' : 'snapshot_vs_repository'
        const compared = second ? [path, second] : [path, 'repository files']
        return checksOutcome(`tel drift: ${compared.join(' vs ')}`, checks, { mode, compared, differences })
      },
    },
    metadata: {
      summary: 'write dist/package-metadata.json (name, version truth, file digests)',
      run: async (ctx) =>
        packageMetadataOutcome(ctx.config.SVC_DIST_DIR, {
          unit: 'tel',
          name: shippedFiles.manifest.tool_key,
          contract_version: shippedFiles.contract.version,
          files: Object.entries(FILE_PATHS).map(([k, path]) => ({
            path,
            text: JSON.stringify(repoFiles()[k as keyof typeof FILE_PATHS]),
          })),
        }),
    },
  },
})

/**
 * The managed runtime host: a directory of JSON configuration files. Reading builds a snapshot
 * (valid resources plus the files that do not validate); writing stages every file beside its
 * target and renames only when all staged writes succeeded, so one apply never leaves half-written
 * files behind.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, join } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { canonicalHash } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import { HOST_RESOURCE_ID, KINDS, RESOURCE_KINDS, type ResourceKind } from '../model/host.ts'
import { docHash, resourceFile, resourceKey } from '../rules/resources.ts'

export interface HostResource {
  kind: ResourceKind
  id: string
  doc: Record<string, unknown>
  hash: string
  file: string
}

export interface InvalidFile {
  kind: ResourceKind
  id: string
  file: string
  reason: string
}

export interface HostSnapshot {
  dir: string
  readable: boolean
  error: string | null
  resources: Map<string, HostResource>
  invalid: InvalidFile[]
  scanned_at: string
  /** Hash over every file's (path, content hash): a patch plan is bound to the host it saw. */
  host_hash: string
}

/**
 * Compiled once, on the first file of its kind: the host is re-read often, and interpretive checks
 * would dominate a scan; compiling every kind up front would cost each start the kinds it never reads.
 */
const checkers = new Map<ResourceKind, TypeCheck<TSchema>>()
function checkerOf(kind: ResourceKind): TypeCheck<TSchema> {
  let checker = checkers.get(kind)
  if (!checker) {
    checker = TypeCompiler.Compile(KINDS[kind].schema as TSchema)
    checkers.set(kind, checker)
  }
  return checker
}

function parseResource(
  kind: ResourceKind,
  id: string,
  file: string,
  text: string,
): HostResource | InvalidFile {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return { kind, id, file, reason: 'not valid JSON' }
  }
  const spec = KINDS[kind]
  const checker = checkerOf(kind)
  if (!checker.Check(doc)) {
    const first = checker.Errors(doc).First()
    return {
      kind,
      id,
      file,
      reason: `does not match the ${kind} schema at ${first?.path || '/'}: ${first?.message}`,
    }
  }
  const record = doc as Record<string, unknown>
  if (kind !== 'host' && record[spec.idField] !== id) {
    return { kind, id, file, reason: `${spec.idField} does not match the file name` }
  }
  return { kind, id, doc: record, hash: docHash(record), file }
}

/** Read the whole host directory. An unreadable directory gives `readable: false`, never a throw. */
export function scanHost(dir: string): HostSnapshot {
  const resources = new Map<string, HostResource>()
  const invalid: InvalidFile[] = []
  const scanned_at = nowIso()
  const empty = (error: string): HostSnapshot => ({
    dir,
    readable: false,
    error,
    resources,
    invalid,
    scanned_at,
    host_hash: canonicalHash({ unreadable: error }),
  })
  try {
    if (!statSync(dir).isDirectory()) return empty('not a directory')
  } catch {
    return empty('directory does not exist')
  }
  try {
    for (const kind of RESOURCE_KINDS) {
      const sub = KINDS[kind].dir
      const entries: { id: string; file: string }[] = []
      if (sub === null) {
        if (existsSync(join(dir, 'host.json'))) entries.push({ id: HOST_RESOURCE_ID, file: 'host.json' })
      } else if (existsSync(join(dir, sub))) {
        for (const name of readdirSync(join(dir, sub)).sort()) {
          if (!name.endsWith('.json') || name.startsWith('.')) continue
          entries.push({ id: basename(name, '.json'), file: `${sub}/${name}` })
        }
      }
      for (const { id, file } of entries) {
        const parsed = parseResource(kind, id, file, readFileSync(join(dir, file), 'utf8'))
        if ('doc' in parsed) resources.set(resourceKey(kind, id), parsed)
        else invalid.push(parsed)
      }
    }
  } catch (err) {
    return empty(`read failed: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`)
  }
  const fingerprint = [
    ...[...resources.values()].map((r) => [r.file, r.hash]),
    ...invalid.map((i) => [i.file, `invalid:${i.reason}`]),
  ].sort((a, b) => String(a[0]).localeCompare(String(b[0])))
  return {
    dir,
    readable: true,
    error: null,
    resources,
    invalid,
    scanned_at,
    host_hash: canonicalHash(fingerprint),
  }
}

/** Resources of one kind, sorted by id. */
export function ofKind<D = Record<string, unknown>>(
  snapshot: { resources: Map<string, HostResource> },
  kind: ResourceKind,
): D[] {
  return [...snapshot.resources.values()]
    .filter((r) => r.kind === kind)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((r) => r.doc as D)
}

export const fileText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`

export interface FileWrite {
  kind: ResourceKind
  resource_id: string
  /** The document to write; null deletes the file. */
  document: Record<string, unknown> | null
}

/**
 * Write a set of files atomically per file and all-or-nothing for the staging phase: every new
 * content goes to a temp file first; only when all are staged are they renamed into place.
 */
export function writeHostFiles(dir: string, writes: FileWrite[]): void {
  const staged: { temp: string; target: string }[] = []
  try {
    for (const w of writes) {
      if (w.document === null) continue
      const target = join(dir, resourceFile(w.kind, w.resource_id))
      mkdirSync(join(target, '..'), { recursive: true })
      const temp = `${target}.tmp-${newId()}`
      writeFileSync(temp, fileText(w.document), { flag: 'wx' })
      staged.push({ temp, target })
    }
  } catch (err) {
    for (const s of staged) rmSync(s.temp, { force: true })
    throw err
  }
  for (const s of staged) renameSync(s.temp, s.target)
  for (const w of writes) {
    if (w.document === null) rmSync(join(dir, resourceFile(w.kind, w.resource_id)), { force: true })
  }
}

/** Create the workspace directories persistent agents declare (idempotent). */
export function ensureWorkspaces(
  dir: string,
  agents: { persistent: boolean; workspace?: { path: string } }[],
) {
  for (const a of agents) {
    if (a.persistent && a.workspace) mkdirSync(join(dir, a.workspace.path), { recursive: true })
  }
}

export function workspacePresent(dir: string, path: string): boolean {
  try {
    return statSync(join(dir, path)).isDirectory()
  } catch {
    return false
  }
}

/**
 * `bun run build`: the single-file executable dist/svc, with the commit baked in for /version.json.
 *
 * Two passes. The first builds the executable; then every HTTP unit is started from it once with
 * `BUN_BYTECODE_ORDER_OUT`, which records the functions its start-up and first requests run; the
 * second pass lays the bytecode out in that order (`--bytecode-order`), so a unit's start touches
 * fewer pages of the file: less memory and a faster cold start (docs/benchmarks.md). If recording
 * fails, the first pass's executable stands.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { httpStatus, pollUntilUp } from '../common/peer.ts'

const ROOT = join(import.meta.dir, '..')

/** The `bun build` command line of the shipped executable; tests build with the same flags. */
export function buildCommand(outfile: string, target?: string, bytecodeOrder: string[] = []): string[] {
  const commit =
    Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { cwd: ROOT, stderr: 'ignore' }).stdout.toString().trim() ||
    'unknown'
  return [
    process.execPath,
    'build',
    join(ROOT, 'bin/svc.ts'),
    '--compile',
    // ES modules split into chunks: each unit's code (and what only it imports) is a chunk of its
    // own, loaded when that unit starts, so a process running one unit does not load the bytecode
    // of the other eight. Measured against one undivided bundle: 3-4 MB less resident per unit at
    // idle and a faster cold start (docs/benchmarks.md, "Chunks per unit").
    '--format=esm',
    '--splitting',
    // Every minification but whitespace: Elysia decides from a hook's source text whether to await
    // it on every request (`=>{if(` reads as asynchronous, `=> {\n  if (` does not), so without
    // whitespace many synchronous hooks would be awaited in the executable only (docs/architecture.md,
    // "What a route costs is decided when Elysia compiles it").
    '--minify-syntax',
    '--minify-identifiers',
    '--sourcemap',
    // Precompiled bytecode: start-up parses nothing (docs/benchmarks.md, cold start).
    '--bytecode',
    ...(bytecodeOrder.length > 0 ? [`--bytecode-order=${bytecodeOrder.join(',')}`] : []),
    // Configuration comes from the environment only (CONTRACTS.md §1): the executable does not
    // read a .env or bunfig.toml from whatever directory it starts in (a bunfig.toml can preload
    // code; in a container the working directory is the data volume).
    '--no-compile-autoload-dotenv',
    '--no-compile-autoload-bunfig',
    `--define=SVC_BUILD_COMMIT=${JSON.stringify(commit)}`,
    `--outfile=${outfile}`,
    ...(target ? [`--target=${target}`] : []),
  ]
}

const START_DEADLINE_MS = 10_000

/**
 * Start `unit` from the executable with the recorder on, until it answers its liveness and
 * readiness routes, then stop it: the recorder writes `orderFile` as the process exits.
 */
async function recordOrder(exe: string, unit: string, probes: string[], orderFile: string): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-order-${unit}-`))
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = server.port
  server.stop(true)
  const proc = Bun.spawn([exe, 'unit', unit], {
    cwd: dataDir,
    env: {
      ...process.env,
      BUN_BYTECODE_ORDER_OUT: orderFile,
      SVC_DATA_DIR: dataDir,
      SVC_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  try {
    const base = `http://127.0.0.1:${port}`
    try {
      await pollUntilUp(base + (probes[0] ?? '/'), {
        deadlineMs: START_DEADLINE_MS,
        accept: (status) => status < 300,
        failed: () => (proc.exitCode === null ? undefined : `exit ${proc.exitCode}`),
      })
    } catch {
      return false
    }
    for (const probe of probes) await httpStatus(base + probe, 1000)
    proc.kill('SIGTERM')
    return (await proc.exited) === 0 && (await Bun.file(orderFile).exists())
  } finally {
    proc.kill()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const target = process.argv[2] // optional --target, e.g. bun-linux-x64-musl for Alpine images
  const exe = join(ROOT, 'dist/svc')
  // Each chunk's source map is written beside the executable under a content-hashed name: drop
  // the previous build's, so dist/ holds only this build's.
  for (const name of existsSync(join(ROOT, 'dist')) ? readdirSync(join(ROOT, 'dist')) : []) {
    if (name.endsWith('.js.map') || name === 'svc.map') rmSync(join(ROOT, 'dist', name), { force: true })
  }
  const build = (order: string[] = []) =>
    Bun.spawnSync(buildCommand(exe, target, order), { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
      .exitCode ?? 1
  if (build() !== 0) process.exit(1)
  // An executable for another platform cannot run here to record its order.
  if (target === undefined) {
    const { httpUnits } = await import('../units/registry.ts')
    const dir = mkdtempSync(join(tmpdir(), 'svc-bytecode-order-'))
    const files: string[] = []
    for (const [name, entry] of Object.entries(httpUnits)) {
      const file = join(dir, `${name}.txt`)
      const e: { liveness: string; readiness?: string } = entry
      const probes = [e.liveness, e.readiness ?? e.liveness, '/openapi.json']
      if (await recordOrder(exe, name, probes, file)) files.push(file)
      else process.stderr.write(`build: could not record the start-up order of ${name}; it is left out\n`)
    }
    if (files.length > 0) {
      process.stderr.write(`build: second pass with the start-up order of ${files.length} units\n`)
      if (build(files) !== 0) process.exit(1)
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `bun run build`: the single-file executable dist/svc, with the commit baked in for /version.json. */
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')

/** The `bun build` command line of the shipped executable; tests build with the same flags. */
export function buildCommand(outfile: string, target?: string): string[] {
  const commit =
    Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { cwd: ROOT, stderr: 'ignore' }).stdout.toString().trim() ||
    'unknown'
  return [
    process.execPath,
    'build',
    join(ROOT, 'bin/svc.ts'),
    '--compile',
    '--minify',
    '--sourcemap',
    // Precompiled bytecode: start-up parses nothing (docs/benchmarks.md, cold start). Needs a
    // bundle without top-level await (bin/svc.ts).
    '--bytecode',
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

if (import.meta.main) {
  const target = process.argv[2] // optional --target, e.g. bun-linux-x64-musl for Alpine images
  const build = Bun.spawnSync(buildCommand(join(ROOT, 'dist/svc'), target), {
    cwd: ROOT,
    stdout: 'inherit',
    stderr: 'inherit',
  })
  process.exit(build.exitCode ?? 1)
}

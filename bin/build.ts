/** `bun run build`: the single-file executable dist/svc, with the commit baked in for /version.json. */
const commit =
  Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { stderr: 'ignore' }).stdout.toString().trim() || 'unknown'
const target = process.argv[2] // optional --target, e.g. bun-linux-x64-musl for Alpine images
const args = [
  process.execPath,
  'build',
  'bin/svc.ts',
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
  '--outfile=dist/svc',
  ...(target ? [`--target=${target}`] : []),
]
const build = Bun.spawnSync(args, { cwd: `${import.meta.dir}/..`, stdout: 'inherit', stderr: 'inherit' })
process.exit(build.exitCode ?? 1)

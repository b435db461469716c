/** `bun run bench <unit…>`: run each unit's benchmark (bench/<unit>.ts) and print its report. */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const available = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith('.ts') && !['lib.ts', 'load.ts', 'run.ts'].includes(f))
  .map((f) => f.slice(0, -3))
const wanted = process.argv.slice(2)
if (wanted.length === 0 || wanted.some((w) => !available.includes(w))) {
  process.stderr.write(`usage: bun run bench <${available.join('|')}>…\n`)
  process.exit(2)
}
for (const name of wanted) {
  const file = join(import.meta.dir, `${name}.ts`)
  if (!existsSync(file)) continue
  const mod = (await import(file)) as { default: () => Promise<string> }
  console.log(`${await mod.default()}\n`)
}

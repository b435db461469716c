import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')

/**
 * The relative imports of every source file in a top-level folder. Tests and test helpers
 * (`*.test.ts`, `testing.ts`) sit above all of them.
 */
function importsOf(folder: string): { file: string; target: string }[] {
  const dir = join(ROOT, folder)
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('testing.ts'))
    .flatMap((file) =>
      [
        ...readFileSync(join(dir, file), 'utf8').matchAll(
          /^(?:import|export|\})[^'\n]*from '(\.{1,2}\/[^']+)'/gm,
        ),
      ].map((m) => ({
        file: `${folder}/${file}`,
        target: join(folder, file, '..', m[1] ?? '').split('/')[0] ?? '',
      })),
    )
}

test('common/ imports nothing else of ours, db/ only common/, runtime/ only common/ and db/', () => {
  const allowed: Record<string, string[]> = {
    common: ['common', 'package.json'],
    db: ['db', 'common'],
    runtime: ['runtime', 'common', 'db'],
  }
  for (const [folder, may] of Object.entries(allowed)) {
    const wrong = importsOf(folder).filter((i) => !may.includes(i.target))
    expect(wrong).toEqual([])
  }
})

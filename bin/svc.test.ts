import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../test/harness.ts'

const ROOT = join(import.meta.dir, '..')
const svc = (args: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([process.execPath, 'bin/svc.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } })

describe('svc', () => {
  test('unknown command and unknown unit print usage on stderr and exit 2', () => {
    for (const args of [['frobnicate'], ['unit', 'nope'], ['unit'], []]) {
      const run = svc(args)
      expect(run.exitCode).toBe(2)
      expect(run.stderr.toString()).toContain('usage: svc')
    }
  })

  test('units lists every unit with its port and liveness route', () => {
    const out = svc(['units']).stdout.toString()
    expect(out).toMatch(/web\s+18080\s+\/health/)
  })

  test('bad configuration exits non-zero with one line per bad variable', () => {
    const run = svc(['unit', 'web'], { PORT: 'x', SVC_ENV: 'nope', SVC_DATA_DIR: tempDir() })
    expect(run.exitCode).toBe(2)
    const lines = run.stderr.toString().trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('PORT')
    expect(lines[1]).toContain('SVC_ENV')
  })

  test('migrate creates the database and exits 0', () => {
    const dir = tempDir()
    const run = svc(['migrate', 'web'], { SVC_DATA_DIR: dir })
    expect(run.exitCode).toBe(0)
    expect(run.stdout.toString()).toContain(join(dir, 'web.sqlite'))
  })
})

import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
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

const lines = (out: { toString(): string }) => out.toString().trim().split('\n')

describe('svc probe (defect 5)', () => {
  test('a data directory that does not exist: one line, exit 1, no stack trace', () => {
    const run = svc(['probe'], { SVC_DATA_DIR: join(tempDir(), 'missing') })
    expect(run.exitCode).toBe(1)
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^svc probe: the data directory .*missing does not exist/),
    ])
  })

  test('an empty data directory says no unit has started there', () => {
    const run = svc(['probe'], { SVC_DATA_DIR: tempDir() })
    expect(run.exitCode).toBe(1)
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^svc probe: no unit has started on the data directory /),
    ])
  })

  test('an unknown unit prints usage and exits 2', () => {
    const run = svc(['probe', 'nosuch'], { SVC_DATA_DIR: tempDir() })
    expect(run.exitCode).toBe(2)
    expect(run.stderr.toString()).toContain("svc: probe: unknown unit 'nosuch'")
    expect(run.stderr.toString()).toContain('usage: svc')
  })
})

describe('bad configuration is one line and exit 2, never a stack trace (defect 6)', () => {
  const oneLine = (run: ReturnType<typeof svc>, pattern: RegExp) => {
    expect(run.exitCode).toBe(2)
    expect(lines(run.stderr)).toEqual([expect.stringMatching(pattern)])
  }

  test('HOST that is not an address or a resolvable name', () => {
    const run = svc(['unit', 'web'], { HOST: 'not-a-host.invalid', PORT: '0', SVC_DATA_DIR: tempDir() })
    oneLine(
      run,
      /^svc web: bad configuration: HOST: expected a bind address or a resolvable host name, got "not-a-host\.invalid"$/,
    )
  })

  test('an SVC_DATA_DIR that cannot be created', () => {
    const file = join(tempDir(), 'a-file')
    writeFileSync(file, '')
    const run = svc(['unit', 'web'], { PORT: '0', SVC_DATA_DIR: join(file, 'data') })
    oneLine(
      run,
      /^svc web: bad configuration: SVC_DATA_DIR: cannot create or open the database at .*a-file\/data\/web\.sqlite/,
    )
    const migrate = svc(['migrate', 'web'], { SVC_DATA_DIR: join(file, 'data') })
    oneLine(migrate, /^svc web: bad configuration: SVC_DATA_DIR: /)
  })

  test('SVC_SUITE_PORT_OFFSET that is not an integer names that variable, not PORT', () => {
    for (const offset of ['abc', '1.5', '70000']) {
      const run = svc(['suite', 'web'], { SVC_SUITE_PORT_OFFSET: offset, SVC_DATA_DIR: tempDir() })
      oneLine(run, /^svc suite: bad configuration: SVC_SUITE_PORT_OFFSET: expected an integer/)
      expect(run.stderr.toString()).toContain(JSON.stringify(offset))
    }
  })
})

import { describe, expect, test } from 'bun:test'
import { Type as T } from '@sinclair/typebox'
import { captureIo } from '../test/harness.ts'
import {
  type Check,
  checksOutcome,
  defineCli,
  differences,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  overall,
  redactedEnv,
  redactValues,
  versionFrom,
} from './cli.ts'

const capture = captureIo

const checks = (...statuses: Check['status'][]): Check[] =>
  statuses.map((status, i) => ({ name: `check.${i}`, status, reason: `${status} because` }))

const demo = defineCli({
  name: 'demo',
  title: 'a demo unit',
  env: {
    DEMO_URL: T.Optional(T.String({ pattern: '^https?://', description: 'an http(s) URL' })),
    DEMO_LIMIT: T.Integer({ minimum: 1, default: 3, description: 'an integer >= 1' }),
  },
  commands: {
    verify: {
      summary: 'verify things',
      args: '[--family <key>]',
      options: { family: { type: 'string' } },
      run: async (ctx) => {
        const url = ctx.require('DEMO_URL')
        const statuses = (ctx.options.family as string | undefined)?.split(',') as Check['status'][]
        return checksOutcome(`verify against ${url}`, checks(...(statuses ?? ['passed'])), {
          limit: ctx.config.DEMO_LIMIT,
        })
      },
    },
    'keys create': {
      summary: 'create a key',
      args: '<name>',
      positionals: { min: 1, max: 1 },
      run: async (ctx) => ({
        exit: EXIT_OK,
        human: `created ${ctx.positionals[0]}\nkey-123`,
        json: { name: ctx.positionals[0] },
      }),
    },
  },
})

describe('defineCli', () => {
  test('a bare call prints usage on stderr and exits 2', async () => {
    const io = capture()
    expect(await demo.run([], {}, io)).toBe(EXIT_USAGE)
    expect(io.err).toContain('command missing')
    expect(io.err).toContain('svc demo verify [--family <key>]')
    expect(io.out).toBe('')
  })

  test('an unknown command or option is bad usage (exit 2), naming it', async () => {
    let io = capture()
    expect(await demo.run(['nosuch'], {}, io)).toBe(EXIT_USAGE)
    expect(io.err).toContain("unknown command 'nosuch'")
    io = capture()
    expect(await demo.run(['verify', '--nope'], { DEMO_URL: 'http://x' }, io)).toBe(EXIT_USAGE)
    expect(io.err).toContain('--nope')
  })

  test('bad configuration is one line per bad variable and exit 2', async () => {
    const io = capture()
    expect(await demo.run(['verify'], { DEMO_URL: 'ftp://x', DEMO_LIMIT: '0' }, io)).toBe(EXIT_USAGE)
    const lines = io.err.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('DEMO_URL')
    expect(lines[1]).toContain('DEMO_LIMIT')
  })

  test('a variable the command needs, unset, is exit 2 naming it', async () => {
    const io = capture()
    expect(await demo.run(['verify'], {}, io)).toBe(EXIT_USAGE)
    expect(io.err).toContain('DEMO_URL is not set')
  })

  test('human summary by default, one JSON document with --json', async () => {
    let io = capture()
    expect(await demo.run(['verify'], { DEMO_URL: 'http://x' }, io)).toBe(EXIT_OK)
    expect(io.out).toContain('PASS    check.0: passed because')
    expect(io.out).toContain('passed: 1 passed, 0 failed, 0 unknown')
    io = capture()
    expect(
      await demo.run(['verify', '--json', '--family', 'passed,unknown'], { DEMO_URL: 'http://x' }, io),
    ).toBe(EXIT_FAILED)
    const doc = JSON.parse(io.out)
    expect(doc.verdict).toBe('unknown')
    expect(doc.limit).toBe(3)
    expect(doc.checks.map((c: Check) => c.status)).toEqual(['passed', 'unknown'])
  })

  test('a failed check exits 1', async () => {
    const io = capture()
    expect(
      await demo.run(['verify', '--family', 'passed,failed,unknown'], { DEMO_URL: 'http://x' }, io),
    ).toBe(EXIT_FAILED)
    expect(io.out).toContain('FAIL    check.1')
    expect(io.out).toContain('UNKNOWN check.2')
  })

  test('two-word commands take positionals, counted', async () => {
    let io = capture()
    expect(await demo.run(['keys', 'create', 'alice'], {}, io)).toBe(EXIT_OK)
    expect(io.out.trim().split('\n').at(-1)).toBe('key-123')
    io = capture()
    expect(await demo.run(['keys', 'create'], {}, io)).toBe(EXIT_USAGE)
    expect(io.err).toContain('takes 1 argument')
  })
})

describe('overall', () => {
  test('failed beats unknown beats passed; no checks is unknown', () => {
    expect(overall(checks('passed', 'unknown', 'failed'))).toBe('failed')
    expect(overall(checks('passed', 'unknown'))).toBe('unknown')
    expect(overall(checks('passed', 'passed'))).toBe('passed')
    expect(overall([])).toBe('unknown')
  })
})

describe('versionFrom', () => {
  const sha = '535ab8ef00473332514c83985a14639ed82cc572'
  test('the highest v0.x.y tag on the commit wins; other tags are ignored', () => {
    expect(versionFrom(sha, ['v0.2.0', 'v0.10.1', 'v1.0.0', 'release-7'])).toEqual({
      version: '0.10.1',
      source: 'tag',
      tag: 'v0.10.1',
      commit: sha,
    })
  })
  test('no release tag: 0.0.0+<shortsha>; no commit: 0.0.0+unknown', () => {
    expect(versionFrom(sha, ['v1.2.3']).version).toBe('0.0.0+535ab8e')
    expect(versionFrom('unknown', []).source).toBe('unknown')
  })
})

describe('differences', () => {
  test('objects by key, plain arrays as sets, a missing side is null', () => {
    expect(differences({ a: [1, 2], b: { c: 'x' } }, { a: [2, 3], b: {} })).toEqual([
      { path: '/a', expected: 1, observed: null },
      { path: '/a', expected: null, observed: 3 },
      { path: '/b/c', expected: 'x', observed: null },
    ])
    expect(differences({ a: [{ x: 1 }] }, { a: [{ x: 1 }] })).toEqual([])
  })
})

describe('redaction', () => {
  test('secret variables and URL credentials are redacted; secret values vanish from text', () => {
    const env = {
      MEM_VECTOR_STORE_API_KEY: 'k-123456',
      MEM_VECTOR_STORE_URL: 'http://u:p@q:6333/',
      MEM_COLLECTION: 'memory',
    }
    expect(redactedEnv(env, [...Object.keys(env), 'UNSET'])).toEqual({
      MEM_VECTOR_STORE_API_KEY: '[redacted]',
      MEM_VECTOR_STORE_URL: 'http://q:6333/',
      MEM_COLLECTION: 'memory',
      UNSET: null,
    })
    expect(redactValues('key=k-123456; again k-123456', ['k-123456'])).toBe(
      'key=[redacted]; again [redacted]',
    )
  })
})

import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import type { CliIo } from '../../common/cli.ts'
import { tempDir, testDriver } from '../../test/harness.ts'
import { startSqld } from '../../test/sqld.ts'
import { ndsCli } from './cli.ts'
import { bootNds } from './testing.ts'

const dataDir = tempDir('svc-nds-cli-')
// on the libSQL test driver the command and the unit share one sqld, as they share the file otherwise
const sqld = testDriver() === 'libsql' ? await startSqld() : undefined
const env = sqld ? { SVC_DATA_DIR: dataDir, DATABASE_URL: sqld.url } : { SVC_DATA_DIR: dataDir }
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true })
  await sqld?.stop()
})

async function run(...args: string[]) {
  return runIn(env, ...args)
}

async function runIn(environment: Record<string, string | undefined>, ...args: string[]) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
  }
  const code = await ndsCli.run(args, environment, io)
  return { code, stdout, stderr }
}

describe('svc nds keys', () => {
  test('create prints the key alone on the last line; --account adds a key; list never shows keys; revoke refuses it', async () => {
    const first = await run('keys', 'create', 'analyst')
    expect(first.code).toBe(0)
    const key = first.stdout.trim().split('\n').at(-1) ?? ''
    expect(key).toMatch(/^nds_[A-Za-z0-9_-]{43}$/)
    const accountId = /account_id: (\S+)/.exec(first.stdout)?.[1] ?? ''
    const keyId = /key_id: (\S+)/.exec(first.stdout)?.[1] ?? ''

    const second = await run('keys', 'create', 'rotation', '--account', accountId, '--json')
    const json = JSON.parse(second.stdout)
    expect(json.account_id).toBe(accountId)
    expect((await run('keys', 'create', 'x', '--account', 'nope')).code).toBe(2)
    expect((await run('keys', 'create')).code).toBe(2)

    const list = await run('keys', 'list', '--json')
    const keys = JSON.parse(list.stdout)
    expect(keys.map((k: { key_id: string }) => k.key_id)).toContain(keyId)
    expect(list.stdout).not.toContain(key)

    const unit = await bootNds(sqld ? { DATABASE_URL: sqld.url } : {}, dataDir)
    try {
      const auth = { authorization: `Bearer ${key}` }
      expect((await unit.send('POST', '/v1/search/filter', {}, auth)).status).toBe(200)
      expect((await run('keys', 'revoke', keyId)).code).toBe(0)
      expect((await unit.send('POST', '/v1/search/filter', {}, auth)).status).toBe(401)
      expect(
        (await unit.send('POST', '/v1/search/filter', {}, { authorization: `Bearer ${json.api_key}` }))
          .status,
      ).toBe(200)
      expect((await run('keys', 'revoke', keyId)).code).toBe(1)
    } finally {
      await unit.close()
    }
  })
})

test('a database that cannot be reached is one line on stderr and exit 2, never a stack trace; the password is not shown', async () => {
  const r = await runIn(
    { SVC_DATA_DIR: dataDir, DATABASE_URL: 'http://user:secret-pw@127.0.0.1:1' },
    'keys',
    'list',
  )
  expect(r.code).toBe(2)
  expect(r.stdout).toBe('')
  expect(r.stderr).toMatch(
    /^svc nds keys list: bad configuration: DATABASE_URL: cannot create or open the database at /,
  )
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).not.toContain('secret-pw')
})

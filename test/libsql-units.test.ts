import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../common/config.ts'
import { bootUnitAsync } from '../runtime/run.ts'
import { prs } from '../units/prs/index.ts'
import { web } from '../units/web/index.ts'
import { tempDir } from './harness.ts'
import { sqldBinary, startSqld } from './sqld.ts'

describe.skipIf(!sqldBinary())('units on a libSQL server', () => {
  test('each unit owns its server database: a second unit on the same one is refused at start', async () => {
    const sqld = await startSqld()
    try {
      const env = { DATABASE_URL: sqld.url, SVC_DATA_DIR: tempDir(), SVC_ENV: 'test', LOG_LEVEL: 'silent' }
      const first = await bootUnitAsync(prs, env)
      expect(first.storage.driver).toBe('libsql')
      await first.close()
      const refused = bootUnitAsync(web, { ...env, TURNSTILE_SECRET_KEY: 'x-secret' })
      await expect(refused).rejects.toBeInstanceOf(ConfigError)
      await expect(refused).rejects.toThrow(`DATABASE_URL: ${sqld.url} holds the database of unit prs`)
      const again = await bootUnitAsync(prs, env)
      expect(again.storage.location).toBe(sqld.url)
      await again.close()
    } finally {
      await sqld.stop()
    }
  })

  test('in process, a unit on the server answers from the data it wrote there', async () => {
    const sqld = await startSqld()
    try {
      const env = { DATABASE_URL: sqld.url, SVC_DATA_DIR: tempDir(), SVC_ENV: 'test', LOG_LEVEL: 'silent' }
      const u = await bootUnitAsync(prs, env)
      try {
        const res = await u.app.handle(new Request('http://localhost/api/v1/tools/host-snapshot'))
        expect(res.status).toBe(200)
        const body = (await res.json()) as { database: { ready: boolean; registered_versions: number } }
        expect(body.database.ready).toBe(true)
        expect(body.database.registered_versions).toBeGreaterThan(0)
      } finally {
        await u.close()
      }
    } finally {
      await sqld.stop()
    }
  })
})

describe('units and the libSQL driver', () => {
  test('every HTTP unit has moved to the storage interface and may run on a server', async () => {
    const { httpUnits } = await import('../units/registry.ts')
    for (const entry of Object.values(httpUnits)) {
      const unit = await entry.load()
      expect({ unit: unit.name, libsql: unit.libsql }).toEqual({ unit: unit.name, libsql: true })
    }
  })

  test('a unit that has not declared libsql refuses a server URL at start, naming the variable', async () => {
    const notMoved = { ...prs, libsql: undefined }
    const env = {
      DATABASE_URL: 'http://127.0.0.1:9',
      SVC_DATA_DIR: tempDir(),
      SVC_ENV: 'test',
      LOG_LEVEL: 'silent',
    }
    const refused = bootUnitAsync(notMoved, env)
    await expect(refused).rejects.toBeInstanceOf(ConfigError)
    await expect(refused).rejects.toThrow('DATABASE_URL: unit prs runs on the embedded SQLite driver only')
  })
})

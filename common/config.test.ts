import { describe, expect, test } from 'bun:test'
import { Type as T } from '@sinclair/typebox'
import { BaseEnv, ConfigError, loadConfig, parseUrlMap } from './config.ts'

describe('loadConfig', () => {
  test('applies defaults and converts numbers and booleans', () => {
    const schema = T.Object({ ...BaseEnv.properties, FLAG: T.Boolean({ default: false }) })
    const config = loadConfig(schema, { PORT: '8080', FLAG: 'yes' })
    expect(config.PORT).toBe(8080)
    expect(config.FLAG).toBe(true)
    expect(config.SVC_ENV).toBe('development')
    expect(config.SVC_DATA_DIR).toBe('./data')
  })

  test('reports every bad variable on its own line, naming what is expected', () => {
    let err: unknown
    try {
      loadConfig(BaseEnv, { PORT: 'eighty', SVC_ENV: 'staging', LOG_LEVEL: 'loud' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const lines = (err as ConfigError).problems
    expect(lines).toHaveLength(3)
    expect(lines[0]).toStartWith('PORT: expected a TCP port')
    expect(lines.some((l) => l.startsWith('SVC_ENV: expected development, test or production'))).toBe(true)
  })

  test('never echoes the value of a secret-looking variable', () => {
    const schema = T.Object({ API_TOKEN: T.String({ minLength: 32 }) })
    expect(() => loadConfig(schema, { API_TOKEN: 'short-secret' })).toThrow(/<redacted>/)
    expect(() => loadConfig(schema, { API_TOKEN: 'short-secret' })).not.toThrow(/short-secret/)
  })

  test('a required variable without default is reported when missing', () => {
    expect(() => loadConfig(T.Object({ NEEDED: T.String() }), {})).toThrow('NEEDED: required')
  })

  test('parseUrlMap reads name=url pairs', () => {
    expect(parseUrlMap('a=http://x:1, b=http://y:2,bad')).toEqual({ a: 'http://x:1', b: 'http://y:2' })
  })
})

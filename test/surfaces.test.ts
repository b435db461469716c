/**
 * Every registered unit's outside-facing surfaces checked by the clients that will read them:
 * its OpenAPI document by an OpenAPI 3.x validator, its /metrics by promtool (when installed).
 * A unit added to the registry is covered with no new test code.
 */
import { describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { credentialsFor } from '../tools/fuzz-credentials.ts'
import { httpUnits } from '../units/registry.ts'
import { bootForTest, type Json } from './harness.ts'

const PROMTOOL = Bun.which('promtool')
if (!PROMTOOL) console.warn('promtool checks skipped: promtool not installed (apt-get install prometheus)')

/** Units whose spec says there is no /metrics endpoint. */
const NO_METRICS = new Set(['eis', 'wta', 'mailbox'])

describe.each(Object.entries(httpUnits))('%s', (name, entry) => {
  test('serves a valid OpenAPI document that lists its liveness route', async () => {
    const unit = await entry.load()
    const setup = await credentialsFor(name)
    const u = bootForTest(unit, setup.env)
    try {
      const path = unit.openapiPath ?? '/openapi.json'
      const doc = await (await u.request(path)).json()
      const result = await new Validator().validate(doc)
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
      expect(doc.paths[unit.liveness]).toBeDefined()
    } finally {
      setup.stop()
      await u.dispose()
    }
  })

  test.skipIf(!PROMTOOL || NO_METRICS.has(name))('/metrics passes promtool check metrics', async () => {
    const setup = await credentialsFor(name)
    const u = bootForTest(await entry.load(), setup.env)
    try {
      await u.request(entry.liveness)
      const res = await u.request('/metrics', { headers: setup.headers })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
      const text = await res.text()
      expect(text).toContain('svc_')
      const check = Bun.spawnSync([PROMTOOL ?? 'promtool', 'check', 'metrics'], { stdin: Buffer.from(text) })
      expect(check.stderr.toString() + check.stdout.toString()).toBe('')
      expect(check.exitCode).toBe(0)
    } finally {
      setup.stop()
      await u.dispose()
    }
  })
  test('the document says which operations need credentials, and the unit agrees', async () => {
    const unit = await entry.load()
    const setup = await credentialsFor(name)
    const u = bootForTest(unit, setup.env)
    try {
      const doc = await (await u.request(unit.openapiPath ?? '/openapi.json')).json()
      const schemes = Object.keys(doc.components?.securitySchemes ?? {})
      let secured = 0
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
        for (const [method, op] of Object.entries(item)) {
          for (const alternative of op.security ?? []) {
            for (const scheme of Object.keys(alternative)) expect(schemes).toContain(scheme)
          }
          // An empty JSON object for bodies: credentials are checked before the body's schema.
          const res = await u.request(path.replace(/\{[^}]+\}/g, 'x'), {
            method: method.toUpperCase(),
            ...(method !== 'get' && { headers: { 'content-type': 'application/json' }, body: '{}' }),
          })
          const where = `${method.toUpperCase()} ${path}`
          if (op.security) {
            secured++
            expect({ where, status: res.status }).toEqual({ where, status: 401 })
          } else {
            expect({ where, refused: [401, 403].includes(res.status) }).toEqual({ where, refused: false })
          }
        }
      }
      // Units with credentials on their routes say so (docs/conventions.md §3).
      if (name === 'rms') expect(secured).toBeGreaterThan(40)
    } finally {
      setup.stop()
      await u.dispose()
    }
  })
})

/** Bad input never yields a 5xx: every internal route with hostile bodies, params and queries. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { TestUnit } from '../../test/harness.ts'
import { bearer, bootLocal, INTERNAL_ROUTES, TOKENS } from './testing.ts'

const W = bearer(TOKENS.write)
let u: TestUnit<unknown>
beforeAll(async () => {
  u = (await bootLocal()) as TestUnit<unknown>
})
afterAll(async () => {
  await u.dispose()
})

const HOSTILE_BODIES = [
  null,
  [],
  'text',
  42,
  { changes: [null] },
  { changes: [{ op: 'upsert', kind: 'agent', resource_id: '../../etc/passwd', document: {} }] },
  { changes: [{ op: 'upsert', kind: 'host', resource_id: 'host', document: { host_id: 1 } }] },
  { changes: [{ op: 'remove', kind: 'nope', resource_id: 'x' }] },
  { plan_id: 'x'.repeat(5000) },
  { text: '' },
  { change: { summary: 'x', settings: { deep: { deeper: [1, 2, { a: null }] } } } },
  { decision: 'approved' },
  { proposal_ref: 'p', decision: 'approved', policy_approved: 'yes', human_approved: true },
]

describe('hostile input', () => {
  test('fixed hostile bodies on every POST route: 4xx or success, never 5xx', async () => {
    const failures: string[] = []
    for (const route of INTERNAL_ROUTES.filter((r) => r.method === 'POST')) {
      for (const body of HOSTILE_BODIES) {
        const res = await u.send('POST', route.path, body, W)
        if (res.status >= 500)
          failures.push(`${route.path} ${JSON.stringify(body).slice(0, 80)} → ${res.status}`)
      }
      const raw = await u.request(route.path, {
        method: 'POST',
        headers: { ...W, 'content-type': 'application/json' },
        body: '{"unterminated',
      })
      // 400 where the route reads a body; the activate route takes none and answers for the proposal.
      if (raw.status < 400 || raw.status >= 500) failures.push(`${route.path} malformed JSON → ${raw.status}`)
      const text = await u.request(route.path, {
        method: 'POST',
        headers: { ...W, 'content-type': 'text/plain' },
        body: 'x',
      })
      if (text.status !== 415) failures.push(`${route.path} text/plain → ${text.status}`)
    }
    expect(failures).toEqual([])
  })

  test('random JSON bodies and path segments', async () => {
    const posts = INTERNAL_ROUTES.filter((r) => r.method === 'POST')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...posts), fc.jsonValue({ maxDepth: 4 }), async (route, body) => {
        const res = await u.send('POST', route.path, body, W)
        return res.status < 500
      }),
      { numRuns: 150 },
    )
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (segment) => {
        const s = encodeURIComponent(segment)
        for (const path of [
          `/api/v1/agent-runtime/catalog/${s}`,
          `/api/v1/persistent-agents/${s}/learning-proposals`,
          `/api/v1/voice/targets/${s}`,
          `/api/v1/execution/approvals/${s}`,
          `/api/v1/audit/events?limit=${s}&before=${s}&kind=${s}`,
        ]) {
          const res = await u.request(path, { headers: W })
          if (res.status >= 500) return false
        }
        return true
      }),
      { numRuns: 100 },
    )
  })
})

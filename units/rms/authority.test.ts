/**
 * The authorization matrix: every internal route × {no token, unknown token, read token, write
 * token, agent lane current, agent lane stale, projection layer down}, driven by one table.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestUnit } from '../../test/harness.ts'
import {
  agentLane,
  bearer,
  bootLocal,
  bootWithProjection,
  INTERNAL_ROUTES,
  type Level,
  type ProjectionLayer,
  projectionLayer,
  TOKENS,
} from './testing.ts'

type Column =
  | 'no_token'
  | 'unknown_token'
  | 'read_token'
  | 'write_token'
  | 'agent_lane_current'
  | 'agent_lane_stale'
  | 'projection_down'
/** An expected status, or `admitted`: authority passed (any answer but 401, 403 or 503). */
type Outcome = 401 | 403 | 503 | 'admitted'

const EXPECTED: Record<Level, Record<Column, Outcome>> = {
  read: {
    no_token: 401,
    unknown_token: 401,
    read_token: 'admitted',
    write_token: 'admitted',
    agent_lane_current: 'admitted',
    agent_lane_stale: 401,
    projection_down: 'admitted', // degraded: a cached resolution of a known token
  },
  write: {
    no_token: 401,
    unknown_token: 401,
    read_token: 403,
    write_token: 'admitted',
    agent_lane_current: 401, // the agent lane admits reads only
    agent_lane_stale: 401,
    projection_down: 503, // writes and control fail closed
  },
}

const COLUMNS: Column[] = [
  'no_token',
  'unknown_token',
  'read_token',
  'write_token',
  'agent_lane_current',
  'agent_lane_stale',
  'projection_down',
]

describe('authorization matrix (projection layer)', () => {
  let layer: ProjectionLayer
  let u: TestUnit<unknown>

  beforeAll(async () => {
    layer = projectionLayer()
    u = (await bootWithProjection(layer, { RMS_AUTHORITY_CACHE_TTL_S: '1' })) as TestUnit<unknown>
  })
  afterAll(async () => {
    await u.dispose()
    layer.peer.stop()
  })

  const headersFor = (column: Column, level: Level): Record<string, string> => {
    switch (column) {
      case 'no_token':
        return {}
      case 'unknown_token':
        return bearer(TOKENS.unknown)
      case 'read_token':
        return bearer(TOKENS.read)
      case 'write_token':
        return bearer(TOKENS.write)
      case 'agent_lane_current':
        return agentLane(layer.version)
      case 'agent_lane_stale':
        return agentLane('pv-0-old')
      case 'projection_down':
        return bearer(level === 'read' ? TOKENS.read : TOKENS.write)
    }
  }

  test('every internal route × every caller gets the expected answer', async () => {
    const failures: string[] = []
    for (const column of COLUMNS) {
      if (column === 'projection_down') {
        // Prime the cache for both tokens, let it pass its bounded age, then take the layer down.
        await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })
        await u.request('/api/v1/domains', { headers: bearer(TOKENS.write) })
        await Bun.sleep(1100)
        layer.down = true
      }
      for (const route of INTERNAL_ROUTES) {
        const res = await u.send(route.method, route.path, route.body, headersFor(column, route.level))
        const expected = EXPECTED[route.level][column]
        const ok =
          expected === 'admitted'
            ? ![401, 403, 503].includes(res.status) && res.status < 500
            : res.status === expected
        const body = await res.text()
        if (!ok)
          failures.push(
            `${column} ${route.method} ${route.path}: expected ${expected}, got ${res.status} ${body.slice(0, 160)}`,
          )
        if (expected !== 'admitted' && !body.startsWith('{"error"'))
          failures.push(`${column} ${route.path}: refusal is not an envelope`)
        if (column === 'projection_down' && res.status === 200 && route.path !== '/metrics') {
          const parsed = JSON.parse(body) as { authority: { degraded: boolean } }
          if (!parsed.authority.degraded) failures.push(`${route.path}: degraded read not marked`)
        }
      }
    }
    layer.down = false
    expect(failures).toEqual([])
  })
})

describe('authority details', () => {
  test('responses say which authority source and projection version decided them', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer)
    const res = await u.request('/api/v1/tool-profiles', { headers: bearer(TOKENS.read) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-svc-authority-source')).toBe('projection')
    expect(res.headers.get('x-svc-projection-version')).toBe('pv-1')
    const body = (await res.json()) as { authority_source: string; authority: Record<string, unknown> }
    expect(body.authority_source).toBe('projection')
    expect(body.authority).toEqual({
      lane: 'bearer',
      subject: 'user:reader',
      projection_version: 'pv-1',
      cached: false,
      degraded: false,
      degraded_reason: null,
    })
    const ready = (await (await u.request('/ready')).json()) as { authority: Record<string, unknown> }
    expect(ready.authority).toMatchObject({
      mode: 'projection',
      authority_source: 'projection',
      projection_layer_reachable: true,
    })
    expect((ready.authority.tool_policy_projection as { version: string }).version).toBe('pv-1')
    expect(ready.authority.last_resolved_projection_version).toBe('pv-1')
    await u.dispose()
    layer.peer.stop()
  })

  test('resolutions are cached with a bounded age, never past expires_at', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer, { RMS_AUTHORITY_CACHE_TTL_S: '60' })
    for (let i = 0; i < 3; i++)
      expect((await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })).status).toBe(200)
    expect(layer.resolves()).toBe(1)
    await u.dispose()
    layer.peer.stop()

    const expiring = projectionLayer({ expiresInS: 1 })
    const v = await bootWithProjection(expiring, { RMS_AUTHORITY_CACHE_TTL_S: '60' })
    expect((await v.request('/api/v1/domains', { headers: bearer(TOKENS.read) })).status).toBe(200)
    await Bun.sleep(1050)
    // The cached entry passed its expires_at well inside the cache age: RMS asks the layer again.
    expect((await v.request('/api/v1/domains', { headers: bearer(TOKENS.read) })).status).toBe(200)
    expect(expiring.resolves()).toBe(2)
    await v.dispose()
    expiring.peer.stop()
  })

  test('projection layer down: an unknown token is never admitted, reads need a cached resolution', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer)
    layer.down = true
    const unknown = await u.request('/api/v1/domains', { headers: bearer(TOKENS.unknown) })
    expect(unknown.status).toBe(503)
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('authority_unavailable')
    expect((await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })).status).toBe(503)
    const ready = (await (await u.request('/ready')).json()) as {
      status: string
      authority: { writes: string }
    }
    expect(ready.status).toBe('degraded')
    expect(ready.authority.writes).toBe('fail_closed')
    layer.down = false
    expect((await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })).status).toBe(200)
    await u.dispose()
    layer.peer.stop()
  })

  test('a write right after the layer went down fails closed even with a fresh cache', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer, { RMS_AUTHORITY_CACHE_TTL_S: '60' })
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.write))).status).toBe(
      200,
    )
    layer.down = true
    // A read learns the layer is down only when it has to ask; an unknown token makes it ask.
    expect((await u.request('/api/v1/domains', { headers: bearer(TOKENS.unknown) })).status).toBe(503)
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.write))).status).toBe(
      503,
    )
    const read = await u.request('/api/v1/domains', { headers: bearer(TOKENS.write) })
    expect(read.status).toBe(200)
    expect(((await read.json()) as { authority: { degraded: boolean } }).authority.degraded).toBe(true)
    await u.dispose()
    layer.peer.stop()
  })

  test('agent lane: subject ref works, unknown agent 401, agent without read 403, missing version 401', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer)
    const bySubject = await u.request('/api/v1/agent-tool-policies/research-worker', {
      headers: {
        'x-svc-actor-subject-ref': 'agent:research-worker',
        'x-svc-policy-projection-version': 'pv-1',
      },
    })
    expect(bySubject.status).toBe(200)
    const body = (await bySubject.json()) as {
      authority: { lane: string }
      policy: { projection: { agent_lane_read: boolean } }
    }
    expect(body.authority.lane).toBe('agent')
    expect(body.policy.projection.agent_lane_read).toBe(true)
    expect((await u.request('/api/v1/domains', { headers: agentLane('pv-1', 'a-nobody') })).status).toBe(401)
    const conflict = await u.request('/api/v1/domains', {
      headers: { ...agentLane('pv-1'), 'x-svc-actor-subject-ref': 'agent:orchestrator' },
    })
    expect(conflict.status).toBe(401)
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe(
      'agent_identity_conflict',
    )
    expect(
      (await u.request('/api/v1/domains', { headers: { authorization: `bearer ${TOKENS.read}` } })).status,
    ).toBe(200)
    expect(
      (await u.request('/api/v1/domains', { headers: agentLane('pv-1', 'a-orchestrator') })).status,
    ).toBe(403)
    expect(
      (await u.request('/api/v1/domains', { headers: { 'x-svc-acting-agent-id': 'a-research-worker' } }))
        .status,
    ).toBe(401)
    // The projection moves on: a caller with the new version makes RMS refresh; the old one is stale.
    layer.setVersion('pv-2')
    expect((await u.request('/api/v1/domains', { headers: agentLane('pv-2') })).status).toBe(200)
    const stale = await u.request('/api/v1/domains', { headers: agentLane('pv-1') })
    expect(stale.status).toBe(401)
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe(
      'policy_projection_mismatch',
    )
    await u.dispose()
    layer.peer.stop()
  })

  test('agent lane with the projection layer down and no current projection fails closed', async () => {
    const layer = projectionLayer()
    const u = await bootWithProjection(layer, { RMS_AUTHORITY_CACHE_TTL_S: '1' })
    expect((await u.request('/api/v1/domains', { headers: agentLane('pv-1') })).status).toBe(200)
    layer.down = true
    await Bun.sleep(1100)
    const res = await u.request('/api/v1/domains', { headers: agentLane('pv-1') })
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('policy_projection_stale')
    await u.dispose()
    layer.peer.stop()
  })

  test('an unauthenticated caller is refused before the body is validated', async () => {
    const u = await bootLocal()
    const res = await u.send('POST', '/api/v1/runtime-host/patch/plan', { nonsense: true })
    expect(res.status).toBe(401)
    const bad = await u.send(
      'POST',
      '/api/v1/runtime-host/patch/plan',
      { changes: 'x' },
      bearer(TOKENS.write),
    )
    expect(bad.status).toBe(400)
    const malformed = await u.request('/api/v1/domains', { headers: { authorization: 'Basic abc' } })
    expect(malformed.status).toBe(401)
    await u.dispose()
  })
})

describe('local token mode', () => {
  test('development/test: authority_source local; unknown tokens refused; read token cannot write', async () => {
    const u = await bootLocal()
    const res = await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      authority_source: string
      authority: { degraded: boolean; subject: string }
    }
    expect(body.authority_source).toBe('local')
    expect(body.authority.subject).toBe('user:reader')
    expect(body.authority.degraded).toBe(false)
    expect((await u.request('/api/v1/domains', { headers: bearer(TOKENS.unknown) })).status).toBe(401)
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.read))).status).toBe(
      403,
    )
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.write))).status).toBe(
      200,
    )
    // No projection is held in local mode: the agent lane fails closed.
    const lane = await u.request('/api/v1/domains', { headers: agentLane('pv-1') })
    expect(lane.status).toBe(503)
    expect(((await lane.json()) as { error: { code: string } }).error.code).toBe('policy_projection_missing')
    const ready = (await (await u.request('/ready')).json()) as { authority: { authority_source: string } }
    expect(ready.authority.authority_source).toBe('local')
    await u.dispose()
  })

  test('production without a projection layer: reads degraded, writes 503', async () => {
    const u = await bootLocal({ SVC_ENV: 'production', RMS_LOCAL_TOKENS: `${TOKENS.read}:user:reader:r` })
    const res = await u.request('/api/v1/domains', { headers: bearer(TOKENS.read) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { authority: { degraded: boolean; degraded_reason: string } }
    expect(body.authority).toMatchObject({
      degraded: true,
      degraded_reason: 'projection_layer_not_configured',
    })
    expect(res.headers.get('x-svc-authority-degraded')).toBe('projection_layer_not_configured')
    // Even with a write grant in hand, writes fail closed (and production refuses local write tokens at start).
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.read))).status).toBe(
      503,
    )
    const ready = (await (await u.request('/ready')).json()) as {
      status: string
      authority: { writes: string }
    }
    expect(ready.status).toBe('degraded')
    expect(ready.authority.writes).toBe('fail_closed')
    await u.dispose()
  })
})

describe('a failing projection layer', () => {
  test('is not asked again within the retry window: one timeout, then fast answers', async () => {
    const hung = projectionLayer()
    hung.peer.respond(async () => {
      await Bun.sleep(400)
      return new Response('late', { status: 503 })
    })
    const u = await bootWithProjection(hung, {
      RMS_AUTHORITY_TIMEOUT_MS: '200',
      RMS_AUTHORITY_RETRY_MS: '5000',
    })
    const t0 = performance.now()
    expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.write))).status).toBe(
      503,
    )
    const first = performance.now() - t0
    const t1 = performance.now()
    for (let i = 0; i < 5; i++) {
      expect((await u.send('POST', '/api/v1/runtime-host/patch/plan', {}, bearer(TOKENS.write))).status).toBe(
        503,
      )
    }
    expect(first).toBeGreaterThanOrEqual(150)
    expect(performance.now() - t1).toBeLessThan(150)
    expect(hung.peer.requests.length).toBe(1)
    await u.dispose()
    hung.peer.stop()
  })
})

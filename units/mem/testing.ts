/** Fakes that speak the real shapes: an OpenAI-compatible embedding runtime and Qdrant's REST API. */
import { type FakePeer, fakePeer, json } from '../../test/harness.ts'

/** A deterministic embedding: the same text always gives the same unit vector. */
export function vectorOf(text: string, dimension: number): number[] {
  const v = Array.from({ length: dimension }, (_, i) => {
    let h = 2166136261 ^ i
    for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
    return ((h >>> 0) % 2000) / 1000 - 1
  })
  const norm = Math.hypot(...v) || 1
  return v.map((x) => x / norm)
}

export function fakeEmbedding(
  opts: { models?: string[]; dimension?: number; ready?: boolean; key?: string } = {},
): FakePeer {
  const models = opts.models ?? ['nomic-embed-text', 'bge-small']
  const dimension = opts.dimension ?? 8
  return fakePeer((req) => {
    if (opts.key && req.headers.get('authorization') !== `Bearer ${opts.key}`)
      return json({ error: { message: 'invalid api key', type: 'invalid_request_error' } }, 401)
    if (req.path === '/readyz')
      return opts.ready === false ? json({ status: 'loading' }, 503) : json({ status: 'ok' })
    if (req.path === '/v1/models')
      return json({
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'local' })),
      })
    if (req.path === '/v1/embeddings' && req.method === 'POST') {
      const body = JSON.parse(req.body) as { model: string; input: string | string[] }
      if (!models.includes(body.model))
        return json({ error: { message: `model ${body.model} not found` } }, 404)
      const inputs = Array.isArray(body.input) ? body.input : [body.input]
      return json({
        object: 'list',
        model: body.model,
        data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, dimension) })),
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      })
    }
    return json({ error: { message: 'not found' } }, 404)
  })
}

interface Collection {
  size: number
  distance: string
  points: Map<string, { vector: number[]; payload: unknown }>
}

const ok = (result: unknown) => json({ result, status: 'ok', time: 0.001 })

/** Qdrant: collections, points upsert/search/delete, snapshots list; `api-key` checked when given. */
export function fakeQdrant(
  opts: { key?: string; collections?: Record<string, { size: number; distance: string }> } = {},
) {
  const collections = new Map<string, Collection>(
    Object.entries(opts.collections ?? {}).map(([n, c]) => [n, { ...c, points: new Map() }]),
  )
  const peer = fakePeer((req) => {
    if (opts.key && req.headers.get('api-key') !== opts.key)
      return new Response('Invalid api-key', { status: 401 })
    const url = new URL(`http://x${req.path}`)
    const parts = url.pathname.split('/').filter(Boolean)
    if (parts[0] !== 'collections') return json({ status: { error: 'not found' } }, 404)
    if (parts.length === 1) return ok({ collections: [...collections.keys()].map((name) => ({ name })) })
    const name = decodeURIComponent(parts[1] ?? '')
    const c = collections.get(name)
    const rest = parts.slice(2).join('/')
    if (rest === '' && req.method === 'PUT') {
      if (c) return json({ status: { error: `Wrong input: Collection \`${name}\` already exists!` } }, 409)
      const body = JSON.parse(req.body) as { vectors: { size: number; distance: string } }
      collections.set(name, { ...body.vectors, points: new Map() })
      return ok(true)
    }
    if (!c) return json({ status: { error: `Not found: Collection \`${name}\` doesn't exist!` } }, 404)
    if (rest === '' && req.method === 'GET')
      return ok({
        status: 'green',
        points_count: c.points.size,
        config: { params: { vectors: { size: c.size, distance: c.distance } } },
      })
    if (rest === 'points' && req.method === 'PUT') {
      const body = JSON.parse(req.body) as { points: { id: string; vector: number[]; payload: unknown }[] }
      for (const p of body.points) {
        if (p.vector.length !== c.size)
          return json(
            {
              status: {
                error: `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${p.vector.length}`,
              },
            },
            400,
          )
        c.points.set(String(p.id), { vector: p.vector, payload: p.payload })
      }
      return ok({ operation_id: 1, status: 'completed' })
    }
    if (rest === 'points/search' && req.method === 'POST') {
      const body = JSON.parse(req.body) as { vector: number[]; limit: number }
      const dot = (a: number[]) => a.reduce((s, x, i) => s + x * (body.vector[i] ?? 0), 0)
      const hits = [...c.points].map(([id, p]) => ({
        id,
        version: 1,
        score: dot(p.vector),
        payload: p.payload,
      }))
      return ok(hits.sort((a, b) => b.score - a.score).slice(0, body.limit))
    }
    if (rest === 'points/delete' && req.method === 'POST') {
      for (const id of (JSON.parse(req.body) as { points: string[] }).points) c.points.delete(String(id))
      return ok({ operation_id: 2, status: 'completed' })
    }
    if (rest === 'snapshots' && req.method === 'GET')
      return ok([
        { name: `${name}-2026-11-22-04-50-48.snapshot`, creation_time: '2026-11-22T04:50:48', size: 1024 },
      ])
    return json({ status: { error: 'not found' } }, 404)
  })
  return Object.assign(peer, { collections })
}

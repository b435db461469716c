import { afterAll, describe, expect, test } from 'bun:test'
import { Type as T } from '@sinclair/typebox'
import { fakePeer, json } from '../test/harness.ts'
import { callPeer, type PeerFailure } from './peer.ts'

const peer = fakePeer((req) => {
  if (req.path === '/slow') return Bun.sleep(300).then(() => json({ ok: true }))
  if (req.path === '/missing') return json({ error: 'nope' }, 404)
  if (req.path === '/html') return new Response('<p>hi</p>', { headers: { 'content-type': 'text/html' } })
  return json({ ok: true, echo: req.body })
})
afterAll(() => peer.stop())

const Ok = T.Object({ ok: T.Boolean() })

describe('callPeer', () => {
  test('returns the typed body on 2xx', async () => {
    const res = await callPeer({ url: `${peer.url}/x`, json: { a: 1 }, timeoutMs: 1000, schema: Ok })
    expect(res.ok).toBe(true)
    if (res.ok) expect(res.body.ok).toBe(true)
    expect(peer.requests.at(-1)?.headers.get('content-type')).toContain('application/json')
  })

  test.each<[string, string | undefined, PeerFailure]>([
    ['not configured', undefined, 'not_configured'],
    ['timeout', '/slow', 'timeout'],
    ['bad status', '/missing', 'bad_status'],
    ['body off contract', '/html', 'bad_body'],
  ])('%s is a clear failure, never a throw', async (_, path, reason) => {
    const res = await callPeer({ url: path && `${peer.url}${path}`, timeoutMs: 100, schema: Ok })
    expect(res.ok).toBe(false)
    if (!res.ok) expect(res.reason).toBe(reason)
  })

  test('unreachable peer', async () => {
    const res = await callPeer({ url: 'http://127.0.0.1:9/', timeoutMs: 500 })
    expect(res.ok === false && res.reason).toBe('unreachable')
  })

  test('acceptStatus lets a 404 count as an answer', async () => {
    const res = await callPeer({ url: `${peer.url}/missing`, timeoutMs: 500, acceptStatus: [404] })
    expect(res.ok && res.status).toBe(404)
  })
})

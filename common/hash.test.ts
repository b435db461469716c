import { describe, expect, test } from 'bun:test'
import { canonicalHash, canonicalJson, hmacSha256Hex, safeEqual, verifyHmacHex } from './hash.ts'

describe('hashes', () => {
  test('canonical JSON follows RFC 8785: sorted keys, no spaces, ES number form', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1e21, y: 0.1 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":0.1,"z":1e+21}}',
    )
  })

  test('canonicalHash is key-order independent lowercase hex sha-256', () => {
    const h = canonicalHash({ a: 1, b: 2 })
    expect(h).toBe(canonicalHash({ b: 2, a: 1 }))
    expect(h).toMatch(/^[0-9a-f]{64}$/)
    // sha256('{"a":1,"b":2}')
    expect(h).toBe('43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777')
  })

  test('HMAC verification accepts the sha256= prefix and refuses anything else', () => {
    const sig = hmacSha256Hex('secret', 'body')
    expect(verifyHmacHex('secret', 'body', sig)).toBe(true)
    expect(verifyHmacHex('secret', 'body', `sha256=${sig.toUpperCase()}`)).toBe(true)
    expect(verifyHmacHex('secret', 'body2', sig)).toBe(false)
    expect(verifyHmacHex('secret', 'body', null)).toBe(false)
    expect(safeEqual('a', 'ab')).toBe(false)
  })
})

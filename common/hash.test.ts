import { describe, expect, test } from 'bun:test'
import { canonicalHash, canonicalJson, hmacSha256Hex, safeEqual } from './hash.ts'

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

  test('HMAC-SHA256 is the RFC 4231 value; safeEqual refuses different lengths', () => {
    // RFC 4231 test case 2
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
    expect(safeEqual('a', 'ab')).toBe(false)
    expect(safeEqual('ab', 'ab')).toBe(true)
  })
})

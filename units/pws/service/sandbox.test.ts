import { describe, expect, test } from 'bun:test'
import { AppError, conflict } from '../../../common/errors.ts'
import { withBoundedRetry } from './sandbox.ts'

describe('bounded retry of sandbox writes', () => {
  test('a storage failure is retried; the answer says on which attempt it applied', async () => {
    const seen: number[] = []
    const out = await withBoundedRetry({ maxAttempts: 3, backoffMs: 1, timeoutMs: 1000 }, (attempt) => {
      seen.push(attempt)
      if (attempt < 3) throw new Error('SQLITE_BUSY')
      return attempt
    })
    expect(out).toBe(3)
    expect(seen).toEqual([1, 2, 3])
  })

  test("the guard's 503 persistence_unavailable is a storage failure too, so it is retried", async () => {
    let calls = 0
    await withBoundedRetry({ maxAttempts: 3, backoffMs: 1, timeoutMs: 1000 }, () => {
      calls++
      if (calls < 2) throw new AppError(503, 'persistence_unavailable', 'down')
      return calls
    })
    expect(calls).toBe(2)
  })

  test('after max_attempts the write fails closed with 503 sandbox_write_failed', async () => {
    let calls = 0
    const err = await withBoundedRetry({ maxAttempts: 2, backoffMs: 1, timeoutMs: 1000 }, () => {
      calls++
      throw new Error('disk I/O error')
    }).catch((e: unknown) => e)
    expect(calls).toBe(2)
    expect(err).toBeInstanceOf(AppError)
    expect(err).toMatchObject({ status: 503, errorCode: 'sandbox_write_failed', details: { attempts: 2 } })
  })

  test('no attempt starts past timeout_ms; a refusal is never retried', async () => {
    let calls = 0
    const started = Date.now()
    await withBoundedRetry({ maxAttempts: 5, backoffMs: 80, timeoutMs: 100 }, () => {
      calls++
      throw new Error('busy')
    }).catch(() => undefined)
    expect(calls).toBe(2)
    expect(Date.now() - started).toBeLessThan(300)
    let refusals = 0
    const refused = await withBoundedRetry({ maxAttempts: 5, backoffMs: 1, timeoutMs: 1000 }, () => {
      refusals++
      throw conflict('handoff_mismatch', 'no')
    }).catch((e: unknown) => e)
    expect(refusals).toBe(1)
    expect(refused).toMatchObject({ status: 409 })
  })
})

import { describe, expect, test } from 'bun:test'
import { runUnitProcess, tempDir } from '../../test/harness.ts'

describe('the real mailbox process', () => {
  test('bun run unit mailbox accepts a publish, refuses one byte over the limit as text, stops on SIGTERM', async () => {
    const proc = await runUnitProcess('mailbox', '/healthz', {
      SVC_DATA_DIR: tempDir('svc-mailbox-proc-'),
      MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: '1024',
    })
    try {
      const ok = await fetch(`${proc.url}/publish`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ topic: 'orders', message: { n: 1 } }),
      })
      expect(ok.status).toBe(202)
      const over = await fetch(`${proc.url}/publish`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ topic: 'orders', message: 'x'.repeat(1100) }),
      })
      expect(over.status).toBe(413)
      expect(await over.text()).toBe('payload too large')
      const page = (await (await fetch(`${proc.url}/messages?topic=orders`)).json()) as { data: unknown[] }
      expect(page.data).toHaveLength(1)
    } finally {
      expect(await proc.stop()).toBe(0)
    }
  }, 20_000)
})

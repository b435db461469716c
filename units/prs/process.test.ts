import { describe, expect, test } from 'bun:test'
import { fakePeer, json, runUnitProcess, tempDir } from '../../test/harness.ts'

describe('the real prs process', () => {
  test('bun run unit prs serves the matrix, observes a unit, and stops cleanly on SIGTERM', async () => {
    const web = fakePeer((r) => (r.path === '/health' ? json({ ok: true, status: 'ok' }) : json({}, 404)))
    const proc = await runUnitProcess('prs', '/health', {
      SVC_DATA_DIR: tempDir('svc-prs-proc-'),
      SVC_UNIT_URLS: `web=${web.url}`,
      PRS_OBSERVE_INTERVAL_MS: '1000',
    })
    try {
      const matrix = (await (await fetch(`${proc.url}/api/v1/contracts/matrix`)).json()) as {
        producer_families: string[]
        version: string
      }
      expect(matrix.producer_families).toContain('registry.contract_matrix')
      expect(matrix.version).toStartWith('c1-')
      let state = ''
      for (let i = 0; i < 40 && state !== 'up'; i++) {
        const s = (await (await fetch(`${proc.url}/api/v1/tools/runtime-status`)).json()) as {
          units: { unit: string; state: string }[]
        }
        state = s.units.find((x) => x.unit === 'web')?.state ?? ''
        if (state !== 'up') await Bun.sleep(50)
      }
      expect(state).toBe('up')
      expect(web.requests.some((r) => r.path === '/health')).toBe(true)
    } finally {
      expect(await proc.stop()).toBe(0)
      web.stop()
    }
  }, 20_000)
})

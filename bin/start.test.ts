import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'

const ROOT = join(import.meta.dir, '..')

/** An offset that puts the suite's ports (18080-18096) on a free stretch, away from default runs. */
const offset = () => 20_000 + Math.floor(Math.random() * 20_000)

async function until(ok: () => Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await ok().catch(() => false)) return true
    await Bun.sleep(100)
  }
  return false
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`defect 9: the README's \`npm start\` stops cleanly on ${signal}: exit 0, no unit left running`, async () => {
    const shift = offset()
    const health = `http://127.0.0.1:${18080 + shift}/health`
    const all = Object.values(httpUnits).map((u) => `http://127.0.0.1:${u.port + shift}${u.liveness}`)
    const npm = Bun.spawn(['npm', 'start'], {
      cwd: ROOT,
      env: { ...process.env, SVC_ENV: 'test', SVC_DATA_DIR: tempDir(), SVC_SUITE_PORT_OFFSET: String(shift) },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    for (const url of all) expect(await until(async () => (await fetch(url)).status === 200)).toBe(true)
    npm.kill(signal)
    expect(await npm.exited).toBe(0)
    expect(
      await until(
        async () =>
          !(await fetch(health).then(
            () => true,
            () => false,
          )),
        5_000,
      ),
    ).toBe(true)
  }, 40_000)
}

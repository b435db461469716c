import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { runUnitProcess, tempDir } from '../test/harness.ts'

const ROOT = join(import.meta.dir, '..')

/** `ENV A=1 \ B=2` of the Dockerfile's final stage: what every container starts with. */
function imageEnv(dockerfile: string): Record<string, string> {
  const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
  const block = final.match(/\nENV ((?:[^\n]*\\\n)*[^\n]*)/)?.[1] ?? ''
  return Object.fromEntries([...block.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]))
}

test("the README's default `docker run` (WEB, production) starts: the image's environment plus the example's -e flags", async () => {
  const dockerfile = await Bun.file(join(ROOT, 'Dockerfile')).text()
  const readme = await Bun.file(join(ROOT, 'README.md')).text()
  const example = readme.split('\n').find((l) => l.startsWith('docker run') && l.trim().endsWith(' svc'))
  expect(example).toBeDefined()
  const flags = Object.fromEntries(
    [...(example ?? '').matchAll(/-e ([A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  )
  const env: Record<string, string | undefined> = {
    ...imageEnv(dockerfile),
    ...flags,
    SVC_DATA_DIR: tempDir(),
    LOG_LEVEL: 'info',
  }
  expect(env.SVC_ENV).toBe('production')
  // runUnitProcess binds 127.0.0.1 on a free port instead of the image's 0.0.0.0:18080.
  const unit = await runUnitProcess('web', '/health', env)
  expect(await unit.stop()).toBe(0)
})

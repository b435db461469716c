import { expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir, testDriver } from '../../test/harness.ts'
import { eisCli } from './cli.ts'
import { bootEis, call, factsFile } from './testing.ts'

const capture = () => {
  const out = { stdout: '', stderr: '' }
  const io = {
    stdout: (text: string) => {
      out.stdout += text
    },
    stderr: (text: string) => {
      out.stderr += text
    },
  }
  return { out, io }
}

test('`svc eis facts import` loads the file the running unit then projects', async () => {
  const dir = tempDir()
  const file = join(dir, 'facts.jsonl')
  writeFileSync(file, factsFile())
  const { out, io } = capture()
  const u = await bootEis({ SVC_DATA_DIR: dir })
  try {
    // On a libSQL server the command is pointed at the unit's server, as an operator would.
    const server = testDriver() === 'libsql' ? { DATABASE_URL: u.ctx.storage.location } : {}
    expect(await eisCli.run(['facts', 'import', file, '--json'], { SVC_DATA_DIR: dir, ...server }, io)).toBe(
      0,
    )
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, rows: 4 })
    const fact = (
      await (
        await call(u, 'identity_projections.project_tool_access_fact', { technical_subject: 'alice' })
      ).json()
    ).message
    expect(fact.project_tool_login_allowed).toBe(true)
  } finally {
    await u.dispose()
  }
})

test('a bad file exits 1 naming the line; a missing file or argument exits 2', async () => {
  const dir = tempDir()
  const file = join(dir, 'bad.jsonl')
  writeFileSync(file, '{"technical_subject":"x"}\n')
  const bad = capture()
  expect(await eisCli.run(['facts', 'import', file], { SVC_DATA_DIR: dir }, bad.io)).toBe(1)
  expect(bad.out.stdout).toContain('line 1')
  expect(
    await eisCli.run(['facts', 'import', join(dir, 'nope.jsonl')], { SVC_DATA_DIR: dir }, capture().io),
  ).toBe(2)
  expect(await eisCli.run(['facts', 'import'], { SVC_DATA_DIR: dir }, capture().io)).toBe(2)
})

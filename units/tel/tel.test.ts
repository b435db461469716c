import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, PackageMetadataSchema } from '../../common/cli.ts'
import {
  captureIo,
  type FakePeer,
  fakePeer,
  type Json,
  json,
  listenForTest,
  tempDir,
} from '../../test/harness.ts'
import { prs } from '../prs/index.ts'
import { tel } from './index.ts'
import {
  DriftDocument,
  ManifestDocument,
  SnapshotDocument,
  SnapshotFile,
  VERIFY_FAMILIES,
  VerifyDocument,
} from './model.ts'

const ROOT = join(import.meta.dir, '../..')
const BASIC = `Basic ${Buffer.from('ops:pw-secret').toString('base64')}`

let registry: ReturnType<typeof listenForTest>
let host: FakePeer
let telephony: FakePeer
/** Passes PRS's answers through, letting a test rewrite one view. */
let proxy: FakePeer
let rewrite: (path: string, body: Json) => Json = (_p, b) => b

beforeAll(() => {
  registry = listenForTest(prs, { PRS_REPO_DIR: ROOT })
  host = fakePeer((req) => (req.path === '/healthz' ? json({ status: 'ok' }) : json({}, 404)))
  telephony = fakePeer((req) =>
    req.headers.get('authorization') === BASIC
      ? json({ system: { version: '20.5.0' }, status: { startup_time: '2026-11-22T04:50:48.123Z' } })
      : new Response('Unauthorized', { status: 401 }),
  )
  proxy = fakePeer(async (req) => {
    const res = await fetch(registry.url + req.path)
    return json(rewrite(req.path, await res.json()), res.status)
  })
})
afterAll(async () => {
  for (const p of [host, telephony, proxy]) p.stop()
  await registry.dispose()
})

const baseEnv = () => ({
  SVC_REGISTRY_URL: registry.url,
  SVC_RUNTIME_HOST_URL: host.url,
  TEL_TELEPHONY_INFO_URL: `${telephony.url}/ari/asterisk/info`,
  SVC_DIST_DIR: tempDir('svc-tel-dist-'),
})

async function run(args: string[], env: Record<string, string | undefined>) {
  const io = captureIo()
  const code = await tel.run(args, env, io)
  return { code, out: io.out, err: io.err, doc: () => JSON.parse(io.out) as Json }
}

const statuses = (doc: Json) => Object.fromEntries(doc.checks.map((c: Json) => [c.name, c.status]))

describe('tel verify against the real PRS unit', () => {
  test('every family passes: exit 0, the --json document matches its schema', async () => {
    const r = await run(['verify', '--json'], baseEnv())
    expect(r.err).toBe('')
    const doc = r.doc()
    expect(Value.Check(VerifyDocument, doc)).toBe(true)
    expect(doc.checks.filter((c: Json) => c.status !== 'passed')).toEqual([])
    expect(doc.verdict).toBe('passed')
    expect(doc.families.map((f: Json) => f.family)).toEqual([...VERIFY_FAMILIES])
    expect(r.code).toBe(EXIT_OK)
    const s = statuses(doc)
    expect(s['telephony_adapter_slice.info_route']).toBe('passed')
    expect(s['telephony_adapter_slice.info_route_authenticated']).toBeUndefined()
    expect(s['stack_source_of_truth.docs_standard']).toBe('passed')
  })

  test('human summary names every check and the total', async () => {
    const r = await run(['verify'], baseEnv())
    expect(r.code).toBe(EXIT_OK)
    expect(r.out).toContain(
      'PASS    voice_router_runtime_slice.runtime_host: runtime host GET /healthz answered 200',
    )
    expect(r.out).toContain(
      'PASS    telephony_adapter_slice.info_route: info route answered 401 without credentials',
    )
    expect(r.out).toMatch(/passed: \d+ passed, 0 failed, 0 unknown/)
  })

  test('--family checks one family; credentials add the authenticated info check', async () => {
    let r = await run(['verify', '--json', '--family', 'telephony_adapter_slice'], {
      ...baseEnv(),
      TEL_TELEPHONY_AUTH: 'ops:pw-secret',
    })
    expect(r.code).toBe(EXIT_OK)
    expect(r.doc().families).toEqual([{ family: 'telephony_adapter_slice', verdict: 'passed' }])
    expect(statuses(r.doc())['telephony_adapter_slice.info_route_authenticated']).toBe('passed')
    expect(r.out).not.toContain('pw-secret')
    r = await run(['verify', '--json', '--family', 'telephony_adapter_slice'], {
      ...baseEnv(),
      TEL_TELEPHONY_AUTH: 'ops:wrong',
    })
    expect(r.code).toBe(EXIT_FAILED)
    expect(statuses(r.doc())['telephony_adapter_slice.info_route_authenticated']).toBe('failed')
  })

  test('an info route open without credentials fails', async () => {
    const open = fakePeer(() => json({ system: {} }))
    try {
      const r = await run(['verify', '--json', '--family', 'telephony_adapter_slice'], {
        ...baseEnv(),
        TEL_TELEPHONY_INFO_URL: open.url,
      })
      expect(r.code).toBe(EXIT_FAILED)
      expect(r.doc().verdict).toBe('failed')
      expect(r.doc().checks.find((c: Json) => c.name.endsWith('.info_route')).reason).toContain(
        '200 without credentials',
      )
    } finally {
      open.stop()
    }
  })

  test('an unreachable runtime host is unknown, never passed or failed (exit 1)', async () => {
    const gone = fakePeer(() => json({}))
    gone.stop()
    const r = await run(['verify', '--json', '--family', 'voice_router_runtime_slice'], {
      ...baseEnv(),
      SVC_RUNTIME_HOST_URL: gone.url,
    })
    expect(r.code).toBe(EXIT_FAILED)
    const doc = r.doc()
    expect(doc.verdict).toBe('unknown')
    const check = doc.checks.find((c: Json) => c.name === 'voice_router_runtime_slice.runtime_host')
    expect(check.status).toBe('unknown')
    expect(check.reason).toContain('connection failed')
    expect(r.out).not.toContain('"failed"')
  })

  test('a runtime host answering 503 fails; an unset one is unknown', async () => {
    host.respond(() => json({ status: 'down' }, 503))
    try {
      let r = await run(['verify', '--json', '--family', 'voice_router_runtime_slice'], baseEnv())
      expect(statuses(r.doc())['voice_router_runtime_slice.runtime_host']).toBe('failed')
      r = await run(['verify', '--json', '--family', 'voice_router_runtime_slice'], {
        ...baseEnv(),
        SVC_RUNTIME_HOST_URL: undefined,
      })
      expect(statuses(r.doc())['voice_router_runtime_slice.runtime_host']).toBe('unknown')
      expect(r.doc().checks.find((c: Json) => c.name.endsWith('.runtime_host')).reason).toContain(
        'not configured',
      )
    } finally {
      host.respond((req) => (req.path === '/healthz' ? json({ status: 'ok' }) : json({}, 404)))
    }
  })

  test('PRS unreachable: every check that needs it is unknown, local ones still pass', async () => {
    const gone = fakePeer(() => json({}))
    gone.stop()
    const r = await run(['verify', '--json'], { ...baseEnv(), SVC_REGISTRY_URL: gone.url })
    expect(r.code).toBe(EXIT_FAILED)
    const s = statuses(r.doc())
    expect(r.doc().verdict).toBe('unknown')
    expect(s['voice_runtime_validation_matrix.matrix_cells']).toBe('unknown')
    expect(s['combination_profile_consumer.profile']).toBe('unknown')
    expect(s['telephony_adapter_slice.static_ports']).toBe('passed')
    expect(Object.values(s)).not.toContain('failed')
  })

  test('PRS contradicting the stack (a slice default, a dropped event) fails the families it touches', async () => {
    rewrite = (path, body) => {
      if (path.endsWith('/optional-slices'))
        for (const s of body.slices) if (s.slice_key === 'tel.stt_tts_flow') s.default_enabled = true
      if (path.endsWith('/voice/contracts/events'))
        body.events = body.events.filter((e: Json) => e.name !== 'voice_transcript_segment')
      return body
    }
    try {
      const r = await run(['verify', '--json'], { ...baseEnv(), SVC_REGISTRY_URL: proxy.url })
      expect(r.code).toBe(EXIT_FAILED)
      const s = statuses(r.doc())
      expect(s['stt_tts_flow_slice.optional_slice']).toBe('failed')
      expect(s['stt_tts_flow_slice.events']).toBe('failed')
      expect(s['voice_runtime_validation_matrix.voice_events']).toBe('failed')
      expect(s['voice_router_runtime_slice.optional_slice']).toBe('passed')
      expect(r.doc().families.find((f: Json) => f.family === 'stt_tts_flow_slice').verdict).toBe('failed')
    } finally {
      rewrite = (_p, b) => b
    }
  })

  test('a PRS view off its contract fails', async () => {
    rewrite = (path, body) => (path.endsWith('/profiles') ? { ...body, profiles: 'none' } : body)
    try {
      const r = await run(['verify', '--json', '--family', 'combination_profile_consumer'], {
        ...baseEnv(),
        SVC_REGISTRY_URL: proxy.url,
      })
      expect(r.code).toBe(EXIT_FAILED)
      expect(r.doc().checks[0].reason).toContain('does not match its contract at /profiles')
    } finally {
      rewrite = (_p, b) => b
    }
  })

  test('bad usage and configuration exit 2', async () => {
    let r = await run(['verify'], { ...baseEnv(), SVC_REGISTRY_URL: undefined })
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain('SVC_REGISTRY_URL is not set')
    r = await run(['verify', '--family', 'nope'], baseEnv())
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain("unknown family 'nope'")
    r = await run([], baseEnv())
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain('svc tel verify [--family <key>]')
    r = await run(['verify'], { ...baseEnv(), TEL_TIMEOUT_MS: 'soon' })
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain('TEL_TIMEOUT_MS')
  })
})

describe('tel manifest and metadata', () => {
  test('manifest prints the checked manifest', async () => {
    const r = await run(['manifest', '--json'], {})
    expect(r.code).toBe(EXIT_OK)
    expect(Value.Check(ManifestDocument, r.doc())).toBe(true)
    expect(r.doc().manifest.commands).toEqual(tel.commands)
    const human = await run(['manifest'], {})
    expect(human.out).toContain('19088 telephony_interface (static-required), 19089 gui (static-required)')
  })

  test('metadata writes package-metadata.json with the version truth', async () => {
    const env = baseEnv()
    const r = await run(['metadata', '--json'], env)
    expect(r.code).toBe(EXIT_OK)
    const written = JSON.parse(readFileSync(join(env.SVC_DIST_DIR, 'package-metadata.json'), 'utf8'))
    expect(Value.Check(PackageMetadataSchema, written)).toBe(true)
    expect(written).toEqual(r.doc())
    expect(written.name).toBe('telephony-stack')
    expect(written.version).toMatch(/^(0\.\d+\.\d+|0\.0\.0\+[0-9a-f]{7})$/)
    expect(written.files.map((f: Json) => f.path)).toContain('units/tel/stack.json')
  })
})

describe('tel snapshot and drift', () => {
  test('a snapshot of the live suite shows no drift against the repository (exit 0)', async () => {
    const env = baseEnv()
    const snap = await run(['snapshot', '--json'], env)
    expect(snap.code).toBe(EXIT_OK)
    expect(Value.Check(SnapshotDocument, snap.doc())).toBe(true)
    const file = JSON.parse(readFileSync(snap.doc().path, 'utf8'))
    expect(Value.Check(SnapshotFile, file)).toBe(true)
    expect(snap.doc().path.startsWith(env.SVC_DIST_DIR)).toBe(true)
    const drift = await run(['drift', '--json'], env)
    expect(Value.Check(DriftDocument, drift.doc())).toBe(true)
    expect(drift.doc().checks.filter((c: Json) => c.status !== 'passed')).toEqual([])
    expect(drift.doc().mode).toBe('snapshot_vs_repository')
    expect(drift.code).toBe(EXIT_OK)
  })

  test('a live surface that changed is drift (exit 1) with the difference named', async () => {
    const env = { ...baseEnv(), SVC_REGISTRY_URL: proxy.url }
    rewrite = (path, body) => {
      if (path.endsWith('/voice/contracts/events'))
        for (const e of body.events) if (e.name === 'voice_call_ended') e.payload_fields.push('cause_code')
      return body
    }
    let changed: Json
    try {
      changed = (await run(['snapshot', '--json'], env)).doc()
    } finally {
      rewrite = (_p, b) => b
    }
    const drift = await run(['drift', '--json', changed.path], env)
    expect(drift.code).toBe(EXIT_FAILED)
    expect(statuses(drift.doc())['drift.voice_events']).toBe('failed')
    expect(drift.doc().differences).toContainEqual({
      check: 'drift.voice_events',
      path: '/voice_call_ended',
      expected: null,
      observed: 'cause_code',
    })
    // two snapshots: the clean one against the changed one
    const clean = (await run(['snapshot', '--json'], env)).doc()
    const two = await run(['drift', '--json', clean.path, changed.path], env)
    expect(two.code).toBe(EXIT_FAILED)
    expect(two.doc().mode).toBe('snapshot_vs_snapshot')
    expect(statuses(two.doc())['drift.voice_events']).toBe('failed')
    expect(statuses(two.doc())['drift.runtime_host']).toBe('passed')
    const same = await run(['drift', clean.path, clean.path], env)
    expect(same.code).toBe(EXIT_OK)
  })

  test('a snapshot taken while PRS was down makes drift unknown, not clean', async () => {
    const gone = fakePeer(() => json({}))
    gone.stop()
    const env = { ...baseEnv(), SVC_REGISTRY_URL: gone.url }
    const snap = await run(['snapshot', '--json'], env)
    expect(snap.code).toBe(EXIT_OK)
    const drift = await run(['drift', '--json'], env)
    expect(drift.code).toBe(EXIT_FAILED)
    expect(drift.doc().verdict).toBe('unknown')
    expect(statuses(drift.doc())['drift.files.stack']).toBe('passed')
  })

  test('drift without a snapshot, or with a file that is not one, is bad usage', async () => {
    const env = baseEnv()
    let r = await run(['drift'], env)
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain("run 'svc tel snapshot'")
    r = await run(['drift', join(ROOT, 'package.json')], env)
    expect(r.code).toBe(EXIT_USAGE)
    expect(r.err).toContain('is not a TEL snapshot')
  })
})

describe('the real svc process', () => {
  test('svc tel verify --json exits 0 against the real PRS; a bare svc tel exits 2 with usage', async () => {
    const env = baseEnv()
    const proc = Bun.spawn([process.execPath, 'bin/svc.ts', 'tel', 'verify', '--json'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = await new Response(proc.stdout).text()
    expect(await proc.exited).toBe(EXIT_OK)
    expect(JSON.parse(out).verdict).toBe('passed')
    const bare = Bun.spawn([process.execPath, 'bin/svc.ts', 'tel'], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const err = await new Response(bare.stderr).text()
    expect(await bare.exited).toBe(EXIT_USAGE)
    expect(err).toContain('usage: svc tel <command>')
  })
})

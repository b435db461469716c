import { expect, test } from 'bun:test'
import { fakePeer, type Json, json, runUnitProcess, tempDir } from '../../test/harness.ts'
import { evidenceBody, MATRIX, RMS_TOKEN, traceBody } from './testing.ts'

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const read = async (res: Response | Promise<Response>): Promise<Json> => (await res).json()

test('`bun run unit als` runs the promotion lifecycle against PRS and RMS peers, persists, and drains on SIGTERM', async () => {
  const prs = fakePeer(() => json(MATRIX))
  const approvals = new Map<string, unknown>()
  const rms = fakePeer((req) => {
    const id = req.path.split('/').pop() ?? ''
    const approval =
      req.headers.get('authorization') === `Bearer ${RMS_TOKEN}` ? approvals.get(id) : undefined
    return approval ? json(approval) : json({}, 404)
  })
  const dir = tempDir()
  const env = {
    SVC_DATA_DIR: dir,
    ALS_SERVICE_MODE: 'promotion_enabled',
    SVC_REGISTRY_URL: prs.url,
    SVC_RMS_URL: rms.url,
    SVC_RMS_TOKEN: RMS_TOKEN,
  }
  try {
    const unit = await runUnitProcess('als', '/health', env)
    // The background task fetches the PRS matrix on start.
    let ready: Json = { status: '' }
    for (let i = 0; i < 100 && ready.status !== 'ready'; i++) {
      ready = await read(fetch(`${unit.url}/ready`))
      if (ready.status !== 'ready') await Bun.sleep(20)
    }
    expect(ready.status).toBe('ready')

    const run = await read(post(`${unit.url}/api/v1/learning/signals/intake`, traceBody()))
    expect(run.signal_emitted).toBe(true)
    const proposal = await read(
      post(`${unit.url}/api/v1/learning/replay/propose-from-evidence`, evidenceBody(run.run_id)),
    )
    approvals.set('ap-1', {
      approval_id: 'ap-1',
      proposal_ref: proposal.proposal_id,
      decision: 'approved',
      policy_approved: true,
      human_approved: true,
      decided_at: '2026-11-22T00:00:00.000Z',
      stale: false,
    })
    const check = await post(`${unit.url}/api/v1/learning/promotions/approve-check`, {
      proposal_id: proposal.proposal_id,
      approval_id: 'ap-1',
    })
    expect(check.status).toBe(200)
    const activate = await post(`${unit.url}/api/v1/learning/promotions/activate`, {
      proposal_id: proposal.proposal_id,
      idempotency_key: 'proc-1',
    })
    expect(activate.status).toBe(200)
    const activated = await activate.text()
    expect(await unit.stop('SIGTERM')).toBe(0)
    const lines = (await unit.output()).split('\n').filter((l) => l.startsWith('{'))
    expect(lines.some((l) => JSON.parse(l).msg === 'stopped')).toBe(true)

    const again = await runUnitProcess('als', '/health', env)
    const replay = await post(`${again.url}/api/v1/learning/promotions/activate`, {
      proposal_id: proposal.proposal_id,
      idempotency_key: 'proc-1',
    })
    expect(await replay.text()).toBe(activated)
    const stored = await read(fetch(`${again.url}/api/v1/learning/proposals/${proposal.proposal_id}`))
    expect(stored.proposal_state).toBe('activated')
    expect(await again.stop('SIGINT')).toBe(0)
  } finally {
    prs.stop()
    rms.stop()
  }
})

test('bad configuration exits non-zero with one line per bad variable', async () => {
  const proc = Bun.spawn([process.execPath, 'run', 'unit', 'als'], {
    cwd: `${import.meta.dir}/../..`,
    env: { ...process.env, ALS_SERVICE_MODE: 'turbo', ALS_REPLAY_BUDGET: '-1', SVC_DATA_DIR: tempDir() },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect(await proc.exited).not.toBe(0)
  const err = await new Response(proc.stderr).text()
  expect(err).toContain('ALS_SERVICE_MODE')
  expect(err).toContain('ALS_REPLAY_BUDGET')
})

/**
 * Every cross-unit flow of the units on main, end to end (issue 17): each HTTP unit a real
 * `bun bin/svc.ts unit <name>` process, wired by `suiteEnv` exactly as `svc suite` wires it, on
 * ports shifted by a random free offset; TEL and MEM run as the real `svc` command; the contact
 * form is filled in headless Chromium (skipped without it). Nothing stands between two units,
 * with one exception, named where it is: a stand-in for one unit's manifest, to show PRS
 * reporting a contradiction (no real unit can be configured to contradict its contract).
 *
 * `flows(mode)` defines them for one way of running the suite: each unit its own process
 * (flows.test.ts) or every unit in one process (flows-one-process.test.ts, `svc suite
 * --one-process`). The suite starts once per file; a test that takes a unit away (or restarts it with an
 * operator's extra variable) starts it again as the suite runs it before it ends, so the
 * describe blocks do not depend on each other's order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { issueSession } from '../common/session.ts'
import { hmacHex, signBody } from '../common/signature.ts'
import { unitContracts } from '../units/contracts.ts'
import { A_PERSON, CHROMIUM, launchChromium, submitContactForm } from './chromium.ts'
import { type Json, tempDir } from './harness.ts'
import { eventually, prsDrift, type SuiteMode, type SuiteProcesses, startSuite } from './suite-processes.ts'

const ROOT = join(import.meta.dir, '..')
const OPERATOR_TOKEN = 'flows-operator-token-0123456789'
const MCP_KEY = 'flows-mcp-key-0123456789abcdef'
const TICKETING_SECRET = 'flows-ticketing-secret-0123456789'
const SESSION_SECRET = 'flows-pws-session-secret-0123456789abcdef'
const EIS_INTERNAL = 'flows-eis-internal-token-0123456789'
const AUTOMATION_SECRET = 'flows-automation-secret-0123456789'
const UNITS = ['web', 'als', 'prs', 'rms', 'eis', 'pws'] as const

/** Every flow, against the suite run in `mode`. */
export function flows(mode: SuiteMode): void {
  let suite: SuiteProcesses

  beforeAll(async () => {
    suite = await startSuite(
      [...UNITS],
      {
        // An operator's RMS write token, beside the read token the suite generates for ALS.
        RMS_LOCAL_TOKENS: `${OPERATOR_TOKEN}:user:operator:rw`,
        ALS_SERVICE_MODE: 'promotion_enabled',
        ALS_PROMOTION_VELOCITY_MAX: '100',
        // Short cadences, so a peer going away shows within the test's time.
        ALS_REGISTRY_REFRESH_S: '1',
        ALS_REGISTRY_MAX_AGE_S: '2',
        PRS_OBSERVE_INTERVAL_MS: '1000',
        CONTACT_OUTBOX_POLL_MS: '100',
        EIS_MCP_KEY: MCP_KEY,
        TICKETING_WEBHOOK_SECRET: TICKETING_SECRET,
        PWS_SESSION_SECRET: SESSION_SECRET,
        EIS_INTERNAL_TOKEN: EIS_INTERNAL,
        AUTOMATION_SHARED_SECRET: AUTOMATION_SECRET,
      },
      mode,
    )
  }, 40_000)

  afterAll(async () => {
    await suite?.close()
  })

  type Unit = (typeof UNITS)[number]

  async function get(unit: Unit, path: string, headers: Record<string, string> = {}) {
    const res = await fetch(suite.url(unit) + path, { headers })
    return { status: res.status, body: (await res.json()) as Json }
  }

  async function post(unit: Unit, path: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(suite.url(unit) + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Json }
  }

  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` }

  /** `svc <args>` as an operator runs it, against this suite's PRS. */
  async function svc(...args: string[]) {
    const proc = Bun.spawn([process.execPath, 'bin/svc.ts', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        SVC_REGISTRY_URL: suite.url('prs'),
        SVC_DATA_DIR: tempDir(),
        SVC_DIST_DIR: tempDir(),
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    return { code, json: JSON.parse(out) as Json }
  }

  const checkStatuses = (checks: { name: string; status: string }[]) =>
    Object.fromEntries(checks.map((c) => [c.name, c.status]))

  describe('ALS takes its families from PRS', () => {
    test("ALS's contracts view shows PRS's producer and consumer families, at PRS's matrix version", async () => {
      const matrix = (await get('prs', '/api/v1/contracts/matrix')).body
      const ready = await eventually(
        () => get('als', '/ready'),
        (r) => r.body.platform_alignment.matrix_version === matrix.version,
      )
      expect(ready.status).toBe(200)
      expect(ready.body.status).toBe('ready')
      expect(ready.body.platform_alignment).toMatchObject({
        family_source: 'prs',
        registry_reachable: true,
        family_state: 'fresh',
        matrix_version: matrix.version,
      })
      const contracts = (await get('als', '/api/v1/learning/contracts')).body
      expect(contracts.family_source).toMatchObject({
        source: 'prs',
        state: 'fresh',
        matrix_version: matrix.version,
      })
      expect(contracts.producer_families).toEqual(matrix.producer_families)
      expect(contracts.consumer_families).toEqual(matrix.consumer_families)
      // Families ALS's own contract consumes come out of PRS, produced by the units that own them.
      expect(contracts.producer_families).toContain('execution.approval_lane')
      expect(contracts.producer_families).toContain('registry.contract_matrix')
    })

    test('with PRS stopped ALS degrades and shows no families (MEM cannot check either); PRS back, both recover', async () => {
      expect(await suite.stop('prs')).toBe(0)
      try {
        const degraded = await eventually(
          () => get('als', '/ready'),
          (r) => r.body.status === 'degraded',
        )
        // Degraded, never an error (spec): 200 with the reason.
        expect(degraded.status).toBe(200)
        expect(degraded.body.platform_alignment.registry_reachable).toBe(false)
        expect(['stale', 'unavailable']).toContain(degraded.body.platform_alignment.family_state)
        const contracts = (await get('als', '/api/v1/learning/contracts')).body
        expect(contracts.producer_families).toEqual([])
        expect(contracts.consumer_families).toEqual([])
        // MEM's check against the stopped PRS could not be made: unknown, exit 1, never passed.
        const mem = await svc('mem', 'runtime-contract-check', '--json')
        expect(mem.code).toBe(1)
        expect(mem.json.verdict).toBe('unknown')
        expect(checkStatuses(mem.json.checks)['prs.matrix']).toBe('unknown')
      } finally {
        await suite.start('prs')
      }
      const back = await eventually(
        () => get('als', '/ready'),
        (r) => r.body.status === 'ready',
      )
      expect(back.body.platform_alignment.family_state).toBe('fresh')
      const matrix = (await get('prs', '/api/v1/contracts/matrix')).body
      expect((await get('als', '/api/v1/learning/contracts')).body.producer_families).toEqual(
        matrix.producer_families,
      )
    }, 20_000)
  })

  /** A run recorded in ALS and a proposal from its evidence, on its own target. */
  async function propose(target: string): Promise<string> {
    const run = await post('als', '/api/v1/learning/signals/intake', {
      tenant_ref: 'tenant-flows',
      trace_id: `trace-${target}`,
      correlation_id: `corr-${target}`,
      outcome: 'failure',
      guardrail_decision: 'WARN',
      family_version_set: { 'learning.signals': '1.0.0' },
    })
    expect(run.status).toBe(200)
    expect(run.body.signal_emitted).toBe(true)
    const proposal = await post('als', '/api/v1/learning/replay/propose-from-evidence', {
      run_id: run.body.run_id,
      target_type: 'decision_policy',
      target_id: target,
      current_decision: { route: 'a' },
      candidate_decision: { route: 'b' },
      replay_metrics: { baseline_metrics: { accuracy: 0.8 }, candidate_metrics: { accuracy: 0.9 } },
      threshold_contract: { accuracy: { min: 0.85 } },
      baseline_validity_window: {
        valid_from: '2020-01-01T00:00:00.000Z',
        valid_until: '2099-01-01T00:00:00.000Z',
      },
    })
    expect(proposal.status).toBe(200)
    expect(proposal.body.proposal_state).toBe('proposed')
    return proposal.body.proposal_id
  }

  /** An operator records an approval for `proposalRef` in RMS's approval lane. */
  async function approveInRms(proposalRef: string): Promise<string> {
    const res = await post(
      'rms',
      '/api/v1/execution/approvals',
      { proposal_ref: proposalRef, decision: 'approved', policy_approved: true, human_approved: true },
      operator,
    )
    expect(res.status).toBe(201)
    return res.body.approval_id
  }

  const approveCheck = (proposalId: string, approvalId: string) =>
    post('als', '/api/v1/learning/promotions/approve-check', {
      proposal_id: proposalId,
      approval_id: approvalId,
    })

  /** propose → approval in RMS → approve-check → activate; the activation's answer. */
  async function promote(target: string) {
    const proposalId = await propose(target)
    const approvalId = await approveInRms(proposalId)
    const check = await approveCheck(proposalId, approvalId)
    expect(check.status).toBe(200)
    expect(check.body).toMatchObject({
      proposal_state: 'approved',
      policy_approved: true,
      human_approved: true,
    })
    return post('als', '/api/v1/learning/promotions/activate', {
      proposal_id: proposalId,
      idempotency_key: `activate-${target}`,
    })
  }

  describe("ALS promotions through RMS's approval lane", () => {
    test('an approval recorded in RMS lets the promotion through: propose, approve-check, activate', async () => {
      const activated = await promote('policy-lane-1')
      expect(activated.status).toBe(200)
      expect(activated.body.proposal_state).toBe('activated')
      expect(activated.body.runtime_state_after).toMatchObject({
        target_id: 'policy-lane-1',
        decision: { route: 'b' },
      })
      const stored = await get('als', `/api/v1/learning/proposals/${activated.body.proposal_id}`)
      expect(stored.body.proposal_state).toBe('activated')
    })

    test('an approval RMS does not know is refused, and so is one RMS holds for another proposal', async () => {
      const proposalId = await propose('policy-lane-2')
      const unknown = await approveCheck(proposalId, 'apr-nobody-recorded')
      expect(unknown.status).toBe(422)
      expect(unknown.body.error.code).toBe('approval_missing')
      const otherApproval = await approveInRms('some-other-proposal')
      const mismatch = await approveCheck(proposalId, otherApproval)
      expect(mismatch.status).toBe(422)
      expect(mismatch.body.error.code).toBe('approval_mismatch')
      const activate = await post('als', '/api/v1/learning/promotions/activate', {
        proposal_id: proposalId,
        idempotency_key: 'activate-refused',
      })
      expect(activate.status).toBe(422)
      expect(activate.body.error.code).toBe('approvals_missing')
      expect((await get('als', `/api/v1/learning/proposals/${proposalId}`)).body.proposal_state).toBe(
        'proposed',
      )
    })

    test("RMS's control agent reconciles the runtime host while promotions go through", async () => {
      const before = (await get('rms', '/api/v1/control-agent/status', operator)).body
      // At start the loop reconciled on its schedule and took the lease.
      expect(before.holds_lease).toBe(true)
      expect(before.recent_runs.some((r: Json) => r.trigger === 'schedule' && r.outcome === 'ok')).toBe(true)
      const targets = ['policy-busy-1', 'policy-busy-2', 'policy-busy-3']
      const reconcile = async () => {
        const results = []
        for (let i = 0; i < 3; i++) {
          results.push(await post('rms', '/api/v1/control-agent/reconcile', {}, operator))
        }
        return results
      }
      const [reconciles, ...promotions] = await Promise.all([reconcile(), ...targets.map(promote)])
      for (const p of promotions) {
        expect(p.status).toBe(200)
        expect(p.body.proposal_state).toBe('activated')
      }
      for (const r of reconciles) {
        expect(r.status).toBe(200)
        expect(r.body.outcome).toBe('reconciled')
        expect(r.body.run).toMatchObject({ trigger: 'manual', outcome: 'ok', max_severity: 'none' })
      }
      const status = (await get('rms', '/api/v1/control-agent/status', operator)).body
      const runIds = status.recent_runs.map((r: Json) => r.run_id)
      for (const r of reconciles) expect(runIds).toContain(r.body.run.run_id)
      expect(status.watchdog.state).toBe('ok')
      // One instance held the lease throughout: renewed by each reconcile, never taken over.
      const leases = (await get('rms', '/api/v1/control-agent/leases', operator)).body
      const lease = leases.items.find((l: Json) => l.name === 'reconcile')
      expect(lease).toMatchObject({ held: true, generation: before.lease.generation })
      expect(lease.renew_count).toBeGreaterThanOrEqual(before.lease.renew_count + 3)
      expect(leases.transitions.map((t: Json) => t.transition)).not.toContain('taken_over')
      // The approvals ALS read are RMS's records, visible to the operator.
      const approvals = (await get('rms', '/api/v1/execution/approvals', operator)).body
      expect(JSON.stringify(approvals)).toContain(promotions[0]?.body.proposal_id)
    }, 20_000)
  })

  describe("PRS over every unit's shipped contract and live surfaces", () => {
    test('registry and matrix list every shipped contract, producer and consumer', async () => {
      const registry = (await get('prs', '/api/v1/contracts/registry')).body
      const listed = new Map<string, Json>(registry.units.map((u: Json) => [u.unit, u]))
      expect([...listed.keys()].sort()).toEqual(unitContracts.map((c) => c.unit).sort())
      const matrix = (await get('prs', '/api/v1/contracts/matrix')).body
      const cells = new Map<string, Json>(matrix.cells.map((c: Json) => [c.family, c]))
      for (const c of unitContracts) {
        expect(listed.get(c.unit)).toMatchObject({ version: c.version, liveness: c.liveness })
        for (const f of c.produces) expect(cells.get(f.family)?.producers).toContain(c.unit)
        for (const f of c.consumes.filter((f) => f.source === 'suite')) {
          expect(cells.get(f.family)?.consumers).toContainEqual({ unit: c.unit, required: f.required })
        }
      }
      expect(matrix.unresolved).toEqual([])
    })

    test('every live unit observed: liveness, the three manifests and PWS facts; no blocking drift', async () => {
      const services = await eventually(
        () => get('prs', '/api/v1/platform/services'),
        (r) => r.body.services.filter((s: Json) => s.state === 'up').length === UNITS.length,
      )
      const state = Object.fromEntries(services.body.services.map((s: Json) => [s.unit, s.state]))
      for (const unit of UNITS) expect(state[unit]).toBe('up')
      const observations = (await get('prs', '/api/v1/tools/runtime-observations')).body
        .observations as Json[]
      const seen = (unit: string, surface: string) =>
        observations.find((o) => o.unit === unit && o.surface === surface)
      for (const unit of ['rms', 'als', 'pws']) {
        expect(seen(unit, 'manifest')).toMatchObject({ ok: true, status: 200, body: { unit } })
      }
      const facts = observations.filter(
        (o) => o.unit === 'pws' && o.surface !== 'liveness' && o.surface !== 'manifest',
      )
      expect(facts.length).toBeGreaterThanOrEqual(2)
      for (const f of facts) expect(f).toMatchObject({ ok: true, status: 200 })
      const truth = (await get('prs', '/api/v1/platform/version-truth')).body.units as Json[]
      for (const unit of ['rms', 'als', 'pws']) {
        expect(truth.find((u) => u.unit === unit)?.agrees).toBe(true)
      }
      const drift = (await get('prs', '/api/v1/contracts/drift')).body
      expect(drift.blocking_count).toBe(0)
      expect(drift.items.filter((i: Json) => i.severity === 'blocking')).toEqual([])
      // Only the units this suite does not run are unobserved.
      const unobserved = drift.unobserved.map((u: Json) => u.unit).sort()
      const running = new Set<string>(UNITS)
      expect(unobserved).toEqual(
        unitContracts
          .filter((c) => c.identity.kind === 'http' && !running.has(c.unit))
          .map((c) => c.unit)
          .sort(),
      )
    }, 15_000)

    test('a unit whose live manifest contradicts its contract is blocking drift', async () => {
      // The one stand-in of this file: it takes ALS's place for a second PRS, serving ALS's real
      // manifest with a family dropped. No configuration of a real unit changes its manifest, so
      // only a stand-in can contradict the contract; the real RMS beside it stays clean.
      const real = (await get('als', '/platform-manifest.json')).body
      const contradicting = { ...real, producer_families: real.producer_families.slice(1) }
      const standIn = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (req) =>
          new URL(req.url).pathname === '/platform-manifest.json'
            ? Response.json(contradicting)
            : Response.json({ status: 'ok', service: 'als' }),
      })
      const { prs, drift } = await prsDrift(`als=http://127.0.0.1:${standIn.port},rms=${suite.url('rms')}`)
      try {
        expect(drift.status).toBe('blocking')
        const blocking = drift.items.filter((i: Json) => i.severity === 'blocking')
        expect(blocking).toHaveLength(1)
        expect(blocking[0]).toMatchObject({ unit: 'als', kind: 'manifest_contradicts_contract' })
        expect(JSON.stringify(blocking[0])).toContain(real.producer_families[0])
        const signoff = (await (await fetch(`${prs.url}/api/v1/signoff/readiness`)).json()) as Json
        expect(signoff.signed_off).toBe(false)
      } finally {
        await prs.stop()
        standIn.stop(true)
      }
    }, 20_000)
  })

  describe('TEL and MEM verify against the live PRS', () => {
    test('TEL verify: every check PRS answers passes; only the absent telephony hosts are unknown (exit 1)', async () => {
      const matrix = (await get('prs', '/api/v1/contracts/matrix')).body
      const { code, json } = await svc('tel', 'verify', '--json')
      expect(json.registry_url).toBe(suite.url('prs'))
      const statuses = checkStatuses(json.checks)
      const unknown = Object.keys(statuses).filter((n) => statuses[n] === 'unknown')
      // No runtime host or telephony info route runs here: those two, and only those, are unknown.
      expect(unknown.sort()).toEqual([
        'telephony_adapter_slice.info_route',
        'voice_router_runtime_slice.runtime_host',
      ])
      expect(Object.values(statuses).filter((s) => s === 'failed')).toEqual([])
      for (const name of [
        'voice_router_runtime_slice.registry',
        'voice_router_runtime_slice.optional_slice',
        'telephony_adapter_slice.registry',
        'stt_tts_flow_slice.events',
        'voice_runtime_validation_matrix.matrix_cells',
        'voice_runtime_validation_matrix.voice_events',
        'voice_runtime_validation_matrix.contract_version',
        'combination_profile_consumer.profile',
        'producer_consumer_adoption.consumed',
        'producer_consumer_adoption.produced',
        'stack_source_of_truth.docs_standard',
      ]) {
        expect(statuses[name]).toBe('passed')
      }
      const version = json.checks.find(
        (c: Json) => c.name === 'voice_runtime_validation_matrix.contract_version',
      )
      expect(version.reason).toContain(matrix.version)
      expect(json.verdict).toBe('unknown')
      expect(code).toBe(1)
    })

    test("MEM runtime-contract-check: PRS's matrix and readiness agree with MEM's files (exit 0)", async () => {
      const matrix = (await get('prs', '/api/v1/contracts/matrix')).body
      const { code, json } = await svc('mem', 'runtime-contract-check', '--json')
      expect(checkStatuses(json.checks)).toEqual({
        'files.valid': 'passed',
        'prs.matrix': 'passed',
        'prs.readiness': 'passed',
      })
      expect(json.checks.find((c: Json) => c.name === 'prs.matrix').reason).toContain(matrix.version)
      expect(json.verdict).toBe('passed')
      expect(code).toBe(0)
    })
  })

  /** An MCP client of EIS's gateway, with the key the suite gave EIS. */
  async function mcp<T>(use: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: 'flows-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.url('eis')}/mcp`), {
        requestInit: { headers: { 'x-svc-key': MCP_KEY } },
      }),
    )
    try {
      return await use(client)
    } finally {
      await client.close()
    }
  }

  const toolJson = (result: Json): Json => JSON.parse(result.content[0].text)

  /** EIS's Lead for `email`, read through the MCP `lead_lookup` tool; undefined while EIS has none. */
  const leadOf = (email: string) =>
    mcp(async (client) => {
      const result: Json = await client.callTool({ name: 'lead_lookup', arguments: { email } })
      expect(result.isError).toBeFalsy()
      const lead = toolJson(result)
      return lead.found === false ? undefined : lead
    })

  const contact = (email: string) =>
    post('web', '/api/contact', {
      'cf-turnstile-response': 'token',
      name: 'Ada Lovelace',
      email,
      interest: 'erp',
      message: 'Please call me back.',
      company: 'Analytical Engines',
    })

  describe("WEB's contact form to a Lead in EIS", () => {
    test('a contact sent to WEB becomes a Lead in EIS, delivered signed by WEB’s outbox', async () => {
      const sent = await contact('Ada@Example.org')
      expect(sent.status).toBe(200)
      expect(sent.body).toMatchObject({ ok: true, delivery: 'webhook' })
      const lead = await eventually(
        () => leadOf('ada@example.org'),
        (l) => l !== undefined,
      )
      expect(lead).toMatchObject({ doctype: 'Lead', email_id: 'ada@example.org' })
      expect(JSON.stringify(lead)).toContain('Analytical Engines')
      const status = (await get('web', '/status.json')).body.contact_intake
      expect(status).toMatchObject({ deliveries_pending: 0, last_delivery_error: null })
      expect(status.deliveries_delivered).toBeGreaterThanOrEqual(1)
    })

    test.skipIf(!CHROMIUM)(
      'a person fills WEB’s contact form in Chromium; the contact is a Lead in EIS',
      async () => {
        const browser = await launchChromium()
        try {
          const page = await browser.newPage()
          await page.goto(`${suite.url('web')}/contact.html`)
          const confirmation = await submitContactForm(page, A_PERSON)
          expect(confirmation).toContain('Thank you')
        } finally {
          await browser.close()
        }
        const lead = await eventually(
          () => leadOf(A_PERSON.email),
          (l) => l !== undefined,
        )
        expect(lead).toMatchObject({ doctype: 'Lead', email_id: A_PERSON.email })
        expect(JSON.stringify(lead)).toContain(A_PERSON.message)
      },
      30_000,
    )

    test('with EIS down the intake waits in WEB’s outbox and arrives when EIS returns', async () => {
      expect(await suite.stop('eis')).toBe(0)
      try {
        const sent = await contact('Waiting@Example.org')
        // WEB acknowledges: the intake is stored, its delivery queued.
        expect(sent.status).toBe(200)
        const waiting = await eventually(
          async () => (await get('web', '/status.json')).body.contact_intake,
          (s) => s.last_delivery_error !== null,
        )
        expect(waiting.deliveries_pending).toBe(1)
        expect(waiting.oldest_pending_at).not.toBeNull()
      } finally {
        await suite.start('eis')
      }
      const lead = await eventually(
        () => leadOf('waiting@example.org'),
        (l) => l !== undefined,
        15_000,
      )
      expect(lead).toMatchObject({ doctype: 'Lead', email_id: 'waiting@example.org' })
      const after = (await get('web', '/status.json')).body.contact_intake
      expect(after.deliveries_pending).toBe(0)
    }, 25_000)
  })

  /** A Zammad-style ticket event, signed as the ticketing system signs it. */
  async function ticketEvent(ticketId: number, sequence: number) {
    const raw = JSON.stringify({
      ticket_id: ticketId,
      event: sequence === 1 ? 'ticket.created' : 'ticket.updated',
      state: 'open',
      priority: 'high',
      sequence,
      title: `Invoice missing (${ticketId})`,
      article: { id: sequence, body: 'Where is my invoice?', from: 'customer@example.org' },
    })
    const res = await fetch(
      `${suite.url('eis')}/api/method/svc_erp_core.api.support_cases.ticketing_inbound`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signBody(hmacHex(), TICKETING_SECRET, raw) },
        body: raw,
      },
    )
    return { status: res.status, body: (await res.json()) as Json }
  }

  /** PWS's case-linked tasks, read by an operator with a signed `pm_session`. */
  async function caseTasks(): Promise<Json[]> {
    const session = await issueSession(
      { secret: SESSION_SECRET, maxAgeS: 600, secure: false },
      { sub: 'flows-operator', role: 'operator' },
    )
    const res = await get('pws', '/api/v1/projects/support/tasks?work_class=case_linked_work', {
      cookie: `pm_session=${session}`,
    })
    expect(res.status).toBe(200)
    return res.body.items
  }

  describe('a ticket event through EIS to a case-linked task in PWS', () => {
    test('a signed ticket event becomes a case_linked_work task in PWS', async () => {
      const res = await ticketEvent(9001, 1)
      expect(res.status).toBe(200)
      expect(res.body.message).toMatchObject({
        ok: true,
        platform_handoff: { status: 'delivered', http_status: 201 },
      })
      const task = (await caseTasks()).find((t) => t.source_reference === 'ticketing:9001')
      expect(task).toMatchObject({
        title: 'Invoice missing (9001)',
        work_class: 'case_linked_work',
        external_truth_state: 'open',
      })
    })

    test('with PWS down: 503, ok=false, platform_support_handoff_failed, the event failed; the redelivery lands', async () => {
      expect(await suite.stop('pws')).toBe(0)
      let eventKey = ''
      try {
        const res = await ticketEvent(9002, 1)
        expect(res.status).toBe(503)
        expect(res.body).toMatchObject({
          ok: false,
          reason: 'platform_support_handoff_failed',
          error: { code: 'platform_support_handoff_failed' },
        })
        eventKey = res.body.event_audit_key
        const event = await mcp(async (client) => {
          const read = await client.readResource({ uri: `eis://integration-events/${eventKey}` })
          return JSON.parse((read.contents[0] as Json).text)
        })
        expect(event.status).toBe('failed')
      } finally {
        await suite.start('pws')
      }
      // The ticketing system redelivers the same event: handed off now, one task.
      const again = await ticketEvent(9002, 1)
      expect(again.status).toBe(200)
      expect(again.body.message).toMatchObject({ ok: true, event_audit_key: eventKey })
      const tasks = (await caseTasks()).filter((t) => t.source_reference === 'ticketing:9002')
      expect(tasks).toHaveLength(1)
    }, 20_000)
  })

  const eisMethod = (name: string) => `/api/method/svc_erp_core.api.${name}`
  const eisCall = (name: string, body: unknown) =>
    post('eis', eisMethod(name), body, { authorization: `Bearer ${EIS_INTERNAL}` })

  /** An approval packet EIS requests for the Lead of `email` (a contact sent through WEB first). */
  async function packetForLead(email: string) {
    expect((await contact(email)).status).toBe(200)
    const lead = await eventually(
      () => leadOf(email.toLowerCase()),
      (l) => l !== undefined,
    )
    const requested = await eisCall('workflows.request_approval', {
      target_doctype: 'Lead',
      target_name: lead.name,
    })
    expect(requested.status).toBe(200)
    return requested.body.message
  }

  /** Dispatch the packet to RMS and wait until EIS's outbox reports the attempt's result. */
  async function dispatchToRms(packet: string) {
    const dispatched = await eisCall('workflows.dispatch_approval_packet', { packet })
    expect(dispatched.status).toBe(200)
    return eventually(
      async () => (await eisCall('workflows.approval_packet_status', { packet })).body.message,
      (p) => p.dispatch?.delivery !== undefined && p.dispatch.delivery !== 'queued',
    )
  }

  describe('an EIS approval packet dispatched to RMS, and the callback back to EIS', () => {
    test('under the suite wiring (EIS has its own RMS token): the packet reaches RMS pending, is decided there, and the callback approves it in EIS', async () => {
      const { packet, callback_token } = await packetForLead('Packet@Example.org')
      expect(packet.state).toBe('requested')
      const after = await dispatchToRms(packet.name)
      expect(after).toMatchObject({ state: 'dispatched', dispatch: { delivery: 'delivered' } })
      const inRms = await get('rms', `/api/v1/execution/approvals/${packet.name}`, operator)
      expect(inRms.status).toBe(200)
      expect(inRms.body).toMatchObject({
        approval_id: packet.name,
        decision: 'pending',
        proposal_ref: `Lead:${packet.target_name}`,
      })
      // The operator decides the pending approval in RMS; the runtime host calls EIS back.
      const decided = await post(
        'rms',
        '/api/v1/execution/approvals',
        {
          approval_id: packet.name,
          proposal_ref: `Lead:${packet.target_name}`,
          decision: 'approved',
          policy_approved: true,
          human_approved: true,
        },
        operator,
      )
      expect(decided.status).toBe(200)
      const raw = JSON.stringify({
        packet: packet.name,
        callback_token,
        decision: 'approved',
        actor: { subject: 'user:operator' },
      })
      const callback = await fetch(suite.url('eis') + eisMethod('callbacks.runtime_host_approval'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signBody(hmacHex(), AUTOMATION_SECRET, raw) },
        body: raw,
      })
      expect(callback.status).toBe(200)
      expect(((await callback.json()) as Json).message).toMatchObject({
        ok: true,
        packet: { state: 'approved' },
      })
      const final = (await eisCall('workflows.approval_packet_status', { packet: packet.name })).body.message
      expect(final.state).toBe('approved')
    }, 20_000)
  })
}

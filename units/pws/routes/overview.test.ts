import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Json } from '../../../test/harness.ts'
import { bootPwsAsync } from '../testing.ts'

const t = await bootPwsAsync({
  ADAPTER_SANDBOX_WRITE_ENABLED: 'true',
  ADAPTER_SANDBOX_OWNER_REPO: 'acme/platform',
})
afterAll(() => t.u.dispose())
beforeAll(async () => {
  await t.project('sandbox-ov', { primary_repo_ref: { provider: 'gitlab', full_name: 'acme/ops' } })
  await t.project('plain')
})

const TYPES: Record<string, string> = {
  workspace_model: 'string',
  primary_repo_ref: 'object',
  supported_work_classes: 'array',
  state_contract: 'object',
  mutation_contract: 'object',
  sync_contract: 'object',
  platform_consumer_contract: 'object',
  platform_combination_profiles: 'object',
  planning_platform_drift: 'object',
  external_truth_summary: 'object',
  case_linked_lifecycle: 'object',
  writeback_guardrails: 'object',
  workspace_risks: 'object',
  lifecycle_visibility: 'object',
  branch_pr_pressure: 'object',
}
const kind = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v)

describe('active workflow summary', () => {
  test('every field of the spec table, with its type, computed from the project', async () => {
    const s: Json = await (await t.get('/api/v1/projects/sandbox-ov/active-workflow')).json()
    for (const [field, type] of Object.entries(TYPES))
      expect({ field, type: kind(s[field]) }).toEqual({ field, type })
    expect(s).toMatchObject({
      workspace_model: 'single_primary_repo',
      primary_repo_ref: { provider: 'gitlab', full_name: 'acme/ops' },
      supported_work_classes: ['project_work', 'case_linked_work', 'system_runtime_work'],
      state_contract: { priority_order: ['conflicted', 'quarantined', 'approval_required'] },
      mutation_contract: {
        requires_expected_version: true,
        silent_overwrite: false,
        manual_override_requirements: ['why', 'expected_version'],
      },
      sync_contract: {
        git_inbound: 'webhook_first',
        git_poll_fallback_minutes: 5,
        webhook_liveness_supported: true,
      },
      platform_consumer_contract: {
        available: true,
        state: 'healthy',
        case_linked_work_semantics: ['conflicted', 'degraded', 'verification_required'],
        lifecycle_states: [
          'active',
          'stale',
          'forced-review-required',
          'reopen-eligible',
          'archive-eligible',
          'remain-open',
        ],
        failure_heatmap: { heatmap_mode: 'lane_by_lifecycle' },
        case_timeline: { timeline_mode: 'latest_first' },
      },
      platform_combination_profiles: {
        available: true,
        consumer_repository: 'pws',
        required_profile_keys: ['project_delivery', 'erp_support'],
        optional_profile_keys: ['public_intake'],
      },
      planning_platform_drift: { state: 'unbound', partial_visibility: true },
      external_truth_summary: { state: 'local_only', external_truth: false },
      writeback_guardrails: {
        requires_expected_version: true,
        allowed_remediation_actions: ['retry_writeback', 'refresh_metadata', 'escalate_to_manual'],
      },
      workspace_risks: { duplicate_attachment_risk: false },
      lifecycle_visibility: { source_missing_count: 0 },
      branch_pr_pressure: { actionable_review_pressure: 0 },
    })
    expect(s.platform_consumer_contract.writeback_rules.every((r: Json) => typeof r.name === 'string')).toBe(
      true,
    )
    expect(s.case_linked_lifecycle.states).toEqual(s.platform_consumer_contract.lifecycle_states)
  })

  test('two tasks on one outside item raise duplicate_attachment_risk; an unbound project says unbound', async () => {
    const body = (key: string, n: number) => ({
      scenario: 'support',
      idempotency_key: `dup-${n}`,
      timeout_ms: 1000,
      retry: { max_attempts: 1, backoff_ms: 0 },
      owner_attribution: { owner_repo: 'acme/platform', owner_actor: 'a', owner_reason: 'b' },
      operation: { task_key: key, title: 'same ticket', ticket_id: 'T-1' },
    })
    await t.send('POST', '/api/v1/projects/sandbox-ov/adapter-sandbox/writes', body('DUP-1', 1), 'admin')
    await t.send('POST', '/api/v1/projects/sandbox-ov/adapter-sandbox/writes', body('DUP-2', 2), 'admin')
    const s: Json = await (await t.get('/api/v1/projects/sandbox-ov/active-workflow')).json()
    expect(s.workspace_risks.duplicate_attachment_risk).toBe(true)
    expect(s.external_truth_summary).toMatchObject({
      state: 'tracked',
      external_truth: true,
      external_task_count: 2,
    })
    const plain: Json = await (await t.get('/api/v1/projects/plain/active-workflow')).json()
    expect(plain).toMatchObject({
      workspace_model: 'unbound',
      primary_repo_ref: { provider: 'unbound', full_name: '' },
    })
  })
})

describe('doctor and operator dashboard', () => {
  test('an unconfigured provider is a doctor error; the dashboard shows mode, doctor and integrations', async () => {
    const d: Json = await (await t.get('/api/v1/projects/sandbox-ov/doctor')).json()
    expect(d.status).toBe('error')
    expect(d.checks.find((c: Json) => c.name === 'provider_credentials')).toMatchObject({ status: 'error' })
    const dash: Json = await (await t.get('/api/v1/projects/sandbox-ov/operator-dashboard')).json()
    expect(dash).toMatchObject({
      project_id: 'sandbox-ov',
      mode: 'sandbox',
      doctor: { error_count: 1 },
      open_handoffs: 0,
    })
    expect(dash.integrations.gitlab).toMatchObject({ configured: false, last_poll_at: null })
    const plain: Json = await (await t.get('/api/v1/projects/plain/operator-dashboard')).json()
    expect(plain.mode).toBe('live')
    expect(plain.doctor.checks.find((c: Json) => c.name === 'primary_repo').status).toBe('warning')
  })
})

import type { Static } from 'elysia'
import { conflict, notFound, unprocessable } from '../../../common/errors.ts'
import { newId } from '../../../common/time.ts'
import type { IntakeRequest, IntakeResponse, RunRecord } from '../model.ts'
import { runHash, runProvenanceHash, sampledIn } from '../rules/hashing.ts'
import { emitsSignal, priorityScore, securityCriticalFamilies } from '../rules/intake.ts'
import { findRun, type RunRow } from '../store.ts'
import { type AlsDeps, iso } from './deps.ts'

type Intake = Static<typeof IntakeRequest>

const tenantInconsistent = (details: unknown) =>
  unprocessable('tenant_inconsistent', 'The trace is already recorded under another tenant.', details)

/**
 * Signals intake. Refused (422) in this order: guardrail decision BLOCK, a security-critical
 * trace (a family in a no-learn zone), tenant inconsistency (the trace_id or correlation_id is
 * already recorded under another tenant_ref). The same trace sent again with the same fields
 * returns the stored run; with other fields it is a 409.
 */
export async function intakeSignal(deps: AlsDeps, body: Intake): Promise<Static<typeof IntakeResponse>> {
  try {
    const answer = await recordRun(deps, body)
    deps.counters.intake.inc({ result: answer.duplicate ? 'duplicate' : 'recorded' })
    return answer.run
  } catch (err) {
    deps.counters.intake.inc({ result: 'refused' })
    throw err
  }
}

function recordRun(deps: AlsDeps, body: Intake) {
  if (body.guardrail_decision === 'BLOCK') {
    throw unprocessable('guardrail_blocked', 'The guardrail blocked this trace; ALS does not learn from it.')
  }
  const critical = securityCriticalFamilies(body.family_version_set)
  if (critical.length > 0) {
    throw unprocessable('security_critical_trace', 'The trace touches a no-learn zone.', {
      families: critical,
    })
  }
  const hash = runHash(body)
  const sampled = sampledIn(body.tenant_ref, body.trace_id, deps.settings.sampleRate)
  const priority = priorityScore(body.outcome, body.guardrail_decision)
  const signal = emitsSignal(deps.settings.serviceMode, sampled, priority, deps.settings.signalMinPriority)
  const keys = { traceId: body.trace_id, correlationId: body.correlation_id, tenantRef: body.tenant_ref }
  return deps.persistence.recordIntake(keys, ({ existing, correlationElsewhere }) => {
    if (existing) {
      if (existing.tenantRef !== body.tenant_ref) throw tenantInconsistent({ field: 'trace_id' })
      if (existing.runHash !== hash) {
        throw conflict('trace_already_recorded', 'This trace_id is already recorded with other fields.', {
          run_id: existing.runId,
        })
      }
      return { answer: { duplicate: true, run: runFields(existing) } }
    }
    if (correlationElsewhere) throw tenantInconsistent({ field: 'correlation_id' })
    const row = {
      runId: newId(),
      tenantRef: body.tenant_ref,
      traceId: body.trace_id,
      correlationId: body.correlation_id,
      outcome: body.outcome,
      guardrailDecision: body.guardrail_decision,
      familyVersionSet: body.family_version_set,
      state: signal ? ('signal_emitted' as const) : ('recorded' as const),
      signalEmitted: signal,
      sampledIn: sampled,
      priorityScore: priority,
      runHash: hash,
      provenanceHash: runProvenanceHash(body),
      serviceMode: deps.settings.serviceMode,
      recordedAt: iso(deps.now()),
    }
    return { insert: row, answer: { duplicate: false, run: runFields(row) } }
  })
}

function runFields(r: Pick<RunRow, keyof RunRow>): Static<typeof IntakeResponse> {
  return {
    run_id: r.runId,
    state: r.state,
    signal_emitted: r.signalEmitted,
    run_hash: r.runHash,
    priority_score: r.priorityScore,
    provenance_hash: r.provenanceHash,
    sampled_in: r.sampledIn,
  }
}

export async function getRun(deps: AlsDeps, runId: string): Promise<Static<typeof RunRecord>> {
  const r = await deps.persistence.read((q) => findRun(q, runId))
  if (!r) throw notFound('run_not_found', 'No run has this run_id.')
  return {
    ...runFields(r),
    tenant_ref: r.tenantRef,
    trace_id: r.traceId,
    correlation_id: r.correlationId,
    outcome: r.outcome as Static<typeof RunRecord>['outcome'],
    guardrail_decision: r.guardrailDecision as Static<typeof RunRecord>['guardrail_decision'],
    family_version_set: r.familyVersionSet,
    service_mode: r.serviceMode as Static<typeof RunRecord>['service_mode'],
    recorded_at: r.recordedAt,
  }
}

import { canonicalHash } from '../../../common/hash.ts'

/**
 * Every hash ALS publishes is `canonicalHash(object)`: lowercase hex SHA-256 of the RFC 8785
 * canonical JSON of exactly the object built below (docs/conventions.md §2), so any client holding
 * the request can recompute it. docs/units/als.md lists the same objects.
 */

export interface TraceFields {
  tenant_ref: string
  trace_id: string
  correlation_id: string
  outcome: string
  guardrail_decision: string
  family_version_set: Record<string, string>
}

/** run_hash: all six intake fields. */
export const runHash = (t: TraceFields): string =>
  canonicalHash({
    tenant_ref: t.tenant_ref,
    trace_id: t.trace_id,
    correlation_id: t.correlation_id,
    outcome: t.outcome,
    guardrail_decision: t.guardrail_decision,
    family_version_set: t.family_version_set,
  })

/** A run's provenance_hash: where the trace came from (tenant, ids, family versions), not its outcome. */
export const runProvenanceHash = (t: TraceFields): string =>
  canonicalHash({
    tenant_ref: t.tenant_ref,
    trace_id: t.trace_id,
    correlation_id: t.correlation_id,
    family_version_set: t.family_version_set,
  })

export interface ReplayFields {
  target_type: string
  target_id: string
  threshold_contract: Record<string, { min?: number; max?: number }>
  baseline_metrics: Record<string, number>
  candidate_metrics: Record<string, number>
  workload_similar: boolean
}

/** A replay's candidate_hash: the target and the candidate's metrics. */
export const replayCandidateHash = (r: ReplayFields): string =>
  canonicalHash({
    target_type: r.target_type,
    target_id: r.target_id,
    candidate_metrics: r.candidate_metrics,
  })

/**
 * A replay's provenance_hash: the evidence the candidate was judged on. `source_run_hash` is
 * the run_hash of the source run (propose-from-evidence) or null (replay/evaluate).
 */
export const replayProvenanceHash = (r: ReplayFields, sourceRunHash: string | null): string =>
  canonicalHash({
    target_type: r.target_type,
    target_id: r.target_id,
    threshold_contract: r.threshold_contract,
    baseline_metrics: r.baseline_metrics,
    workload_similar: r.workload_similar,
    source_run_hash: sourceRunHash,
  })

/** decision_delta_hash: the change a proposal from evidence asks for. */
export const decisionDeltaHash = (d: {
  target_type: string
  target_id: string
  current_decision: unknown
  candidate_decision: unknown
}): string =>
  canonicalHash({
    target_type: d.target_type,
    target_id: d.target_id,
    current_decision: d.current_decision,
    candidate_decision: d.candidate_decision,
  })

export interface DirectProposalFields {
  service_mode: string
  risk_class: string
  replay_verdict: string
  no_learn: boolean
  security_critical: boolean
  target_type: string
  target_id: string
}

/** promotions/propose candidate_hash: what would change (target and risk class). */
export const directCandidateHash = (p: DirectProposalFields): string =>
  canonicalHash({ target_type: p.target_type, target_id: p.target_id, risk_class: p.risk_class })

/** promotions/propose provenance_hash: every input of the proposal. */
export const directProvenanceHash = (p: DirectProposalFields): string =>
  canonicalHash({
    service_mode: p.service_mode,
    risk_class: p.risk_class,
    replay_verdict: p.replay_verdict,
    no_learn: p.no_learn,
    security_critical: p.security_critical,
    target_type: p.target_type,
    target_id: p.target_id,
  })

/** Two decisions are the same when their canonical JSON is the same (key order does not count). */
export const sameDecision = (a: unknown, b: unknown): boolean => canonicalHash(a) === canonicalHash(b)

const UNIT_SCALE = 2 ** 52

/** A number in [0, 1) fixed by the tenant and the trace: the first 52 bits of their hash. */
export const samplingPoint = (tenantRef: string, traceId: string): number =>
  Number.parseInt(canonicalHash({ tenant_ref: tenantRef, trace_id: traceId }).slice(0, 13), 16) / UNIT_SCALE

/** Deterministic sampling: the same trace is always in or always out at a given rate. */
export const sampledIn = (tenantRef: string, traceId: string, rate: number): boolean =>
  rate >= 1 || (rate > 0 && samplingPoint(tenantRef, traceId) < rate)

/** Whether a JSON value nests deeper than `limit` (arrays and objects count one level each). */
export function exceedsDepth(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (limit <= 0) return true
  const children = Array.isArray(value) ? value : Object.values(value)
  return children.some((child) => exceedsDepth(child, limit - 1))
}

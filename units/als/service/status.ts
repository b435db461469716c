import type { Static } from 'elysia'
import { nowIso } from '../../../common/time.ts'
import type { FamilySnapshot } from '../families.ts'
import type { ContractsView, PlatformAlignment, QueueDepth, Readiness } from '../model.ts'
import { GUARDRAIL_DECISIONS, NO_LEARN_ZONES, OUTCOMES } from '../rules/intake.ts'
import { effectiveMode, SERVICE_MODES, type ServiceMode } from '../rules/modes.ts'
import { BLOCKED_COMBINATIONS, RISK_CLASSES, TARGET_TYPES, WEIGHT_TRAINING } from '../rules/promotion.ts'
import { PROPOSAL_STATES, RUN_STATES, TERMINAL_STATES, TRANSITIONS } from '../rules/states.ts'
import { REPLAY_VERDICTS } from '../rules/thresholds.ts'
import { countProposalsByState, countRunsByState, replaysSince } from '../store.ts'
import { type AlsDeps, iso, REPLAY_BUDGET_WINDOW_MS } from './deps.ts'

export interface StatusSnapshot {
  persistenceReady: boolean
  mode: ServiceMode
  families: FamilySnapshot
  queue: Static<typeof QueueDepth>
  /** Null while persistence is down. */
  runsByState: Record<string, number> | null
  proposalsByState: Record<string, number> | null
  budgetExhausted: boolean
  queueFull: boolean
  /** Persistence down, replay budget used up, or proposals awaiting approval at the high-water mark. */
  backpressure: boolean
}

/**
 * Everything readiness and metrics report, from local state only: the database (local, never
 * hangs) and the cached PRS families. PRS is never called here.
 */
export async function statusSnapshot(deps: AlsDeps): Promise<StatusSnapshot> {
  let persistenceReady = await deps.persistence.ready()
  const s = deps.settings
  let queue: Static<typeof QueueDepth> = {
    runs_awaiting_proposal: null,
    proposals_awaiting_approval: null,
    proposals_awaiting_activation: null,
    proposals_activated: null,
    replays_last_hour: null,
    replay_budget: s.replayBudget,
    replay_budget_remaining: null,
    high_water: s.queueHighWater,
  }
  let runsByState: Record<string, number> | null = null
  let proposalsByState: Record<string, number> | null = null
  if (persistenceReady) {
    try {
      queue = await deps.persistence.read(async (q) => {
        const byState = await countProposalsByState(q)
        const replays = (await replaysSince(q, iso(deps.now() - REPLAY_BUDGET_WINDOW_MS))).count
        const runs = await countRunsByState(q)
        runsByState = runs
        proposalsByState = byState
        return {
          ...queue,
          runs_awaiting_proposal: runs.signal_emitted ?? 0,
          proposals_awaiting_approval: byState.proposed ?? 0,
          proposals_awaiting_activation: byState.approved ?? 0,
          proposals_activated: byState.activated ?? 0,
          replays_last_hour: replays,
          replay_budget_remaining: Math.max(0, s.replayBudget - replays),
        }
      })
    } catch {
      persistenceReady = false
    }
  }
  const budgetExhausted = queue.replay_budget_remaining === 0
  const queueFull = (queue.proposals_awaiting_approval ?? 0) >= queue.high_water
  return {
    persistenceReady,
    mode: effectiveMode(s.serviceMode, persistenceReady),
    families: deps.families.snapshot(),
    queue,
    runsByState,
    proposalsByState,
    budgetExhausted,
    queueFull,
    backpressure: !persistenceReady || budgetExhausted || queueFull,
  }
}

function alignment(deps: AlsDeps, f: FamilySnapshot): Static<typeof PlatformAlignment> {
  return {
    family_source: 'prs',
    registry_configured: f.state !== 'not_configured',
    registry_reachable: f.reachable,
    family_state: f.state,
    matrix_version: f.version,
    producer_family_count: f.producer_families.length,
    consumer_family_count: f.consumer_families.length,
    fetched_at: f.fetched_at,
    age_ms: f.age_ms,
    max_age_ms: deps.families.maxAgeMs,
    last_error: f.last_error,
  }
}

/**
 * The one readiness model of /ready and /api/v1/learning/readiness. `ready` needs persistence
 * and fresh PRS family truth; anything else is `degraded` (still HTTP 200: it degrades, never errors).
 * Backpressure: persistence down, replay budget used up, or proposals awaiting approval at the high-water mark.
 */
export async function readiness(deps: AlsDeps): Promise<Static<typeof Readiness>> {
  const snap = await statusSnapshot(deps)
  const { queue } = snap
  const familiesOk = snap.families.state === 'fresh'
  const detail: string[] = []
  if (!snap.persistenceReady) detail.push('persistence unavailable: mode forced to warmup, writes refused')
  if (snap.families.state === 'not_configured') detail.push('SVC_REGISTRY_URL is not set: no family truth')
  else if (!familiesOk)
    detail.push(`PRS family truth ${snap.families.state}: ${snap.families.last_error ?? 'too old'}`)
  if (snap.budgetExhausted) detail.push('replay budget of the rolling hour used up')
  if (snap.queueFull) detail.push('proposals awaiting approval reached the high-water mark')
  const status = snap.persistenceReady && familiesOk ? 'ready' : 'degraded'
  if (detail.length === 0) detail.push(`ready in mode ${snap.mode}`)
  return {
    status,
    service: 'als',
    effective_service_mode: snap.mode,
    configured_service_mode: deps.settings.serviceMode,
    persistence_ready: snap.persistenceReady,
    platform_alignment: alignment(deps, snap.families),
    queue_depth: queue,
    backpressure: snap.backpressure,
    detail: detail.join('; '),
    checked_at: nowIso(),
  }
}

const INVARIANTS = [
  'ALS defines no family truth: producer and consumer families come only from the PRS matrix, and are empty when it is not fresh',
  'persistence loss forces the effective service mode to warmup; writes then answer 503',
  'promotions/propose and activate need the effective mode promotion_enabled',
  'approve-check fails closed: a missing, stale, mismatched, pending, rejected or incomplete approval, or an unreachable lane, never approves',
  'activation needs policy and human approval, no other active candidate on the target, and an inactive velocity breaker',
  'activate and rollback are idempotent per idempotency key: a repeat returns the first answer and changes nothing',
  'traces blocked by the guardrail or touching a no-learn zone are never learned from',
  'every named hash is lowercase hex SHA-256 of the RFC 8785 canonical JSON of a documented object',
]

const HASHES = {
  run_hash: '{tenant_ref, trace_id, correlation_id, outcome, guardrail_decision, family_version_set}',
  'run provenance_hash': '{tenant_ref, trace_id, correlation_id, family_version_set}',
  'replay candidate_hash': '{target_type, target_id, candidate_metrics}',
  'replay provenance_hash':
    '{target_type, target_id, threshold_contract, baseline_metrics, workload_similar, source_run_hash (run_hash or null)}',
  decision_delta_hash: '{target_type, target_id, current_decision, candidate_decision}',
  'promotions/propose candidate_hash': '{target_type, target_id, risk_class}',
  'promotions/propose provenance_hash':
    '{service_mode, risk_class, replay_verdict, no_learn, security_critical, target_type, target_id}',
  sampling:
    'sampled_in when int(first 13 hex of canonicalHash({tenant_ref, trace_id}), 16) / 2^52 < sample_rate',
}

/** The derived contract status: ALS's own vocabulary plus the families PRS vouches for now. */
/** The derived contract view, from the family snapshot and the effective mode read by the caller. */
export function contractsView(
  deps: AlsDeps,
  families: FamilySnapshot,
  effective: ServiceMode,
): Static<typeof ContractsView> {
  const s = deps.settings
  return {
    service: 'als',
    service_modes: [...SERVICE_MODES],
    configured_service_mode: s.serviceMode,
    effective_service_mode: effective,
    promotion_states: [...PROPOSAL_STATES],
    promotion_transitions: TRANSITIONS.map((t) => ({ ...t })),
    terminal_states: [...TERMINAL_STATES],
    run_states: [...RUN_STATES],
    producer_families: families.producer_families,
    consumer_families: families.consumer_families,
    family_source: {
      source: 'prs',
      state: families.state,
      matrix_version: families.state === 'fresh' ? families.version : null,
      fetched_at: families.fetched_at,
    },
    invariants: INVARIANTS,
    no_learn_zones: [...NO_LEARN_ZONES],
    target_types: TARGET_TYPES.map((target_type) => ({
      target_type,
      enabled: target_type !== WEIGHT_TRAINING || s.weightTrainingEnabled,
    })),
    risk_classes: [...RISK_CLASSES],
    blocked_combinations: BLOCKED_COMBINATIONS.map((b) => ({ ...b })),
    replay_verdicts: [...REPLAY_VERDICTS],
    outcomes: [...OUTCOMES],
    guardrail_decisions: [...GUARDRAIL_DECISIONS],
    hashes: HASHES,
    limits: {
      replay_budget_per_hour: s.replayBudget,
      sample_rate: s.sampleRate,
      signal_min_priority: s.signalMinPriority,
      evidence_max_age_s: Math.round(s.evidenceMaxAgeMs / 1000),
      promotion_velocity_max: s.velocityMax,
      promotion_velocity_window_s: Math.round(s.velocityWindowMs / 1000),
      oscillation_window_s: Math.round(s.oscillationWindowMs / 1000),
      oscillation_min_reversals: s.oscillationMinReversals,
    },
  }
}

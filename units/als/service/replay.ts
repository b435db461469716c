import type { Static } from 'elysia'
import { badRequest, unprocessable } from '../../../common/errors.ts'
import { newId } from '../../../common/time.ts'
import {
  LIMITS,
  type ProposeFromEvidenceRequest,
  type ProposeFromEvidenceResponse,
  type ReplayEvaluateRequest,
  type ReplayEvaluateResponse,
} from '../model.ts'
import {
  decisionDeltaHash,
  exceedsDepth,
  type ReplayFields,
  replayCandidateHash,
  replayProvenanceHash,
  sameDecision,
} from '../rules/hashing.ts'
import { evidenceStale, withinWindow } from '../rules/promotion.ts'
import { contractProblems, evaluateReplay, type ReplayEvaluation } from '../rules/thresholds.ts'
import { findRun, insertReplay, markRunProposed, replaysSince, type Tx } from '../store.ts'
import { type AlsDeps, iso, REPLAY_BUDGET_WINDOW_MS } from './deps.ts'
import { createProposal } from './proposals.ts'
import { checkTargetEnabled } from './targets.ts'

type EvaluateBody = Static<typeof ReplayEvaluateRequest>
type EvidenceBody = Static<typeof ProposeFromEvidenceRequest>

function checkContract(contract: ReplayFields['threshold_contract']): void {
  const problems = contractProblems(contract)
  if (problems.length > 0) {
    throw badRequest('invalid_threshold_contract', 'The threshold contract cannot be evaluated.', problems)
  }
}

/** Take one slot of the rolling-hour replay budget, or refuse. Runs inside the write transaction. */
async function takeBudgetSlot(deps: AlsDeps, tx: Tx, now: number): Promise<void> {
  const since = iso(now - REPLAY_BUDGET_WINDOW_MS)
  const { count: used, oldest } = await replaysSince(tx, since)
  if (used >= deps.settings.replayBudget) {
    throw unprocessable('replay_budget_exhausted', 'The replay budget of the rolling hour is used up.', {
      budget: deps.settings.replayBudget,
      used,
      next_slot_at: oldest ? iso(Date.parse(oldest) + REPLAY_BUDGET_WINDOW_MS) : null,
    })
  }
}

function storeReplay(
  tx: Tx,
  replayId: string,
  fields: ReplayFields,
  evaluation: ReplayEvaluation,
  hashes: { candidate: string; provenance: string },
  runId: string | null,
  at: string,
): Promise<void> {
  return insertReplay(tx, {
    replayId,
    runId,
    targetType: fields.target_type,
    targetId: fields.target_id,
    thresholdContract: fields.threshold_contract,
    baselineMetrics: fields.baseline_metrics,
    candidateMetrics: fields.candidate_metrics,
    workloadSimilar: fields.workload_similar,
    verdict: evaluation.verdict,
    thresholdPass: evaluation.threshold_pass,
    evaluation,
    candidateHash: hashes.candidate,
    provenanceHash: hashes.provenance,
    evaluatedAt: at,
  })
}

/** replay/evaluate: judge a candidate against its threshold contract; every evaluation is stored. */
export async function evaluateCandidate(
  deps: AlsDeps,
  body: EvaluateBody,
): Promise<Static<typeof ReplayEvaluateResponse>> {
  checkContract(body.threshold_contract)
  checkTargetEnabled(deps, body.target_type)
  const evaluation = evaluateReplay(
    body.threshold_contract,
    body.baseline_metrics,
    body.candidate_metrics,
    body.workload_similar,
  )
  const hashes = { candidate: replayCandidateHash(body), provenance: replayProvenanceHash(body, null) }
  const replayId = newId()
  await deps.persistence.write(async (tx) => {
    const now = deps.now()
    await takeBudgetSlot(deps, tx, now)
    await storeReplay(tx, replayId, body, evaluation, hashes, null, iso(now))
  })
  deps.counters.replays.inc({ verdict: evaluation.verdict })
  return {
    replay_id: replayId,
    candidate_hash: hashes.candidate,
    provenance_hash: hashes.provenance,
    verdict: evaluation.verdict,
    threshold_pass: evaluation.threshold_pass,
    regression_free: evaluation.regression_free,
    metrics: evaluation.metrics,
    reasons: evaluation.reasons,
  }
}

/**
 * replay/propose-from-evidence: replay a run's candidate decision and, when the replay accepts
 * it, create a proposal. Refusals (422), in order: source run missing, run emitted no signal,
 * decisions identical, source evidence stale, baseline validity stale, weight training disabled,
 * budget exhausted, replay rejects the candidate (the replay itself is kept and named).
 * The replay of a run's own workload is like-for-like, so workload_similar is true.
 */
export async function proposeFromEvidence(
  deps: AlsDeps,
  body: EvidenceBody,
): Promise<Static<typeof ProposeFromEvidenceResponse>> {
  checkContract(body.threshold_contract)
  if (
    exceedsDepth(body.current_decision, LIMITS.decisionDepth) ||
    exceedsDepth(body.candidate_decision, LIMITS.decisionDepth)
  ) {
    throw badRequest('decision_too_deep', `Decisions may nest at most ${LIMITS.decisionDepth} levels.`)
  }
  const validFrom = Date.parse(body.baseline_validity_window.valid_from)
  const validUntil = Date.parse(body.baseline_validity_window.valid_until)
  if (!(validFrom <= validUntil)) {
    throw badRequest(
      'invalid_validity_window',
      'baseline_validity_window.valid_from must not be after valid_until.',
    )
  }
  const fields: ReplayFields = {
    target_type: body.target_type,
    target_id: body.target_id,
    threshold_contract: body.threshold_contract,
    baseline_metrics: body.replay_metrics.baseline_metrics,
    candidate_metrics: body.replay_metrics.candidate_metrics,
    workload_similar: true,
  }
  const evaluation = evaluateReplay(
    fields.threshold_contract,
    fields.baseline_metrics,
    fields.candidate_metrics,
    true,
  )
  const outcome = await deps.persistence.write(async (tx) => {
    const now = deps.now()
    const run = await findRun(tx, body.run_id)
    if (!run) throw unprocessable('source_run_missing', 'No run has this run_id.')
    if (!run.signalEmitted)
      throw unprocessable('source_run_no_signal', 'The source run emitted no learning signal.')
    if (sameDecision(body.current_decision, body.candidate_decision)) {
      throw unprocessable('decisions_identical', 'current_decision and candidate_decision are the same.')
    }
    if (evidenceStale(Date.parse(run.recordedAt), now, deps.settings.evidenceMaxAgeMs)) {
      throw unprocessable('source_evidence_stale', 'The source run is older than the evidence age limit.', {
        recorded_at: run.recordedAt,
        max_age_s: deps.settings.evidenceMaxAgeMs / 1000,
      })
    }
    if (!withinWindow(now, validFrom, validUntil)) {
      throw unprocessable('baseline_validity_stale', 'The baseline is outside its validity window.', {
        now: iso(now),
      })
    }
    checkTargetEnabled(deps, body.target_type)
    await takeBudgetSlot(deps, tx, now)
    const replayId = newId()
    const hashes = {
      candidate: replayCandidateHash(fields),
      provenance: replayProvenanceHash(fields, run.runHash),
    }
    await storeReplay(tx, replayId, fields, evaluation, hashes, run.runId, iso(now))
    if (evaluation.verdict !== 'accept') return { accepted: false as const, replayId }
    const proposal = await createProposal(deps, tx, now, {
      source: 'evidence',
      runId: run.runId,
      replayId,
      targetType: body.target_type,
      targetId: body.target_id,
      riskClass: null,
      replayVerdict: evaluation.verdict,
      currentDecision: body.current_decision,
      candidateDecision: body.candidate_decision,
      candidateHash: hashes.candidate,
      provenanceHash: hashes.provenance,
      decisionDeltaHash: decisionDeltaHash(body),
    })
    await markRunProposed(tx, run.runId)
    return { accepted: true as const, replayId, hashes, proposal }
  })
  deps.counters.replays.inc({ verdict: evaluation.verdict })
  if (!outcome.accepted) {
    throw unprocessable('replay_rejected_candidate', 'The replay did not accept the candidate.', {
      replay_id: outcome.replayId,
      verdict: evaluation.verdict,
      reasons: evaluation.reasons,
    })
  }
  deps.counters.proposals.inc({ source: 'evidence' })
  deps.log.info(
    {
      proposal_id: outcome.proposal.proposalId,
      source: 'evidence',
      run_id: body.run_id,
      replay_id: outcome.replayId,
    },
    'proposal created',
  )
  return {
    run_id: body.run_id,
    replay_id: outcome.replayId,
    proposal_id: outcome.proposal.proposalId,
    candidate_hash: outcome.hashes.candidate,
    provenance_hash: outcome.hashes.provenance,
    decision_delta_hash: outcome.proposal.decisionDeltaHash ?? '',
    proposal_state: outcome.proposal.state,
    oscillation_detected: outcome.proposal.oscillationDetected,
  }
}

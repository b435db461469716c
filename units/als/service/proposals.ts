import type { Static } from 'elysia'
import { AppError, conflict, notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { newId } from '../../../common/time.ts'
import {
  requestFingerprint,
  runIdempotent,
  type StoredResponse,
  saveAnswerIn,
} from '../../../db/idempotency.ts'
import { fetchApproval } from '../lane.ts'
import type {
  ActivateRequest,
  ActivateResponse,
  ApproveCheckRequest,
  ApproveCheckResponse,
  ProposalRecord,
  ProposeRequest,
  ProposeResponse,
  RollbackRequest,
  RollbackResponse,
} from '../model.ts'
import { evaluateApproval } from '../rules/approval.ts'
import { directCandidateHash, directProvenanceHash } from '../rules/hashing.ts'
import { promotionsAllowed } from '../rules/modes.ts'
import {
  detectOscillation,
  proposalBlock,
  type RuntimeState,
  revalidateRequired,
  runtimeStateKey,
  velocityBreakerActive,
} from '../rules/promotion.ts'
import { canApply, type ProposalState } from '../rules/states.ts'
import {
  countActivationsSince,
  findActiveOnTarget,
  findProposal,
  findRuntimeTarget,
  insertProposal,
  insertTransition,
  type NewProposal,
  type ProposalRow,
  type Q,
  saveRuntimeTarget,
  storedAnswer,
  type Tx,
  targetChangesSince,
  updateProposal,
} from '../store.ts'
import { type AlsDeps, iso } from './deps.ts'
import { checkTargetEnabled } from './targets.ts'

type NewProposalInput = Pick<
  NewProposal,
  | 'source'
  | 'runId'
  | 'replayId'
  | 'targetType'
  | 'targetId'
  | 'riskClass'
  | 'replayVerdict'
  | 'currentDecision'
  | 'candidateDecision'
  | 'candidateHash'
  | 'provenanceHash'
  | 'decisionDeltaHash'
>

const proposalNotFound = () => unprocessable('proposal_not_found', 'No proposal has this proposal_id.')

/** What a target runs with now: its stored row, or (never activated) the caller's current decision. */
async function currentRuntime(
  q: Q,
  targetType: string,
  targetId: string,
  fallbackDecision: unknown,
): Promise<RuntimeState> {
  const row = await findRuntimeTarget(q, targetType, targetId)
  return {
    target_type: targetType,
    target_id: targetId,
    active_proposal_id: row?.activeProposalId ?? null,
    candidate_hash: row?.candidateHash ?? null,
    decision: row ? (row.decision ?? null) : (fallbackDecision ?? null),
  }
}

/** The target's runtime state keys inside the oscillation window, oldest first, ending with the current one. */
async function stateHistory(deps: AlsDeps, q: Q, current: RuntimeState, now: number): Promise<string[]> {
  const changes = await targetChangesSince(
    q,
    current.target_type,
    current.target_id,
    iso(now - deps.settings.oscillationWindowMs),
  )
  const first = changes[0]
  if (!first) return [runtimeStateKey(current)]
  return [first.before ?? runtimeStateKey(current), ...changes.map((c) => c.after ?? '')]
}

/** Insert a proposal in state `proposed`, with its oscillation verdict. Runs inside a write. */
export async function createProposal(
  deps: AlsDeps,
  tx: Tx,
  now: number,
  input: NewProposalInput,
): Promise<ProposalRow> {
  const current = await currentRuntime(tx, input.targetType, input.targetId, input.currentDecision)
  const next = runtimeStateKey({
    candidate_hash: input.candidateHash,
    decision: input.candidateDecision ?? null,
  })
  const oscillation = detectOscillation(
    await stateHistory(deps, tx, current, now),
    next,
    deps.settings.oscillationMinReversals,
  )
  const at = iso(now)
  const row: ProposalRow = {
    ...input,
    runId: input.runId ?? null,
    replayId: input.replayId ?? null,
    riskClass: input.riskClass ?? null,
    currentDecision: input.currentDecision ?? null,
    candidateDecision: input.candidateDecision ?? null,
    decisionDeltaHash: input.decisionDeltaHash ?? null,
    proposalId: newId(),
    serviceMode: deps.settings.serviceMode,
    state: 'proposed',
    revalidateRequired: revalidateRequired(input.replayVerdict, oscillation),
    oscillationDetected: oscillation,
    approvalId: null,
    policyApproved: false,
    humanApproved: false,
    staleInvalidated: false,
    approvalCheckedAt: null,
    runtimeStateBefore: null,
    runtimeStateAfter: null,
    activatedAt: null,
    rollbackReason: null,
    rollbackRestored: null,
    rolledBackAt: null,
    createdAt: at,
    updatedAt: at,
  }
  await insertProposal(tx, row)
  await insertTransition(tx, {
    proposalId: row.proposalId,
    targetType: row.targetType,
    targetId: row.targetId,
    trigger: 'propose',
    fromState: null,
    toState: 'proposed',
    at,
  })
  return row
}

/**
 * promotions/propose. Refused (422), in order: the requested service_mode is not
 * promotion_enabled, the service's own mode is not, the target is no-learn, security-critical,
 * or a blocked target/risk combination, or weight training is disabled.
 */
export async function propose(
  deps: AlsDeps,
  body: Static<typeof ProposeRequest>,
): Promise<Static<typeof ProposeResponse>> {
  if (!promotionsAllowed(body.service_mode)) {
    throw unprocessable(
      'requested_mode_not_promotable',
      `Proposals are refused in service mode ${body.service_mode}.`,
    )
  }
  if (!promotionsAllowed(deps.settings.serviceMode)) {
    throw unprocessable(
      'service_mode_not_promotable',
      `The service runs in mode ${deps.settings.serviceMode}; proposals need promotion_enabled.`,
    )
  }
  const block = proposalBlock(body)
  if (block) throw unprocessable(block.code, block.message)
  checkTargetEnabled(deps, body.target_type)
  const row = await deps.persistence.write((tx) =>
    createProposal(deps, tx, deps.now(), {
      source: 'direct',
      runId: null,
      replayId: null,
      targetType: body.target_type,
      targetId: body.target_id,
      riskClass: body.risk_class,
      replayVerdict: body.replay_verdict,
      currentDecision: null,
      candidateDecision: null,
      candidateHash: directCandidateHash(body),
      provenanceHash: directProvenanceHash(body),
      decisionDeltaHash: null,
    }),
  )
  deps.counters.proposals.inc({ source: 'direct' })
  deps.log.info(
    { proposal_id: row.proposalId, source: 'direct', target_type: row.targetType, target_id: row.targetId },
    'proposal created',
  )
  return {
    proposal_id: row.proposalId,
    candidate_hash: row.candidateHash,
    provenance_hash: row.provenanceHash,
    proposal_state: row.state,
    revalidate_required: row.revalidateRequired,
    oscillation_detected: row.oscillationDetected,
  }
}

function transition(
  tx: Tx,
  p: ProposalRow,
  trigger: string,
  to: ProposalState,
  at: string,
  keys: { before: string; after: string } | null = null,
): Promise<void> {
  return insertTransition(tx, {
    proposalId: p.proposalId,
    targetType: p.targetType,
    targetId: p.targetId,
    trigger,
    fromState: p.state,
    toState: to,
    stateKeyBefore: keys?.before ?? null,
    stateKeyAfter: keys?.after ?? null,
    at,
  })
}

/**
 * promotions/approve-check: ask the RMS approval lane and fail closed.
 * 200 only when the approval exists, names this proposal, is fresh, approved, and carries both
 * flags (the proposal becomes `approved`). Lane unreachable or not configured: 503
 * `approval_lane_unavailable`. Any other lane answer: 422 with its own code and the evaluation
 * beside the error; `approval_rejected` moves the proposal to `rejected`, and `approval_stale`
 * withdraws an earlier approval (`approved` → `proposed`, stale_invalidated true).
 */
export async function approveCheck(
  deps: AlsDeps,
  body: Static<typeof ApproveCheckRequest>,
): Promise<Static<typeof ApproveCheckResponse>> {
  const before = await deps.persistence.read((q) => findProposal(q, body.proposal_id))
  if (!before) throw proposalNotFound()
  if (!canApply(before.state, 'approve_check')) {
    throw unprocessable(
      'invalid_transition',
      `A proposal in state ${before.state} cannot be approval-checked.`,
    )
  }
  const lane = await fetchApproval(deps.lane, body.approval_id)
  if (lane.kind === 'unavailable') {
    deps.counters.approvalChecks.inc({ outcome: 'lane_unavailable' })
    deps.log.warn(
      { proposal_id: body.proposal_id, reason: lane.reason, message: lane.message },
      'approval lane unavailable',
    )
    throw unavailable(
      'approval_lane_unavailable',
      'The RMS approval lane cannot be asked; nothing was approved.',
      {
        reason: lane.reason,
      },
    )
  }
  const approval = lane.kind === 'found' ? lane.approval : undefined
  const verdict = evaluateApproval(body.proposal_id, approval)
  const result = await deps.persistence.write(async (tx) => {
    // The lane call awaited: read the proposal again inside the transaction.
    const p = await findProposal(tx, body.proposal_id)
    if (!p) throw proposalNotFound()
    if (!canApply(p.state, 'approve_check')) {
      throw unprocessable('invalid_transition', `A proposal in state ${p.state} cannot be approval-checked.`)
    }
    const at = iso(deps.now())
    let state: ProposalState = p.state
    let staleInvalidated = false
    if (verdict.ok) {
      state = 'approved'
      await updateProposal(tx, p.proposalId, {
        state,
        approvalId: body.approval_id,
        policyApproved: true,
        humanApproved: true,
        staleInvalidated: false,
        approvalCheckedAt: at,
        updatedAt: at,
      })
    } else if (verdict.code === 'approval_rejected') {
      state = 'rejected'
      await updateProposal(tx, p.proposalId, {
        state,
        approvalId: body.approval_id,
        policyApproved: false,
        humanApproved: false,
        approvalCheckedAt: at,
        updatedAt: at,
      })
    } else if (verdict.code === 'approval_stale') {
      staleInvalidated = true
      if (p.state === 'approved') state = 'proposed'
      await updateProposal(tx, p.proposalId, {
        state,
        policyApproved: false,
        humanApproved: false,
        staleInvalidated: true,
        approvalCheckedAt: at,
        updatedAt: at,
      })
    }
    if (state !== p.state) await transition(tx, p, 'approve_check', state, at)
    return {
      proposal_id: p.proposalId,
      approval_id: body.approval_id,
      proposal_state: state,
      policy_approved: verdict.policy_approved,
      human_approved: verdict.human_approved,
      stale_invalidated: staleInvalidated,
    }
  })
  deps.counters.approvalChecks.inc({ outcome: verdict.ok ? 'approved' : verdict.code })
  deps.log.info(
    {
      proposal_id: body.proposal_id,
      approval_id: body.approval_id,
      outcome: verdict.ok ? 'approved' : verdict.code,
      proposal_state: result.proposal_state,
    },
    'approval checked',
  )
  if (!verdict.ok) {
    throw new AppError(
      422,
      verdict.code,
      verdict.message,
      { lane_decision: approval?.decision ?? null },
      result,
    )
  }
  return result
}

type IdempotentOperation = 'activate' | 'rollback'

const encodeAnswer = (answer: unknown): StoredResponse => ({
  status: 200,
  headers: {},
  body: new TextEncoder().encode(JSON.stringify(answer)),
})
const decodeAnswer = <T>(body: Uint8Array): T => JSON.parse(new TextDecoder().decode(body)) as T

/**
 * Run an activate or rollback at most once per idempotency key, through the shared key store
 * (db/idempotency.ts on ctx.storage, so it also holds across processes on one database): the
 * first successful answer is saved in the transaction that made the effect and replayed as is
 * afterwards, changing nothing; refusals are not stored. The same key with another request
 * (another proposal, or for rollback another reason) is a 409 idempotency_key_reused.
 */
async function once<A extends { proposal_id: string }>(
  deps: AlsDeps,
  operation: IdempotentOperation,
  body: { idempotency_key: string },
  effect: (tx: Tx) => Promise<A>,
): Promise<{ replayed: boolean; answer: A }> {
  const req = { scope: operation, key: body.idempotency_key, fingerprint: requestFingerprint(body) }
  try {
    const result = await deps.persistence.writeWith(() =>
      runIdempotent(
        deps.persistence.storage,
        req,
        () =>
          deps.persistence.write(async (tx) => {
            const encoded = encodeAnswer(await effect(tx))
            await saveAnswerIn(tx, req, encoded, iso(deps.now()))
            return encoded
          }),
        { savedByExecute: true },
      ),
    )
    // Decoded in both cases, so the first answer and its replays are the same JSON.
    return { replayed: result.replayed, answer: decodeAnswer<A>(result.response.body) }
  } catch (err) {
    if (!(err instanceof AppError) || err.errorCode !== 'idempotency_conflict') throw err
    const stored = await deps.persistence.read((q) => storedAnswer(q, operation, body.idempotency_key))
    throw conflict(
      'idempotency_key_reused',
      `This idempotency key was used to ${operation} with another request.`,
      { proposal_id: stored ? decodeAnswer<{ proposal_id: string }>(stored).proposal_id : null },
    )
  }
}

/**
 * promotions/activate, idempotent per key (the first successful answer is replayed as is and
 * changes nothing; refusals are not stored). Refused (422), in order: service mode not
 * effectively promotion_enabled, unknown proposal, approvals missing, wrong state, another
 * candidate active on the target, velocity breaker active.
 */
export async function activate(
  deps: AlsDeps,
  body: Static<typeof ActivateRequest>,
): Promise<Static<typeof ActivateResponse>> {
  type Answer = Static<typeof ActivateResponse>
  const result = await once(deps, 'activate', body, async (tx): Promise<Answer> => {
    if (!promotionsAllowed(deps.settings.serviceMode)) {
      throw unprocessable(
        'service_mode_not_promotable',
        `The service runs in mode ${deps.settings.serviceMode}; activation needs promotion_enabled.`,
      )
    }
    const p = await findProposal(tx, body.proposal_id)
    if (!p) throw proposalNotFound()
    if (p.state === 'proposed' || p.state === 'rejected') {
      throw unprocessable('approvals_missing', 'The proposal has not been approved by the approval lane.', {
        proposal_state: p.state,
      })
    }
    if (!canApply(p.state, 'activate')) {
      throw unprocessable('invalid_transition', `A proposal in state ${p.state} cannot be activated.`)
    }
    if (!p.policyApproved || !p.humanApproved) {
      throw unprocessable('approvals_missing', 'The proposal lacks the policy or the human approval.')
    }
    const active = await findActiveOnTarget(tx, p.targetType, p.targetId, p.proposalId)
    if (active) {
      throw unprocessable('conflicting_active_candidate', 'Another candidate is active on this target.', {
        active_proposal_id: active.proposalId,
      })
    }
    const now = deps.now()
    const recent = await countActivationsSince(tx, iso(now - deps.settings.velocityWindowMs))
    if (velocityBreakerActive(recent, deps.settings.velocityMax)) {
      throw unprocessable(
        'promotion_velocity_breaker_active',
        'Too many activations in the velocity window.',
        {
          activations: recent,
          max: deps.settings.velocityMax,
          window_s: deps.settings.velocityWindowMs / 1000,
        },
      )
    }
    const at = iso(now)
    const before = await currentRuntime(tx, p.targetType, p.targetId, p.currentDecision)
    const after: RuntimeState = {
      target_type: p.targetType,
      target_id: p.targetId,
      active_proposal_id: p.proposalId,
      candidate_hash: p.candidateHash,
      decision: p.candidateDecision ?? null,
    }
    await saveRuntimeTarget(tx, after, at)
    await transition(tx, p, 'activate', 'activated', at, {
      before: runtimeStateKey(before),
      after: runtimeStateKey(after),
    })
    await updateProposal(tx, p.proposalId, {
      state: 'activated',
      runtimeStateBefore: before,
      runtimeStateAfter: after,
      activatedAt: at,
      updatedAt: at,
    })
    const answer: Answer = {
      proposal_id: p.proposalId,
      proposal_state: 'activated',
      runtime_state_before: before,
      runtime_state_after: after,
      activated_at: at,
    }
    return answer
  })
  deps.counters.activations.inc({ result: result.replayed ? 'replayed' : 'activated' })
  if (!result.replayed) deps.log.info({ proposal_id: body.proposal_id }, 'proposal activated')
  return result.answer
}

/**
 * promotions/rollback, idempotent per key like activate. Allowed in every service mode (it only
 * ever undoes). The target gets back the runtime state recorded at activation; rollback_restored
 * says whether it did (false only when the target no longer ran this proposal).
 */
export async function rollback(
  deps: AlsDeps,
  body: Static<typeof RollbackRequest>,
): Promise<Static<typeof RollbackResponse>> {
  type Answer = Static<typeof RollbackResponse>
  const result = await once(deps, 'rollback', body, async (tx): Promise<Answer> => {
    const p = await findProposal(tx, body.proposal_id)
    if (!p) throw proposalNotFound()
    if (p.state !== 'activated') {
      throw unprocessable('proposal_not_activated', `The proposal is ${p.state}, not activated.`, {
        proposal_state: p.state,
      })
    }
    const at = iso(deps.now())
    const current = await currentRuntime(tx, p.targetType, p.targetId, null)
    const restored = current.active_proposal_id === p.proposalId && p.runtimeStateBefore !== null
    const after = restored ? (p.runtimeStateBefore as RuntimeState) : current
    if (restored) await saveRuntimeTarget(tx, after, at)
    await transition(tx, p, 'rollback', 'rolled_back', at, {
      before: runtimeStateKey(current),
      after: runtimeStateKey(after),
    })
    await updateProposal(tx, p.proposalId, {
      state: 'rolled_back',
      rollbackReason: body.reason,
      rollbackRestored: restored,
      rolledBackAt: at,
      updatedAt: at,
    })
    const answer: Answer = {
      proposal_id: p.proposalId,
      final_state: 'rolled_back',
      rollback_restored: restored,
      runtime_state_before: current,
      runtime_state_after: after,
      rolled_back_at: at,
    }
    return answer
  })
  deps.counters.rollbacks.inc({ result: result.replayed ? 'replayed' : 'rolled_back' })
  if (!result.replayed) {
    deps.log.info(
      { proposal_id: body.proposal_id, rollback_restored: result.answer.rollback_restored },
      'proposal rolled back',
    )
  }
  return result.answer
}

export async function getProposal(deps: AlsDeps, proposalId: string): Promise<Static<typeof ProposalRecord>> {
  const p = await deps.persistence.read((q) => findProposal(q, proposalId))
  if (!p) throw notFound('proposal_not_found', 'No proposal has this proposal_id.')
  return {
    proposal_id: p.proposalId,
    source: p.source,
    proposal_state: p.state,
    target_type: p.targetType,
    target_id: p.targetId,
    run_id: p.runId,
    replay_id: p.replayId,
    risk_class: p.riskClass,
    replay_verdict: p.replayVerdict,
    service_mode: p.serviceMode as Static<typeof ProposalRecord>['service_mode'],
    current_decision: p.currentDecision ?? null,
    candidate_decision: p.candidateDecision ?? null,
    candidate_hash: p.candidateHash,
    provenance_hash: p.provenanceHash,
    decision_delta_hash: p.decisionDeltaHash,
    revalidate_required: p.revalidateRequired,
    oscillation_detected: p.oscillationDetected,
    approval_id: p.approvalId,
    policy_approved: p.policyApproved,
    human_approved: p.humanApproved,
    stale_invalidated: p.staleInvalidated,
    approval_checked_at: p.approvalCheckedAt,
    runtime_state_before: (p.runtimeStateBefore as RuntimeState | null) ?? null,
    runtime_state_after: (p.runtimeStateAfter as RuntimeState | null) ?? null,
    activated_at: p.activatedAt,
    rollback_reason: p.rollbackReason,
    rollback_restored: p.rollbackRestored,
    rolled_back_at: p.rolledBackAt,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  }
}

/**
 * The ALS approval lane (docs/conventions.md §4): approvals recorded here, read by ALS's
 * approve-check. A decided approval (approved or rejected) is final; a pending one may be decided
 * once. The check and the write are one transaction, so two processes deciding one approval at
 * once cannot both succeed.
 */
import type { Static } from 'elysia'
import { AppError, unprocessable } from '../../../common/errors.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import type { ApprovalRecordRequest } from '../model.ts'
import * as store from '../store.ts'
import type { Authority } from './authority.ts'

export interface ApprovalDeps {
  storage: Storage
  approvalTtlS: number
  sinkConfigured: boolean
}

type Decision = Static<typeof ApprovalRecordRequest>

/** Record or decide an approval; `created` tells a new one from a decided pending one. */
export async function recordApproval(deps: ApprovalDeps, authority: Authority, body: Decision) {
  if (body.decision === 'approved' && !body.policy_approved) {
    throw unprocessable('policy_approval_required', 'An approved decision needs policy_approved true.')
  }
  if (body.decision !== 'approved' && body.human_approved && body.policy_approved) {
    throw unprocessable('inconsistent_decision', 'Both approvals are set but the decision is not approved.')
  }
  const approvalId = body.approval_id ?? newId()
  const now = nowIso()
  return await deps.storage.transaction(async (tx) => {
    const existing = await store.findApproval(tx, approvalId)
    if (existing && existing.decision !== 'pending') {
      throw new AppError(
        409,
        'approval_decided',
        `The approval is already ${existing.decision}; decisions are final.`,
      )
    }
    if (existing && existing.proposalRef !== body.proposal_ref) {
      throw new AppError(409, 'proposal_ref_mismatch', 'The approval belongs to another proposal.')
    }
    await store.saveApproval(tx, {
      approvalId,
      proposalRef: body.proposal_ref,
      decision: body.decision,
      policyApproved: body.policy_approved,
      humanApproved: body.human_approved,
      decidedAt: body.decision === 'pending' ? null : now,
      decidedBy: authority.subject,
      recordedAt: now,
      expiresAt: new Date(Date.now() + (body.valid_for_s ?? deps.approvalTtlS) * 1000).toISOString(),
    })
    await store.audit(
      tx,
      {
        kind: 'execution_approval.recorded',
        actor: authority.subject,
        authoritySource: authority.authority_source,
        resourceKind: 'execution_approval',
        resourceId: approvalId,
        outcome: 'recorded',
        details: { proposal_ref: body.proposal_ref, decision: body.decision },
      },
      deps.sinkConfigured,
    )
    return { created: !existing, approval: (await store.findApproval(tx, approvalId))! }
  })
}

import { Elysia, t } from 'elysia'
import { AppError, notFound, unprocessable } from '../../../common/errors.ts'
import { rejectUnknownFields } from '../../../common/schema.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Storage } from '../../../db/storage.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import { Approval, ApprovalRecordRequest, Approvals, LimitQuery } from '../model.ts'
import * as store from '../store.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface ExecutionDeps {
  storage: Storage
  auth: AuthorityPlugin
  approvalTtlS: number
  sinkConfigured: boolean
}

export function approvalView(r: store.ApprovalRow, now = Date.now()) {
  return {
    approval_id: r.approvalId,
    proposal_ref: r.proposalRef,
    decision: r.decision,
    policy_approved: r.policyApproved,
    human_approved: r.humanApproved,
    decided_at: r.decidedAt,
    stale: Date.parse(r.expiresAt) <= now,
    decided_by: r.decidedBy,
    recorded_at: r.recordedAt,
    expires_at: r.expiresAt,
  }
}

/**
 * The ALS approval lane (docs/conventions.md §4): approvals recorded here, read by ALS's approve-check.
 * A decided approval (approved or rejected) is final; a pending one may be decided once.
 */
export const executionRoutes = (deps: ExecutionDeps) =>
  new Elysia({ name: 'rms:execution' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .get(
          '/api/v1/execution/approvals',
          async ({ authority, query }) => {
            const items = (await store.listApprovals(deps.storage.db, query.limit ?? 100)).map((r) =>
              approvalView(r),
            )
            return { items, count: items.length, ...mark(authority) }
          },
          {
            query: LimitQuery,
            response: { 200: Approvals, ...READ_ERRORS },
            detail: { summary: 'Recorded execution approvals' },
          },
        )
        .get(
          '/api/v1/execution/approvals/:approval_id',
          async ({ authority, params }) => {
            const r = await store.findApproval(deps.storage.db, params.approval_id)
            if (!r) throw notFound('approval_not_found', 'No approval has this id.')
            return { ...approvalView(r), ...mark(authority) }
          },
          {
            params: t.Object({ approval_id: t.String({ minLength: 1, maxLength: 128 }) }),
            response: { 200: Approval, ...READ_ERRORS },
            detail: { summary: 'One approval (the ALS approval lane)' },
          },
        ),
    )
    .guard({ access: 'write' }, (app) =>
      app.post(
        '/api/v1/execution/approvals',
        async ({ authority, body, set }) => {
          if (body.decision === 'approved' && !body.policy_approved) {
            throw unprocessable(
              'policy_approval_required',
              'An approved decision needs policy_approved true.',
            )
          }
          if (body.decision !== 'approved' && body.human_approved && body.policy_approved) {
            throw unprocessable(
              'inconsistent_decision',
              'Both approvals are set but the decision is not approved.',
            )
          }
          const approvalId = body.approval_id ?? newId()
          const now = nowIso()
          let created = false
          await deps.storage.transaction(async (tx) => {
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
            created = !existing
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
          })
          set.status = created ? 201 : 200
          return {
            ...approvalView((await store.findApproval(deps.storage.db, approvalId))!),
            ...mark(authority),
          }
        },
        {
          body: ApprovalRecordRequest,
          ...rejectUnknownFields(ApprovalRecordRequest),
          response: { 200: Approval, 201: Approval, ...WRITE_ERRORS },
          detail: {
            summary: 'Record an execution approval (pending may be decided once; decisions are final)',
          },
        },
      ),
    )

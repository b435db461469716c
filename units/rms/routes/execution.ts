import { Elysia, t } from 'elysia'
import { notFound } from '../../../common/errors.ts'
import { rejectUnknownFields } from '../../../common/schema.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import { Approval, ApprovalRecordRequest, Approvals, LimitQuery } from '../model.ts'
import { type ApprovalDeps, recordApproval } from '../service/approvals.ts'
import * as store from '../store.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface ExecutionDeps extends ApprovalDeps {
  auth: AuthorityPlugin
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

/** The ALS approval lane: read here, recorded by `service/approvals.ts`. */
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
          const { created, approval } = await recordApproval(deps, authority, body)
          set.status = created ? 201 : 200
          return { ...approvalView(approval), ...mark(authority) }
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

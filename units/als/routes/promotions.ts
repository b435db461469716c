import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import {
  ActivateRequest,
  ActivateResponse,
  ApproveCheckRefusal,
  ApproveCheckRequest,
  ApproveCheckResponse,
  ProposalIdParams,
  ProposalRecord,
  ProposeRequest,
  ProposeResponse,
  RollbackRequest,
  RollbackResponse,
} from '../model.ts'
import type { AlsDeps } from '../service/deps.ts'
import { activate, approveCheck, getProposal, propose, rollback } from '../service/proposals.ts'

const errors = errorResponses(400, 413, 415, 422, 503)

export const promotionRoutes = (deps: AlsDeps) =>
  new Elysia({ name: 'als:promotions' })
    .post('/api/v1/learning/promotions/propose', ({ body }) => propose(deps, body), {
      body: ProposeRequest,
      response: { 200: ProposeResponse, ...errors },
      detail: {
        summary: 'Create a promotion proposal',
        description:
          '422 requested_mode_not_promotable, service_mode_not_promotable (warmup or observe_only), no_learn_target, security_critical_target, blocked_target_risk, weight_training_disabled.',
      },
    })
    .post('/api/v1/learning/promotions/approve-check', ({ body }) => approveCheck(deps, body), {
      body: ApproveCheckRequest,
      response: { 200: ApproveCheckResponse, ...errors, 422: ApproveCheckRefusal },
      detail: {
        summary: 'Evaluate a proposal against the RMS approval lane (fails closed)',
        description:
          '422 proposal_not_found, invalid_transition (error envelope only); approval_missing, approval_mismatch, approval_stale, approval_rejected, approval_pending, approval_incomplete (envelope plus the evaluation fields). 503 approval_lane_unavailable when RMS cannot be asked.',
      },
    })
    .post('/api/v1/learning/promotions/activate', ({ body }) => activate(deps, body), {
      body: ActivateRequest,
      response: { 200: ActivateResponse, ...errorResponses(400, 409, 413, 415, 422, 503) },
      detail: {
        summary: 'Activate an approved proposal (idempotent per idempotency_key)',
        description:
          '422 service_mode_not_promotable, proposal_not_found, approvals_missing, invalid_transition, conflicting_active_candidate, promotion_velocity_breaker_active. 409 idempotency_key_reused.',
      },
    })
    .post('/api/v1/learning/promotions/rollback', ({ body }) => rollback(deps, body), {
      body: RollbackRequest,
      response: { 200: RollbackResponse, ...errorResponses(400, 409, 413, 415, 422, 503) },
      detail: {
        summary: 'Roll back an activated proposal (idempotent per idempotency_key)',
        description: '422 proposal_not_found, proposal_not_activated. 409 idempotency_key_reused.',
      },
    })
    .get('/api/v1/learning/proposals/:proposal_id', ({ params }) => getProposal(deps, params.proposal_id), {
      params: ProposalIdParams,
      response: { 200: ProposalRecord, ...errorResponses(400, 404, 503) },
      detail: { summary: 'A stored proposal (404 proposal_not_found)' },
    })

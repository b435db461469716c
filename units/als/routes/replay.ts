import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import {
  ProposeFromEvidenceRequest,
  ProposeFromEvidenceResponse,
  ReplayEvaluateRequest,
  ReplayEvaluateResponse,
} from '../model.ts'
import type { AlsDeps } from '../service/deps.ts'
import { evaluateCandidate, proposeFromEvidence } from '../service/replay.ts'

const errors = errorResponses(400, 413, 415, 422, 503)

export const replayRoutes = (deps: AlsDeps) =>
  new Elysia({ name: 'als:replay' })
    .post('/api/v1/learning/replay/evaluate', ({ body }) => evaluateCandidate(deps, body), {
      body: ReplayEvaluateRequest,
      response: { 200: ReplayEvaluateResponse, ...errors },
      detail: {
        summary: 'Evaluate a replay candidate against a threshold contract',
        description:
          '422 weight_training_disabled, replay_budget_exhausted (ALS_REPLAY_BUDGET per rolling hour). 400 invalid_threshold_contract (a bound with min > max).',
      },
    })
    .post('/api/v1/learning/replay/propose-from-evidence', ({ body }) => proposeFromEvidence(deps, body), {
      body: ProposeFromEvidenceRequest,
      response: { 200: ProposeFromEvidenceResponse, ...errors },
      detail: {
        summary: 'Replay a run’s candidate decision and propose it when the replay accepts',
        description:
          '422 source_run_missing, source_run_no_signal, decisions_identical, source_evidence_stale, baseline_validity_stale, weight_training_disabled, replay_budget_exhausted, replay_rejected_candidate. 503 persistence_unavailable.',
      },
    })

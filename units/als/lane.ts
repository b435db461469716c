import { Type as T } from '@sinclair/typebox'
import { callPeer } from '../../common/peer.ts'
import type { Approval } from './rules/approval.ts'

/** The RMS approval lane's answer (docs/conventions.md §4). */
export const ApprovalAnswer = T.Object(
  {
    approval_id: T.String(),
    proposal_ref: T.String(),
    decision: T.Union([T.Literal('approved'), T.Literal('rejected'), T.Literal('pending')]),
    policy_approved: T.Boolean(),
    human_approved: T.Boolean(),
    decided_at: T.Union([T.String(), T.Null()]),
    stale: T.Boolean(),
  },
  { additionalProperties: true },
)

export interface LaneSettings {
  /** SVC_RMS_URL; undefined: the lane is missing and every approve-check fails closed. */
  rmsUrl: string | undefined
  token: string | undefined
  timeoutMs: number
}

export type LaneAnswer =
  | { kind: 'found'; approval: Approval }
  | { kind: 'missing' }
  | { kind: 'unavailable'; reason: string; message: string }

/** Ask RMS for one approval. Never throws: anything but a contract answer or a 404 is `unavailable`. */
export async function fetchApproval(settings: LaneSettings, approvalId: string): Promise<LaneAnswer> {
  const url = settings.rmsUrl
    ? new URL(`/api/v1/execution/approvals/${encodeURIComponent(approvalId)}`, settings.rmsUrl).href
    : undefined
  const answer = await callPeer({
    url,
    headers: settings.token ? { authorization: `Bearer ${settings.token}` } : {},
    timeoutMs: settings.timeoutMs,
    schema: ApprovalAnswer,
    acceptStatus: [404],
  })
  if (!answer.ok) return { kind: 'unavailable', reason: answer.reason, message: answer.message }
  if (answer.status === 404) return { kind: 'missing' }
  const a = answer.body
  if (a.approval_id !== approvalId) {
    return { kind: 'unavailable', reason: 'bad_body', message: 'the lane answered for another approval_id' }
  }
  return {
    kind: 'found',
    approval: {
      approval_id: a.approval_id,
      proposal_ref: a.proposal_ref,
      decision: a.decision,
      policy_approved: a.policy_approved,
      human_approved: a.human_approved,
      decided_at: a.decided_at,
      stale: a.stale,
    },
  }
}

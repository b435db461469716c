/**
 * Persistent agents (declared on the runtime host), their workspaces, and the governed learning
 * proposals: create, review, activate. Each write and its audit event commit in one transaction;
 * a refusal by a proposal rule is itself audited, outside the rolled-back transaction.
 */
import type { Static } from 'elysia'
import { AppError, notFound, unprocessable } from '../../../common/errors.ts'
import { canonicalHash } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Sql, Storage } from '../../../db/storage.ts'
import type { AgentDoc } from '../model/host.ts'
import type { CreateProposalRequest, ReviewRequest } from '../model.ts'
import { canActivate, canReview, type Verdict } from '../rules/proposals.ts'
import * as store from '../store.ts'
import type { Authority } from './authority.ts'
import { workspacePresent } from './host.ts'
import type { RuntimeService } from './runtime.ts'

export interface ProposalDeps {
  storage: Storage
  runtime: RuntimeService
  sinkConfigured: boolean
}

type Change = Static<typeof CreateProposalRequest>['change']
type Review = Static<typeof ReviewRequest>

export function proposalView(p: store.ProposalRow) {
  return {
    proposal_id: p.proposalId,
    agent_slug: p.agentSlug,
    agent_id: p.agentId,
    change: p.change as { summary: string; settings: Record<string, unknown>; rationale?: string },
    change_hash: p.changeHash,
    proposer: p.proposer,
    state: p.state,
    terminal: p.state !== 'pending_review',
    created_at: p.createdAt,
    review:
      p.state === 'pending_review'
        ? null
        : { reviewer: p.reviewer!, decision: p.state, reason: p.reviewReason!, reviewed_at: p.reviewedAt! },
    activation: p.activatedAt ? { activated_by: p.activatedBy!, activated_at: p.activatedAt } : null,
  }
}

const RULE_REFUSALS = new Set([
  'self_review_forbidden',
  'proposal_terminal',
  'review_required',
  'proposal_rejected',
  'self_activation_forbidden',
  'already_activated',
])

const refuse = (v: Verdict) => {
  if (!v.ok) throw new AppError(v.status, v.code, v.message)
}

export function workspaceOf(deps: ProposalDeps, a: AgentDoc) {
  const present = a.workspace ? workspacePresent(deps.runtime.hostDir, a.workspace.path) : false
  return {
    agent_slug: a.agent_slug,
    agent_id: a.agent_id,
    workspace_id: a.workspace?.workspace_id ?? null,
    path: a.workspace?.path ?? null,
    retention_days: a.workspace?.retention_days ?? null,
    present,
    state: !a.workspace ? ('undeclared' as const) : present ? ('present' as const) : ('missing' as const),
  }
}

export const persistentWorkspaces = async (deps: ProposalDeps) =>
  (await deps.runtime.catalog()).agents.filter((a) => a.persistent).map((a) => workspaceOf(deps, a))

export async function persistentViews(deps: ProposalDeps) {
  const [c, pending] = await Promise.all([
    deps.runtime.catalog(),
    store.pendingProposalsByAgent(deps.storage.db),
  ])
  const fed = new Map(deps.runtime.federation(c).agents.map((a) => [a.agent_id, a]))
  return c.agents
    .filter((a) => a.persistent)
    .map((a) => ({
      agent_id: a.agent_id,
      agent_slug: a.agent_slug,
      display_name: a.display_name,
      lifecycle_state: a.lifecycle_state,
      team_id: a.team_id,
      domain_id: a.domain_id,
      admitted: fed.get(a.agent_id)?.admitted ?? false,
      lockout_reasons: fed.get(a.agent_id)?.lockout_reasons ?? [],
      learning: {
        mode: a.learning?.mode ?? ('undeclared' as const),
        settings: a.learning?.settings ?? {},
        active_proposal_id: a.learning?.active_proposal_id ?? null,
        pending_proposals: pending.get(a.agent_slug) ?? 0,
      },
      workspace: workspaceOf(deps, a),
    }))
}

export async function persistentView(deps: ProposalDeps, slug: string) {
  const agent = (await persistentViews(deps)).find((a) => a.agent_slug === slug)
  if (!agent) throw notFound('persistent_agent_not_found', 'No persistent agent has this slug.')
  return agent
}

export async function persistentAgent(deps: ProposalDeps, slug: string): Promise<AgentDoc> {
  const a = (await deps.runtime.catalog()).agents.find((x) => x.agent_slug === slug && x.persistent)
  if (!a) throw notFound('persistent_agent_not_found', 'No persistent agent has this slug.')
  return a
}

async function findProposal(db: Sql, slug: string, id: string): Promise<store.ProposalRow> {
  const p = await store.findProposal(db, slug, id)
  if (!p) throw notFound('proposal_not_found', 'This agent has no learning proposal with this id.')
  return p
}

export const proposalOf = async (deps: ProposalDeps, slug: string, id: string) =>
  proposalView(await findProposal(deps.storage.db, slug, id))

export async function proposalsOf(deps: ProposalDeps, slug: string) {
  await persistentAgent(deps, slug)
  return (await store.listProposals(deps.storage.db, slug)).map(proposalView)
}

const proposalAudit = (
  authority: Authority,
  kind: string,
  proposalId: string,
  outcome: store.AuditInput['outcome'],
  details: Record<string, unknown>,
): store.AuditInput => ({
  kind,
  actor: authority.subject,
  authoritySource: authority.authority_source,
  resourceKind: 'learning_proposal',
  resourceId: proposalId,
  outcome,
  details,
})

/** Run a governed step; a refusal by a proposal rule is audited (its own transaction), then rethrown. */
async function governed<T>(
  deps: ProposalDeps,
  authority: Authority,
  proposalId: string,
  action: 'review' | 'activate',
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step()
  } catch (err) {
    if (err instanceof AppError && RULE_REFUSALS.has(err.errorCode)) {
      const entry = proposalAudit(authority, 'learning_proposal.refused', proposalId, 'refused', {
        action,
        code: err.errorCode,
      })
      await deps.storage.transaction((tx) => store.audit(tx, entry, deps.sinkConfigured))
    }
    throw err
  }
}

/** A new proposal by the authority subject, pending review. */
export async function createProposal(deps: ProposalDeps, authority: Authority, slug: string, change: Change) {
  const agent = await persistentAgent(deps, slug)
  if (agent.learning?.mode === 'frozen') {
    throw unprocessable(
      'learning_frozen',
      'This agent does not take learning proposals (learning mode frozen).',
    )
  }
  const row = {
    proposalId: newId(),
    agentSlug: agent.agent_slug,
    agentId: agent.agent_id,
    change,
    changeHash: canonicalHash(change),
    proposer: authority.subject,
    state: 'pending_review' as const,
    createdAt: nowIso(),
  }
  await deps.storage.transaction(async (tx) => {
    await store.insertProposal(tx, row)
    await store.audit(
      tx,
      proposalAudit(authority, 'learning_proposal.created', row.proposalId, 'recorded', {
        agent_slug: agent.agent_slug,
        change_hash: row.changeHash,
      }),
      deps.sinkConfigured,
    )
  })
  return proposalOf(deps, agent.agent_slug, row.proposalId)
}

/** Approve or reject a pending proposal (terminal; never by its proposer). */
export async function reviewProposal(
  deps: ProposalDeps,
  authority: Authority,
  slug: string,
  proposalId: string,
  review: Review,
) {
  await persistentAgent(deps, slug)
  await governed(deps, authority, proposalId, 'review', () =>
    deps.storage.transaction(async (tx) => {
      const p = await findProposal(tx, slug, proposalId)
      refuse(
        canReview({ state: p.state, proposer: p.proposer, activatedAt: p.activatedAt }, authority.subject),
      )
      await store.updateProposal(tx, p.proposalId, {
        state: review.decision,
        reviewer: authority.subject,
        reviewReason: review.reason,
        reviewedAt: nowIso(),
      })
      await store.audit(
        tx,
        proposalAudit(authority, 'learning_proposal.reviewed', p.proposalId, 'recorded', {
          decision: review.decision,
          reason: review.reason,
          proposer: p.proposer,
        }),
        deps.sinkConfigured,
      )
    }),
  )
  return proposalOf(deps, slug, proposalId)
}

const activationVerdict = (p: store.ProposalRow, subject: string) =>
  canActivate({ state: p.state, proposer: p.proposer, activatedAt: p.activatedAt }, subject)

/** Activate an approved proposal (never by its proposer): patch the agent on the host, then record it. */
export async function activateProposal(
  deps: ProposalDeps,
  authority: Authority,
  slug: string,
  proposalId: string,
) {
  const agent = await persistentAgent(deps, slug)
  const p = await findProposal(deps.storage.db, slug, proposalId)
  await governed(deps, authority, p.proposalId, 'activate', async () =>
    refuse(activationVerdict(p, authority.subject)),
  )
  const change = p.change as { settings: Record<string, unknown> }
  const desired = (await store.loadDesired(deps.storage.db)).get(`agent/${agent.agent_id}`)
  if (!desired)
    throw unprocessable(
      'agent_not_desired',
      'The agent is not in the desired state; reconcile the host first.',
    )
  const doc = desired.doc as AgentDoc
  const next: AgentDoc = {
    ...doc,
    learning: {
      mode: doc.learning?.mode ?? 'proposal_review',
      settings: { ...(doc.learning?.settings ?? {}), ...change.settings },
      active_proposal_id: p.proposalId,
    },
  }
  const actor = { subject: authority.subject, authority_source: authority.authority_source }
  const plan = await deps.runtime.plan(
    [{ op: 'upsert', kind: 'agent', resource_id: agent.agent_id, document: next }],
    false,
    actor,
  )
  const applied = await deps.runtime.apply(plan.plan_id, plan.plan_hash, actor)
  // Checked again where it is recorded: of two concurrent activations one is recorded (the other's
  // apply found the plan stale or changed nothing, and it is refused here as already activated).
  await governed(deps, authority, p.proposalId, 'activate', () =>
    deps.storage.transaction(async (tx) => {
      refuse(activationVerdict(await findProposal(tx, slug, proposalId), authority.subject))
      await store.updateProposal(tx, p.proposalId, { activatedAt: nowIso(), activatedBy: authority.subject })
      await store.audit(
        tx,
        proposalAudit(authority, 'learning_proposal.activated', p.proposalId, 'applied', {
          agent_slug: agent.agent_slug,
          rollout_id: applied.rollout.rollout_id,
        }),
        deps.sinkConfigured,
      )
    }),
  )
  return { proposal: await proposalOf(deps, slug, proposalId), plan, rollout: applied.rollout }
}

import { Elysia, t } from 'elysia'
import { AppError, notFound, unprocessable } from '../../../common/errors.ts'
import { canonicalHash } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import type { Db } from '../../../db/sqlite.ts'
import { type Authority, type AuthorityPlugin, mark } from '../authority.ts'
import { workspacePresent } from '../host.ts'
import type { AgentDoc } from '../host-model.ts'
import {
  CreateProposalRequest,
  PersistentAgent,
  PersistentAgents,
  Proposal,
  ProposalActivated,
  Proposals,
  ReviewRequest,
  rejectUnknownFields,
  Workspaces,
} from '../model.ts'
import { canActivate, canReview, type Verdict } from '../rules/proposals.ts'
import type { RuntimeService } from '../runtime.ts'
import * as store from '../store.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface PersistentDeps {
  db: Db
  auth: AuthorityPlugin
  runtime: RuntimeService
  sinkConfigured: boolean
}

const Slug = t.Object({ agent_slug: t.String({ minLength: 1, maxLength: 63 }) })
const SlugProposal = t.Object({
  agent_slug: t.String({ minLength: 1, maxLength: 63 }),
  proposal_id: t.String({ minLength: 1, maxLength: 64 }),
})

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

/** Persistent agents (declared on the host; no create route), their workspaces and learning proposals. */
export const persistentRoutes = (deps: PersistentDeps) => {
  const workspaceOf = (a: AgentDoc) => ({
    agent_slug: a.agent_slug,
    agent_id: a.agent_id,
    workspace_id: a.workspace?.workspace_id ?? null,
    path: a.workspace?.path ?? null,
    retention_days: a.workspace?.retention_days ?? null,
    present: a.workspace ? workspacePresent(deps.runtime.hostDir, a.workspace.path) : false,
    state: !a.workspace
      ? ('undeclared' as const)
      : workspacePresent(deps.runtime.hostDir, a.workspace.path)
        ? ('present' as const)
        : ('missing' as const),
  })
  const persistentViews = () => {
    const c = deps.runtime.catalog()
    const fed = new Map(deps.runtime.federation(c).agents.map((a) => [a.agent_id, a]))
    const pending = store.pendingProposalsByAgent(deps.db)
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
        workspace: workspaceOf(a),
      }))
  }
  const persistentAgent = (slug: string) => {
    const a = deps.runtime.catalog().agents.find((x) => x.agent_slug === slug && x.persistent)
    if (!a) throw notFound('persistent_agent_not_found', 'No persistent agent has this slug.')
    return a
  }
  const findProposal = (slug: string, id: string) => {
    const p = store.findProposal(deps.db, slug, id)
    if (!p) throw notFound('proposal_not_found', 'This agent has no learning proposal with this id.')
    return p
  }
  /**
   * Run a governed step; when a proposal rule refuses it (self-review, review required, …) the
   * refusal itself is audited, outside the rolled-back transaction, then answered.
   */
  const governed = <T>(
    authority: Authority,
    proposalId: string,
    action: 'review' | 'activate',
    step: () => T,
  ): T => {
    try {
      return step()
    } catch (err) {
      if (err instanceof AppError && RULE_REFUSALS.has(err.errorCode)) {
        store.audit(
          deps.db,
          {
            kind: 'learning_proposal.refused',
            actor: authority.subject,
            authoritySource: authority.authority_source,
            resourceKind: 'learning_proposal',
            resourceId: proposalId,
            outcome: 'refused',
            details: { action, code: err.errorCode },
          },
          deps.sinkConfigured,
        )
      }
      throw err
    }
  }
  const actorOf = (a: Authority) => ({ subject: a.subject, authority_source: a.authority_source })

  return new Elysia({ name: 'rms:persistent' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .get(
          '/api/v1/persistent-agents',
          ({ authority }) => {
            const items = persistentViews()
            return { items, count: items.length, ...mark(authority) }
          },
          {
            response: { 200: PersistentAgents, ...READ_ERRORS },
            detail: { summary: 'Persistent agents declared on the runtime host' },
          },
        )
        .get(
          '/api/v1/persistent-agents/:agent_slug',
          ({ authority, params }) => {
            const agent = persistentViews().find((a) => a.agent_slug === params.agent_slug)
            if (!agent) throw notFound('persistent_agent_not_found', 'No persistent agent has this slug.')
            return { agent, ...mark(authority) }
          },
          {
            params: Slug,
            response: { 200: PersistentAgent, ...READ_ERRORS },
            detail: { summary: 'One persistent agent' },
          },
        )
        .get(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals',
          ({ authority, params }) => {
            persistentAgent(params.agent_slug)
            const proposals = store.listProposals(deps.db, params.agent_slug).map(proposalView)
            return { agent_slug: params.agent_slug, proposals, count: proposals.length, ...mark(authority) }
          },
          {
            params: Slug,
            response: { 200: Proposals, ...READ_ERRORS },
            detail: { summary: 'Learning proposals of an agent' },
          },
        )
        .get(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals/:proposal_id',
          ({ authority, params }) => ({
            proposal: proposalView(findProposal(params.agent_slug, params.proposal_id)),
            ...mark(authority),
          }),
          {
            params: SlugProposal,
            response: { 200: Proposal, ...READ_ERRORS },
            detail: { summary: 'One learning proposal' },
          },
        )
        .get(
          '/api/v1/workspaces/persistent',
          ({ authority }) => {
            const items = deps.runtime
              .catalog()
              .agents.filter((a) => a.persistent)
              .map(workspaceOf)
            return { items, count: items.length, ...mark(authority) }
          },
          {
            response: { 200: Workspaces, ...READ_ERRORS },
            detail: { summary: 'Workspaces of persistent agents' },
          },
        ),
    )
    .guard({ access: 'write' }, (app) =>
      app
        .post(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals',
          ({ authority, params, body, set }) => {
            const agent = persistentAgent(params.agent_slug)
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
              change: body.change,
              changeHash: canonicalHash(body.change),
              proposer: authority.subject,
              state: 'pending_review' as const,
              createdAt: nowIso(),
            }
            deps.db.transaction(
              (tx) => {
                store.insertProposal(tx, row)
                store.audit(
                  tx,
                  {
                    kind: 'learning_proposal.created',
                    actor: authority.subject,
                    authoritySource: authority.authority_source,
                    resourceKind: 'learning_proposal',
                    resourceId: row.proposalId,
                    outcome: 'recorded',
                    details: { agent_slug: agent.agent_slug, change_hash: row.changeHash },
                  },
                  deps.sinkConfigured,
                )
              },
              { behavior: 'immediate' },
            )
            set.status = 201
            return {
              proposal: proposalView(findProposal(agent.agent_slug, row.proposalId)),
              ...mark(authority),
            }
          },
          {
            params: Slug,
            body: CreateProposalRequest,
            ...rejectUnknownFields(CreateProposalRequest),
            response: { 201: Proposal, ...WRITE_ERRORS },
            detail: { summary: 'Create a learning proposal (proposer = the authority subject)' },
          },
        )
        .post(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals/:proposal_id/review',
          ({ authority, params, body }) => {
            persistentAgent(params.agent_slug)
            governed(authority, params.proposal_id, 'review', () =>
              deps.db.transaction(
                (tx) => {
                  const p = store.findProposal(tx, params.agent_slug, params.proposal_id)
                  if (!p)
                    throw notFound('proposal_not_found', 'This agent has no learning proposal with this id.')
                  refuse(
                    canReview(
                      { state: p.state, proposer: p.proposer, activatedAt: p.activatedAt },
                      authority.subject,
                    ),
                  )
                  store.updateProposal(tx, p.proposalId, {
                    state: body.decision,
                    reviewer: authority.subject,
                    reviewReason: body.reason,
                    reviewedAt: nowIso(),
                  })
                  store.audit(
                    tx,
                    {
                      kind: 'learning_proposal.reviewed',
                      actor: authority.subject,
                      authoritySource: authority.authority_source,
                      resourceKind: 'learning_proposal',
                      resourceId: p.proposalId,
                      outcome: 'recorded',
                      details: { decision: body.decision, reason: body.reason, proposer: p.proposer },
                    },
                    deps.sinkConfigured,
                  )
                },
                { behavior: 'immediate' },
              ),
            )
            return {
              proposal: proposalView(findProposal(params.agent_slug, params.proposal_id)),
              ...mark(authority),
            }
          },
          {
            params: SlugProposal,
            body: ReviewRequest,
            ...rejectUnknownFields(ReviewRequest),
            response: { 200: Proposal, ...WRITE_ERRORS },
            detail: { summary: 'Review a proposal: approved or rejected (terminal; not by the proposer)' },
          },
        )
        .post(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals/:proposal_id/activate',
          ({ authority, params }) => {
            const agent = persistentAgent(params.agent_slug)
            const p = findProposal(params.agent_slug, params.proposal_id)
            governed(authority, p.proposalId, 'activate', () =>
              refuse(
                canActivate(
                  { state: p.state, proposer: p.proposer, activatedAt: p.activatedAt },
                  authority.subject,
                ),
              ),
            )
            const change = p.change as { settings: Record<string, unknown> }
            const desired = store.loadDesired(deps.db).get(`agent/${agent.agent_id}`)
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
            const actor = actorOf(authority)
            const plan = deps.runtime.plan(
              [{ op: 'upsert', kind: 'agent', resource_id: agent.agent_id, document: next }],
              false,
              actor,
            )
            const applied = deps.runtime.apply(plan.plan_id, plan.plan_hash, actor)
            deps.db.transaction(
              (tx) => {
                store.updateProposal(tx, p.proposalId, {
                  activatedAt: nowIso(),
                  activatedBy: authority.subject,
                })
                store.audit(
                  tx,
                  {
                    kind: 'learning_proposal.activated',
                    actor: authority.subject,
                    authoritySource: authority.authority_source,
                    resourceKind: 'learning_proposal',
                    resourceId: p.proposalId,
                    outcome: 'applied',
                    details: { agent_slug: agent.agent_slug, rollout_id: applied.rollout.rollout_id },
                  },
                  deps.sinkConfigured,
                )
              },
              { behavior: 'immediate' },
            )
            return {
              proposal: proposalView(findProposal(params.agent_slug, params.proposal_id)),
              plan,
              rollout: applied.rollout,
              ...mark(authority),
            }
          },
          {
            params: SlugProposal,
            body: t.Optional(t.Object({}, { additionalProperties: false })),
            response: { 200: ProposalActivated, ...WRITE_ERRORS },
            detail: {
              summary: 'Activate an approved proposal (not by the proposer): patches the agent on the host',
            },
          },
        ),
    )
}

import { Elysia, t } from 'elysia'
import { rejectUnknownFields } from '../../../common/schema.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import {
  CreateProposalRequest,
  PersistentAgent,
  PersistentAgents,
  Proposal,
  ProposalActivated,
  Proposals,
  ReviewRequest,
  Workspaces,
} from '../model.ts'
import {
  activateProposal,
  createProposal,
  type ProposalDeps,
  persistentView,
  persistentViews,
  persistentWorkspaces,
  proposalOf,
  proposalsOf,
  reviewProposal,
} from '../service/proposals.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface PersistentDeps extends ProposalDeps {
  auth: AuthorityPlugin
}

const Slug = t.Object({ agent_slug: t.String({ minLength: 1, maxLength: 63 }) })
const SlugProposal = t.Object({
  agent_slug: t.String({ minLength: 1, maxLength: 63 }),
  proposal_id: t.String({ minLength: 1, maxLength: 64 }),
})

/** Persistent agents (declared on the host; no create route), their workspaces and learning proposals. */
export const persistentRoutes = (deps: PersistentDeps) =>
  new Elysia({ name: 'rms:persistent' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .get(
          '/api/v1/persistent-agents',
          async ({ authority }) => {
            const items = await persistentViews(deps)
            return { items, count: items.length, ...mark(authority) }
          },
          {
            response: { 200: PersistentAgents, ...READ_ERRORS },
            detail: { summary: 'Persistent agents declared on the runtime host' },
          },
        )
        .get(
          '/api/v1/persistent-agents/:agent_slug',
          async ({ authority, params }) => {
            return { agent: await persistentView(deps, params.agent_slug), ...mark(authority) }
          },
          {
            params: Slug,
            response: { 200: PersistentAgent, ...READ_ERRORS },
            detail: { summary: 'One persistent agent' },
          },
        )
        .get(
          '/api/v1/persistent-agents/:agent_slug/learning-proposals',
          async ({ authority, params }) => {
            const proposals = await proposalsOf(deps, params.agent_slug)
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
          async ({ authority, params }) => ({
            proposal: await proposalOf(deps, params.agent_slug, params.proposal_id),
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
          async ({ authority }) => {
            const items = await persistentWorkspaces(deps)
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
          async ({ authority, params, body, set }) => {
            const proposal = await createProposal(deps, authority, params.agent_slug, body.change)
            set.status = 201
            return { proposal, ...mark(authority) }
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
          async ({ authority, params, body }) => ({
            proposal: await reviewProposal(deps, authority, params.agent_slug, params.proposal_id, body),
            ...mark(authority),
          }),
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
          async ({ authority, params }) => ({
            ...(await activateProposal(deps, authority, params.agent_slug, params.proposal_id)),
            ...mark(authority),
          }),
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

import { Elysia, t } from 'elysia'
import { notFound } from '../../../common/errors.ts'
import { CACHED_VIEW, jsonViews } from '../../../common/json-view.ts'
import { type AuthorityPlugin, mark, markKey } from '../authority.ts'
import {
  AgentReadiness,
  Catalog,
  CatalogAgent,
  DelegationState,
  Delegations,
  HandoffPolicies,
  HandoffPolicy,
} from '../model.ts'
import { agentReadiness, delegationStates, handoffPolicy } from '../rules/policies.ts'
import type { RuntimeService } from '../service/runtime.ts'
import { READ_ERRORS } from './runtime.ts'

export interface FederationDeps {
  auth: AuthorityPlugin
  runtime: RuntimeService
}

const Slug = t.Object({ agent_slug: t.String({ minLength: 1, maxLength: 63 }) })
const AgentId = t.Object({ agent_id: t.String({ minLength: 1, maxLength: 63 }) })

/** The federation read contract and the views derived from the agent catalog. */
export const federationRoutes = (deps: FederationDeps) => {
  const readiness = async () => {
    const c = await deps.runtime.catalog()
    const fed = deps.runtime.federation(c)
    const byId = new Map(fed.agents.map((a) => [a.agent_id, a]))
    const refs = {
      teams: new Set(c.teams.map((x) => x.team_id)),
      profiles: new Set(c.profiles.map((x) => x.profile_id)),
      voices: new Set(c.voices.map((x) => x.target_id)),
    }
    const items = c.agents.map((a) => agentReadiness(a, byId.get(a.agent_id), refs))
    return { c, fed, items }
  }
  const bySlug = async (slug: string) => {
    const c = await deps.runtime.catalog()
    const agent = c.agents.find((a) => a.agent_slug === slug)
    if (!agent) throw notFound('agent_not_found', 'No agent has this slug.')
    return { c, agent }
  }

  const catalogView = jsonViews(Catalog)

  return new Elysia({ name: 'rms:federation' }).use(deps.auth).guard({ access: 'read' }, (app) =>
    app
      .get(
        '/api/v1/agent-runtime/catalog',
        async ({ authority, request, set }) => {
          const c = await deps.runtime.catalog()
          return catalogView({ request, set }, c, markKey(authority), () => ({
            ...deps.runtime.federation(c),
            ...mark(authority),
          }))
        },
        {
          response: { 200: Catalog, ...READ_ERRORS },
          detail: {
            summary:
              'Federation read contract: roots, parentage, state, class transitions, fail-closed markers',
            ...CACHED_VIEW,
          },
        },
      )
      .get(
        '/api/v1/agent-runtime/catalog/:agent_id',
        async ({ authority, params }) => {
          const { c, fed, items } = await readiness()
          const agent = c.agents.find((a) => a.agent_id === params.agent_id)
          if (!agent) throw notFound('agent_not_found', 'No agent has this id.')
          return {
            agent,
            federation: fed.agents.find((a) => a.agent_id === agent.agent_id)!,
            readiness: items.find((r) => r.agent_id === agent.agent_id)!,
            federation_state: fed.federation_state,
            ...mark(authority),
          }
        },
        {
          params: AgentId,
          response: { 200: CatalogAgent, ...READ_ERRORS },
          detail: { summary: 'One agent of the catalog' },
        },
      )
      .get(
        '/api/v1/agent-runtime/team-handoff-policies',
        async ({ authority }) => {
          const c = await deps.runtime.catalog()
          const teams = new Map(c.teams.map((x) => [x.team_id, x]))
          const items = c.agents.map((a) => handoffPolicy(a, teams))
          return { items, count: items.length, ...mark(authority) }
        },
        {
          response: { 200: HandoffPolicies, ...READ_ERRORS },
          detail: { summary: 'Team handoff policies of every agent' },
        },
      )
      .get(
        '/api/v1/agent-runtime/team-handoff-policies/:agent_slug',
        async ({ authority, params }) => {
          const { c, agent } = await bySlug(params.agent_slug)
          return {
            policy: handoffPolicy(agent, new Map(c.teams.map((x) => [x.team_id, x]))),
            ...mark(authority),
          }
        },
        {
          params: Slug,
          response: { 200: HandoffPolicy, ...READ_ERRORS },
          detail: { summary: 'Team handoff policy of one agent' },
        },
      )
      .get(
        '/api/v1/agent-runtime/delegations',
        async ({ authority }) => {
          const d = (await deps.runtime.catalog()).delegations
          return { items: d, count: d.length, ...mark(authority) }
        },
        { response: { 200: Delegations, ...READ_ERRORS }, detail: { summary: 'Declared delegations' } },
      )
      .get(
        '/api/v1/agent-runtime/delegation-state',
        async ({ authority }) => {
          const c = await deps.runtime.catalog()
          const fed = deps.runtime.federation(c)
          const items = delegationStates(
            c.delegations,
            new Map(c.agents.map((a) => [a.agent_id, a])),
            fed,
            new Map(c.teams.map((x) => [x.team_id, x])),
            new Date(),
          )
          const counts: Record<string, number> = {}
          for (const i of items) counts[i.effective_state] = (counts[i.effective_state] ?? 0) + 1
          return { items, counts, federation_state: fed.federation_state, ...mark(authority) }
        },
        {
          response: { 200: DelegationState, ...READ_ERRORS },
          detail: { summary: 'Effective delegation state' },
        },
      )
      .get(
        '/api/v1/agent-runtime/readiness',
        async ({ authority }) => {
          const { fed, items } = await readiness()
          const ready = items.filter((i) => i.ready).length
          const status = fed.fail_closed ? 'not_ready' : ready === items.length ? 'ready' : 'degraded'
          return {
            status: status as 'ready' | 'degraded' | 'not_ready',
            federation_state: fed.federation_state,
            ready_count: ready,
            not_ready_count: items.length - ready,
            items,
            ...mark(authority),
          }
        },
        { response: { 200: AgentReadiness, ...READ_ERRORS }, detail: { summary: 'Agent readiness' } },
      ),
  )
}

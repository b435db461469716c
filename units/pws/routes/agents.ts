import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import {
  Agent,
  AgentList,
  AgentListQuery,
  CreateAgentRequest,
  CreateHandoffRequest,
  Handoff,
  HandoffActionParams,
  HandoffDecision,
  HandoffList,
  HandoffListQuery,
  HandoffParams,
} from '../model/agents.ts'
import { ProjectParams } from '../model/common.ts'
import {
  agentsPage,
  createAgent,
  createHandoff,
  decideHandoff,
  getHandoff,
  handoffsPage,
} from '../service/agents.ts'
import type { PwsDeps } from '../service/deps.ts'

const P = '/api/v1/projects/:project_id'
const read = errorResponses(400, 401, 403, 404)
const write = errorResponses(400, 401, 403, 404, 409, 413, 415, 422)

export const agentRoutes = (deps: PwsDeps, sessions: ReturnType<typeof sessionPlugin>) =>
  new Elysia({ name: 'pws:agents' })
    .use(sessions)
    .get(`${P}/agents`, ({ params, query }) => agentsPage(deps, params.project_id, query), {
      session: 'viewer',
      params: ProjectParams,
      query: AgentListQuery,
      response: { 200: AgentList, ...read },
      detail: { summary: 'Agents of the project, with their open handoffs' },
    })
    .post(
      `${P}/agents`,
      async ({ params, body, set }) => {
        set.status = 201
        return createAgent(deps, params.project_id, body)
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreateAgentRequest,
        response: { 201: Agent, ...write },
        detail: { summary: 'Register an agent (409 agent_exists)' },
      },
    )
    .get(`${P}/handoffs`, ({ params, query }) => handoffsPage(deps, params.project_id, query), {
      session: 'viewer',
      params: ProjectParams,
      query: HandoffListQuery,
      response: { 200: HandoffList, ...read },
      detail: { summary: 'Handoffs, oldest first (filter state)' },
    })
    .post(
      `${P}/handoffs`,
      async ({ params, body, set }) => {
        set.status = 201
        return createHandoff(deps, params.project_id, body)
      },
      {
        session: 'operator',
        params: ProjectParams,
        body: CreateHandoffRequest,
        response: { 201: Handoff, ...write },
        detail: { summary: 'Hand a task to another agent (422 unknown_task, same_agent)' },
      },
    )
    .get(
      `${P}/handoffs/:handoff_id`,
      ({ params }) => getHandoff(deps, params.project_id, params.handoff_id),
      {
        session: 'viewer',
        params: HandoffParams,
        response: { 200: Handoff, ...read },
        detail: { summary: 'One handoff' },
      },
    )
    .post(
      `${P}/handoffs/:handoff_id/:action`,
      ({ params, body }) =>
        decideHandoff(deps, params.project_id, params.handoff_id, params.action, body?.reason),
      {
        session: 'operator',
        params: HandoffActionParams,
        body: HandoffDecision,
        response: { 200: Handoff, ...write },
        detail: { summary: 'accept, reject or expire an open handoff (422 invalid_transition)' },
      },
    )

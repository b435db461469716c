import type { Static } from 'elysia'
import { conflict, notFound, unprocessable } from '../../../common/errors.ts'
import { newId } from '../../../common/time.ts'
import type {
  AgentListQuery,
  CreateAgentRequest,
  CreateHandoffRequest,
  HandoffListQuery,
} from '../model/agents.ts'
import {
  type AgentRow,
  ensureAgentTx,
  findHandoff,
  findHandoffTx,
  findTaskTx,
  type HandoffRow,
  handoffCountsByAgent,
  insertAgent,
  insertHandoffTx,
  listAgents,
  listHandoffs,
  updateHandoffTx,
} from '../store.ts'
import { iso, type PwsDeps, write } from './deps.ts'
import { cursorPosition, nextCursor, requireProject } from './projects.ts'

/** An open handoff past its expiry reads as expired, whether or not anyone expired it yet. */
export function effectiveState(h: HandoffRow, nowMs: number): HandoffRow['state'] {
  if (h.state === 'open' && h.expiresAt !== null && Date.parse(h.expiresAt) <= nowMs) return 'expired'
  return h.state
}

export const handoffView = (h: HandoffRow, nowMs: number) => ({
  handoff_id: h.handoffId,
  project_id: h.projectId,
  task_key: h.taskKey,
  from_agent: h.fromAgent,
  to_agent: h.toAgent,
  summary: h.summary,
  state: effectiveState(h, nowMs),
  reason: h.reason,
  expires_at: h.expiresAt,
  created_at: h.createdAt,
  decided_at: h.decidedAt,
})

export async function agentsPage(deps: PwsDeps, projectId: string, query: Static<typeof AgentListQuery>) {
  await requireProject(deps, projectId)
  const page = await listAgents(deps.storage, projectId, query.limit ?? 100, cursorPosition(query.cursor, 1))
  const counts = await handoffCountsByAgent(deps.storage, projectId, iso(deps.now()))
  const sum = (key: string, side: 'from' | 'to') =>
    counts.filter((c) => c[side] === key).reduce((n, c) => n + c.n, 0)
  return {
    items: page.rows.map((a) => ({
      agent_key: a.agentKey,
      display_name: a.displayName,
      kind: a.kind,
      open_handoffs_in: sum(a.agentKey, 'to'),
      open_handoffs_out: sum(a.agentKey, 'from'),
      created_at: a.createdAt,
    })),
    next_cursor: nextCursor(page.next),
  }
}

export async function createAgent(deps: PwsDeps, projectId: string, body: Static<typeof CreateAgentRequest>) {
  await requireProject(deps, projectId)
  const row: AgentRow = {
    projectId,
    agentKey: body.agent_key,
    displayName: body.display_name,
    kind: body.kind ?? 'human',
    createdAt: iso(deps.now()),
  }
  if (!(await insertAgent(deps.storage, row))) {
    throw conflict('agent_exists', `The project already has an agent ${body.agent_key}.`)
  }
  return {
    agent_key: row.agentKey,
    display_name: row.displayName,
    kind: row.kind,
    open_handoffs_in: 0,
    open_handoffs_out: 0,
    created_at: row.createdAt,
  }
}

/**
 * Hand a task from one agent to another. The task must exist; agents not registered yet are
 * registered as they appear (kind `agent`), so a handoff never fails for bookkeeping.
 */
export async function createHandoff(
  deps: PwsDeps,
  projectId: string,
  body: Static<typeof CreateHandoffRequest>,
) {
  await requireProject(deps, projectId)
  if (body.from_agent === body.to_agent) {
    throw unprocessable('same_agent', 'from_agent and to_agent must differ.')
  }
  const now = deps.now()
  const at = iso(now)
  const row: HandoffRow = {
    handoffId: newId(),
    projectId,
    taskKey: body.task_key,
    fromAgent: body.from_agent,
    toAgent: body.to_agent,
    summary: body.summary,
    state: 'open',
    reason: null,
    expiresAt: body.expires_in_s ? iso(now + body.expires_in_s * 1000) : null,
    createdAt: at,
    decidedAt: null,
  }
  await write(deps, async (tx) => {
    if (!(await findTaskTx(tx, projectId, body.task_key))) {
      throw unprocessable('unknown_task', `Project ${projectId} has no task ${body.task_key}.`, {
        task_key: body.task_key,
      })
    }
    for (const agentKey of [body.from_agent, body.to_agent]) {
      await ensureAgentTx(tx, { projectId, agentKey, displayName: agentKey, kind: 'agent', createdAt: at })
    }
    await insertHandoffTx(tx, row)
  })
  return handoffView(row, now)
}

export async function handoffsPage(deps: PwsDeps, projectId: string, query: Static<typeof HandoffListQuery>) {
  await requireProject(deps, projectId)
  const page = await listHandoffs(
    deps.storage,
    projectId,
    query.state,
    query.limit ?? 100,
    cursorPosition(query.cursor, 1),
  )
  const now = deps.now()
  return { items: page.rows.map((h) => handoffView(h, now)), next_cursor: nextCursor(page.next) }
}

const handoffNotFound = (id: string) => notFound('handoff_not_found', `No handoff ${id} in this project.`)

export async function getHandoff(deps: PwsDeps, projectId: string, handoffId: string) {
  await requireProject(deps, projectId)
  const row = await findHandoff(deps.storage, projectId, handoffId)
  if (!row) throw handoffNotFound(handoffId)
  return handoffView(row, deps.now())
}

const NEXT_STATE = { accept: 'accepted', reject: 'rejected', expire: 'expired' } as const

/** accept, reject or expire an open handoff; any other transition is 422 invalid_transition. */
export async function decideHandoff(
  deps: PwsDeps,
  projectId: string,
  handoffId: string,
  action: keyof typeof NEXT_STATE,
  reason: string | undefined,
) {
  await requireProject(deps, projectId)
  const now = deps.now()
  const row = await write(deps, async (tx) => {
    const current = await findHandoffTx(tx, projectId, handoffId)
    if (!current) throw handoffNotFound(handoffId)
    const state = effectiveState(current, now)
    const lapsedExpiry = action === 'expire' && state === 'expired' && current.state === 'open'
    if (state !== 'open' && !lapsedExpiry) {
      throw unprocessable(
        'invalid_transition',
        `The handoff is ${state}; only an open handoff can be ${NEXT_STATE[action]}.`,
        {
          state,
          action,
        },
      )
    }
    return updateHandoffTx(tx, handoffId, {
      state: NEXT_STATE[action],
      reason: reason ?? null,
      decidedAt: iso(now),
    })
  })
  return handoffView(row, now)
}

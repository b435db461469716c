import { describe, expect, test } from 'bun:test'
import type { AgentDoc, DelegationDoc, TeamDoc } from '../model/host.ts'
import { federationContract } from './federation.ts'
import { delegationStates, handoffPolicy } from './policies.ts'

const agent = (id: string, parent: string | null, extra: Partial<AgentDoc> = {}): AgentDoc => ({
  agent_id: id,
  agent_slug: id.replace(/^a-/, ''),
  display_name: id,
  agent_class: parent === null ? 'root' : 'worker',
  parent_agent_id: parent,
  team_id: 'ops',
  domain_id: null,
  lifecycle_state: 'active',
  persistent: false,
  tool_profile: 'read-only',
  voice_target: null,
  ...extra,
})
const contract = (
  agents: AgentDoc[],
  desired: [string, string | null][] = [],
  fallback: string | null = null,
) =>
  federationContract({
    federation_id: 'f',
    agents,
    desiredParents: new Map(desired),
    fallbackReason: fallback,
  })
const markers = (c: ReturnType<typeof contract>) => c.fail_closed_markers.map((m) => m.marker)
const status = (c: ReturnType<typeof contract>, id: string) => c.agents.find((a) => a.agent_id === id)!

describe('federation read contract', () => {
  test('a healthy federation: one root, every agent attached and admitted', () => {
    const c = contract([
      agent('a-root', null),
      agent('a-mid', 'a-root', { agent_class: 'coordinator' }),
      agent('a-leaf', 'a-mid'),
    ])
    expect(c).toMatchObject({
      federation_state: 'federated',
      fail_closed: false,
      root_agent_ids: ['a-root'],
      primary_root_agent_id: 'a-root',
    })
    expect(status(c, 'a-leaf')).toMatchObject({
      parentage_status: 'attached',
      root_agent_id: 'a-root',
      depth: 2,
      admitted: true,
    })
    expect(c.fail_closed_markers).toEqual([])
  })

  test('ambiguous parentage: host and desired state name different parents; RMS does not pick one', () => {
    const c = contract(
      [agent('a-root', null), agent('a-mid', 'a-root'), agent('a-leaf', 'a-mid')],
      [['a-leaf', 'a-root']],
    )
    expect(status(c, 'a-leaf')).toMatchObject({
      parentage_status: 'ambiguous',
      root_agent_id: null,
      admitted: false,
      lockout_reasons: ['ambiguous_parentage'],
    })
    expect(c.federation_state).toBe('degraded')
    expect(c.fail_closed_markers).toContainEqual({
      marker: 'ambiguous_parentage',
      agent_ids: ['a-leaf'],
      effect: 'agent locked out: parent claims conflict, RMS does not pick one',
    })
  })

  test('ambiguous parentage: two agents share a slug; a root that claims a parent', () => {
    const c = contract([
      agent('a-root', null),
      agent('a-x', 'a-root', { agent_slug: 'same' }),
      agent('a-y', 'a-root', { agent_slug: 'same' }),
      agent('a-r2', 'a-root', { agent_class: 'root' }),
    ])
    expect(status(c, 'a-x').parentage_status).toBe('ambiguous')
    expect(status(c, 'a-y').parentage_status).toBe('ambiguous')
    expect(status(c, 'a-r2').parentage_status).toBe('ambiguous')
    expect(c.root_agent_ids).toEqual(['a-root'])
  })

  test('multiple roots: all listed, no primary root, marker says cross-root delegation is refused', () => {
    const c = contract([agent('a-r1', null), agent('a-r2', null), agent('a-w', 'a-r2')])
    expect(c).toMatchObject({
      federation_state: 'multi_root',
      fail_closed: false,
      root_agent_ids: ['a-r1', 'a-r2'],
      primary_root_agent_id: null,
    })
    expect(markers(c)).toEqual(['multiple_roots'])
    expect(status(c, 'a-w')).toMatchObject({ root_agent_id: 'a-r2', admitted: true })
  })

  test('no root at all: the federation fails closed', () => {
    const c = contract([agent('a-x', 'a-y'), agent('a-y', 'a-x')])
    expect(c).toMatchObject({ federation_state: 'fail_closed', fail_closed: true, root_agent_ids: [] })
    expect(markers(c)).toEqual(['cyclic_parentage', 'no_root'])
    expect(contract([]).federation_state).toBe('empty')
  })

  test('orphaned, unrooted and broken ancestry are locked out with their reason', () => {
    const c = contract([
      agent('a-root', null),
      agent('a-orphan', 'a-missing'),
      agent('a-below-orphan', 'a-orphan'),
      agent('a-floating', null, { agent_class: 'worker' }),
    ])
    expect(status(c, 'a-orphan')).toMatchObject({
      parentage_status: 'orphaned',
      lockout_reasons: ['orphaned_agent'],
    })
    expect(status(c, 'a-below-orphan')).toMatchObject({
      parentage_status: 'unresolved_ancestor',
      lockout_reasons: ['unrooted_agent'],
    })
    expect(status(c, 'a-floating').parentage_status).toBe('unrooted')
    expect(c.federation_state).toBe('degraded')
  })

  test('zombie lockout: declared zombies and active agents under a retired ancestor', () => {
    const c = contract([
      agent('a-root', null),
      agent('a-z', 'a-root', { lifecycle_state: 'zombie' }),
      agent('a-retired', 'a-root', { lifecycle_state: 'retired' }),
      agent('a-left-behind', 'a-retired'),
    ])
    expect(status(c, 'a-z')).toMatchObject({ admitted: false, lockout_reasons: ['zombie_lockout'] })
    expect(status(c, 'a-left-behind')).toMatchObject({
      parentage_status: 'attached',
      admitted: false,
      lockout_reasons: ['zombie_lockout'],
    })
    expect(status(c, 'a-retired').admitted).toBe(false)
    expect(c.fail_closed_markers.find((m) => m.marker === 'zombie_lockout')!.agent_ids).toEqual([
      'a-left-behind',
      'a-z',
    ])
  })

  test('degraded fallback: every agent locked out and the source says so', () => {
    const c = contract(
      [agent('a-root', null), agent('a-w', 'a-root')],
      [['a-w', 'a-other']],
      'runtime host unreadable',
    )
    expect(c).toMatchObject({ source: 'desired_state_fallback', federation_state: 'degraded' })
    expect(c.agents.every((a) => !a.admitted && a.lockout_reasons.includes('degraded_fallback'))).toBe(true)
  })

  test('class transitions: in progress locks the agent out, failed blocks the federation view', () => {
    const t = (state: 'in_progress' | 'failed' | 'completed') => ({
      from_class: 'worker' as const,
      to_class: 'coordinator' as const,
      state,
      requested_at: '2026-11-01T00:00:00.000Z',
    })
    const moving = contract([
      agent('a-root', null),
      agent('a-w', 'a-root', { class_transition: t('in_progress') }),
    ])
    expect(moving.class_transition_state).toBe('transitioning')
    expect(status(moving, 'a-w').lockout_reasons).toEqual(['class_transition_in_progress'])
    const failed = contract([
      agent('a-root', null),
      agent('a-w', 'a-root', { class_transition: t('failed') }),
    ])
    expect(failed.class_transition_state).toBe('blocked')
    const done = contract([
      agent('a-root', null),
      agent('a-w', 'a-root', { class_transition: t('completed') }),
    ])
    expect(done).toMatchObject({ class_transition_state: 'stable', federation_state: 'federated' })
  })
})

const team = (id: string, extra: Partial<TeamDoc> = {}): TeamDoc => ({
  team_id: id,
  title: id,
  assignment_mode: 'explicit',
  delegation_scope: 'cross_team',
  max_depth: 2,
  same_team_handoff: 'direct',
  cross_team_handoff: 'require_acceptance',
  transitions: {
    accept: 'receiver_confirms',
    reject: 'return_to_sender',
    expire_after_s: 600,
    escalate_to: 'parent_agent',
  },
  circular_handoff: 'fail_closed',
  projection_posture: { missing: 'fail_closed', stale: 'fail_closed', conflicting: 'fail_closed' },
  ...extra,
})
const delegation = (
  id: string,
  from: string,
  to: string,
  extra: Partial<DelegationDoc> = {},
): DelegationDoc => ({
  delegation_id: id,
  from_agent_id: from,
  to_agent_id: to,
  scope: 'same_team',
  depth: 1,
  state: 'accepted',
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: null,
  ...extra,
})

describe('handoff policies and delegation state', () => {
  const agents = [
    agent('a-root', null),
    agent('a-a', 'a-root'),
    agent('a-b', 'a-root'),
    agent('a-c', 'a-root', { team_id: 'support' }),
  ]
  const teams = new Map([
    ['ops', team('ops')],
    ['support', team('support', { cross_team_handoff: 'deny' })],
  ])
  const states = (ds: DelegationDoc[], now = new Date('2026-11-22T00:00:00.000Z')) =>
    delegationStates(ds, new Map(agents.map((a) => [a.agent_id, a])), contract(agents), teams, now)

  test('an agent without a team gets the closed posture', () => {
    const p = handoffPolicy(agent('a-x', 'a-root', { team_id: null }), teams)
    expect(p).toMatchObject({
      state: 'fail_closed',
      fail_closed_reason: 'team_unassigned',
      cross_team_handoff: 'deny',
      max_depth: 1,
      team_assignment_mode: 'unassigned',
    })
    expect(handoffPolicy(agent('a-x', 'a-root', { team_id: 'gone' }), teams).fail_closed_reason).toBe(
      'team_not_found',
    )
    expect(handoffPolicy(agents[1]!, teams)).toMatchObject({
      state: 'active',
      team_assignment_mode: 'explicit',
      circular_handoff: 'fail_closed',
    })
  })

  test('circular handoffs, depth, scope and denied cross-team handoffs are blocked', () => {
    const s = states([
      delegation('d1', 'a-a', 'a-b'),
      delegation('d2', 'a-b', 'a-a'),
      delegation('d3', 'a-a', 'a-b', { depth: 3, state: 'proposed' }),
      delegation('d4', 'a-c', 'a-a', { scope: 'cross_team' }),
      delegation('d5', 'a-a', 'a-c', { scope: 'same_team' }),
      delegation('d6', 'a-a', 'a-c', { scope: 'cross_team', expires_at: '2026-11-21T00:00:00.000Z' }),
      delegation('d7', 'a-a', 'a-ghost'),
      delegation('d8', 'a-a', 'a-ghost', { state: 'rejected' }),
    ])
    const by = (id: string) => s.find((x) => x.delegation_id === id)!
    expect(by('d1')).toMatchObject({ effective_state: 'blocked', blocked_reasons: ['circular_handoff'] })
    expect(by('d3').blocked_reasons).toEqual(
      expect.arrayContaining(['max_depth_exceeded', 'circular_handoff']),
    )
    expect(by('d4').blocked_reasons).toContain('cross_team_denied')
    expect(by('d5').blocked_reasons).toContain('scope_mismatch')
    const expired = states([delegation('d9', 'a-a', 'a-b', { expires_at: '2026-11-21T00:00:00.000Z' })])
    expect(expired[0]!.effective_state).toBe('expired')
    expect(by('d7').blocked_reasons).toEqual(['unknown_agent'])
    expect(by('d8')).toMatchObject({ effective_state: 'rejected', blocked_reasons: [] })
  })
})

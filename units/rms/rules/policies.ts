/**
 * Per-agent views derived from the host files: team handoff policy, agent tool policy,
 * delegation state, readiness and voice governance. Anything that does not resolve fails closed
 * with a stated reason rather than falling back to a permissive default.
 */
import { canonicalHash } from '../../../common/hash.ts'
import type { AgentDoc, DelegationDoc, TeamDoc, ToolProfileDoc, VoiceTargetDoc } from '../model/host.ts'
import type { FederatedAgent, FederationContract } from './federation.ts'

/** The most restrictive handoff posture: what an agent without a resolvable team gets. */
const CLOSED_TEAM: Omit<TeamDoc, 'team_id' | 'title'> = {
  assignment_mode: 'explicit',
  delegation_scope: 'same_team',
  max_depth: 1,
  same_team_handoff: 'require_acceptance',
  cross_team_handoff: 'deny',
  transitions: {
    accept: 'receiver_confirms',
    reject: 'return_to_sender',
    expire_after_s: 900,
    escalate_to: 'human_operator',
  },
  circular_handoff: 'fail_closed',
  projection_posture: { missing: 'fail_closed', stale: 'fail_closed', conflicting: 'fail_closed' },
}

export function handoffPolicy(agent: AgentDoc, teams: Map<string, TeamDoc>) {
  const team = agent.team_id ? teams.get(agent.team_id) : undefined
  const reason = !agent.team_id ? 'team_unassigned' : !team ? 'team_not_found' : null
  const p = team ?? { ...CLOSED_TEAM, team_id: agent.team_id ?? '', title: '' }
  return {
    agent_id: agent.agent_id,
    agent_slug: agent.agent_slug,
    team_id: agent.team_id,
    team_assignment_mode: team ? ('explicit' as const) : ('unassigned' as const),
    delegation_scope: p.delegation_scope,
    max_depth: p.max_depth,
    same_team_handoff: p.same_team_handoff,
    cross_team_handoff: p.cross_team_handoff,
    transitions: p.transitions,
    circular_handoff: p.circular_handoff,
    projection_posture: p.projection_posture,
    state: reason ? ('fail_closed' as const) : ('active' as const),
    fail_closed_reason: reason,
  }
}

export type ProjectionState = 'current' | 'stale' | 'missing' | 'local'

export function agentToolPolicy(
  agent: AgentDoc,
  profiles: Map<string, ToolProfileDoc>,
  projection: { state: ProjectionState; version: string | null; agents: Map<string, { read: boolean }> },
) {
  const profile = agent.tool_profile ? profiles.get(agent.tool_profile) : undefined
  const reason = !agent.tool_profile ? 'tool_profile_unassigned' : !profile ? 'tool_profile_not_found' : null
  const o = agent.tool_policy ?? {}
  const body = {
    agent_id: agent.agent_id,
    agent_slug: agent.agent_slug,
    tool_profile_id: agent.tool_profile,
    tools: profile?.tools ?? [],
    sandbox_approval_posture: profile
      ? (o.sandbox_approval ?? profile.sandbox_approval)
      : ('human_required' as const),
    bounded_change_scope: {
      max_changes_per_run: profile
        ? (o.max_changes_per_run ?? profile.bounded_change_scope.max_changes_per_run)
        : 0,
      paths: profile?.bounded_change_scope.paths ?? [],
    },
    escalation_mode: profile ? (o.escalation_mode ?? profile.escalation_mode) : ('human_operator' as const),
    escalation_target:
      o.escalation_target !== undefined ? o.escalation_target : (profile?.escalation_target ?? null),
    stale_projection_action: 'fail_closed' as const,
  }
  const projected = projection.agents.get(agent.agent_id)
  return {
    ...body,
    state: reason ? ('fail_closed' as const) : ('active' as const),
    fail_closed_reason: reason,
    projection: {
      state: projection.state,
      version: projection.version,
      agent_projected: projected !== undefined,
      agent_lane_read: projection.state === 'current' ? (projected?.read ?? false) : false,
    },
    policy_hash: canonicalHash(body),
  }
}

export type DelegationEffective = DelegationDoc['state'] | 'blocked' | 'escalation_required'

export function delegationStates(
  delegations: DelegationDoc[],
  agents: Map<string, AgentDoc>,
  federation: FederationContract,
  teams: Map<string, TeamDoc>,
  now: Date,
) {
  const fed = new Map<string, FederatedAgent>(federation.agents.map((a) => [a.agent_id, a]))
  const open = delegations.filter((d) => d.state === 'proposed' || d.state === 'accepted')
  const circular = circularDelegations(open)
  return [...delegations]
    .sort((a, b) => a.delegation_id.localeCompare(b.delegation_id))
    .map((d) => {
      const from = agents.get(d.from_agent_id)
      const to = agents.get(d.to_agent_id)
      const reasons: string[] = []
      let effective: DelegationEffective = d.state
      const terminal = d.state === 'rejected' || d.state === 'expired' || d.state === 'escalated'
      if (!terminal) {
        if (!from || !to) reasons.push('unknown_agent')
        else {
          if (!fed.get(from.agent_id)?.admitted || !fed.get(to.agent_id)?.admitted)
            reasons.push('agent_locked_out')
          const fromRoot = fed.get(from.agent_id)?.root_agent_id
          const toRoot = fed.get(to.agent_id)?.root_agent_id
          if (fromRoot && toRoot && fromRoot !== toRoot) reasons.push('cross_root')
          const policy = handoffPolicy(from, teams)
          if (policy.state === 'fail_closed') reasons.push(policy.fail_closed_reason!)
          const sameTeam = from.team_id !== null && from.team_id === to.team_id
          if ((d.scope === 'same_team') !== sameTeam) reasons.push('scope_mismatch')
          if (!sameTeam && policy.delegation_scope === 'same_team') reasons.push('cross_team_out_of_scope')
          if (!sameTeam && policy.cross_team_handoff === 'deny') reasons.push('cross_team_denied')
          if (d.depth > policy.max_depth) reasons.push('max_depth_exceeded')
          if (circular.has(d.delegation_id)) reasons.push('circular_handoff')
          if (reasons.length === 0 && !sameTeam && policy.cross_team_handoff === 'escalate_only') {
            effective = 'escalation_required'
          }
        }
        if (reasons.length > 0) effective = 'blocked'
        else if (d.expires_at && Date.parse(d.expires_at) <= now.getTime()) effective = 'expired'
      }
      return {
        delegation_id: d.delegation_id,
        from_agent_id: d.from_agent_id,
        to_agent_id: d.to_agent_id,
        scope: d.scope,
        depth: d.depth,
        declared_state: d.state,
        effective_state: effective,
        blocked_reasons: reasons,
        created_at: d.created_at,
        expires_at: d.expires_at,
      }
    })
}

/** Delegations on a cycle of open handoffs (A → B → … → A). */
function circularDelegations(open: DelegationDoc[]): Set<string> {
  const out = new Set<string>()
  const edges = new Map<string, DelegationDoc[]>()
  for (const d of open) edges.set(d.from_agent_id, [...(edges.get(d.from_agent_id) ?? []), d])
  for (const start of open) {
    // Is there a path from start.to back to start.from?
    const stack = [start.to_agent_id]
    const seen = new Set<string>()
    while (stack.length > 0) {
      const node = stack.pop()!
      if (node === start.from_agent_id) {
        out.add(start.delegation_id)
        break
      }
      if (seen.has(node)) continue
      seen.add(node)
      for (const e of edges.get(node) ?? []) stack.push(e.to_agent_id)
    }
  }
  return out
}

export function agentReadiness(
  agent: AgentDoc,
  fed: FederatedAgent | undefined,
  refs: { teams: Set<string>; profiles: Set<string>; voices: Set<string> },
) {
  const reasons: string[] = []
  if (agent.lifecycle_state !== 'active') reasons.push(`lifecycle_${agent.lifecycle_state}`)
  for (const m of fed?.lockout_reasons ?? []) reasons.push(m)
  if (!agent.team_id || !refs.teams.has(agent.team_id)) reasons.push('team_unresolved')
  if (!agent.tool_profile || !refs.profiles.has(agent.tool_profile)) reasons.push('tool_profile_unresolved')
  if (agent.voice_target && !refs.voices.has(agent.voice_target)) reasons.push('voice_target_unresolved')
  return { agent_id: agent.agent_id, agent_slug: agent.agent_slug, ready: reasons.length === 0, reasons }
}

export function voiceGovernance(target: VoiceTargetDoc, now: Date) {
  const g = target.governance
  const expires = g.consent.expires_at ? Date.parse(g.consent.expires_at) : null
  const consentState =
    g.consent.granted_at === null
      ? ('missing' as const)
      : expires !== null && expires <= now.getTime()
        ? ('expired' as const)
        : ('valid' as const)
  const usable = g.identity_lifecycle_state === 'active' && consentState === 'valid'
  return {
    target_id: target.target_id,
    identity_lifecycle_state: g.identity_lifecycle_state,
    consent_state: consentState,
    consent_granted_at: g.consent.granted_at,
    consent_expires_at: g.consent.expires_at,
    reconsent_required: consentState !== 'valid',
    reconsent_triggers: g.consent.reconsent_triggers,
    rerecord_triggers: g.rerecord_triggers,
    reclone_triggers: g.reclone_triggers,
    brand_voice_pack: g.brand_voice_pack,
    inheritance: g.inheritance,
    retention: g.retention,
    audit_history_refs: g.audit_history_refs,
    usable,
  }
}

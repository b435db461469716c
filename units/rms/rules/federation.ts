/**
 * The deterministic federation read contract. Consumers get explicit answers for ambiguous
 * parentage, multiple roots, degraded fallback and zombie lockout, so they never need a local
 * heuristic: where RMS cannot tell, it says so and the affected agents are locked out.
 */
import type { AgentDoc } from '../model/host.ts'

export const FEDERATION_CONTRACT_VERSION = 'rms.federation.v1'

export type ParentageStatus =
  | 'root'
  | 'attached'
  | 'orphaned'
  | 'ambiguous'
  | 'cyclic'
  | 'unrooted'
  | 'unresolved_ancestor'

export type FederationState = 'federated' | 'multi_root' | 'degraded' | 'fail_closed' | 'empty'

export type Marker =
  | 'no_root'
  | 'multiple_roots'
  | 'ambiguous_parentage'
  | 'cyclic_parentage'
  | 'orphaned_agent'
  | 'unrooted_agent'
  | 'zombie_lockout'
  | 'class_transition_in_progress'
  | 'class_transition_blocked'
  | 'degraded_fallback'

/** What each marker does, published with it so no consumer has to interpret it. */
export const MARKER_EFFECT: Record<Marker, string> = {
  no_root: 'federation fail-closed: no dispatch or delegation anywhere',
  multiple_roots: 'no primary root is chosen; cross-root delegation is refused',
  ambiguous_parentage: 'agent locked out: parent claims conflict, RMS does not pick one',
  cyclic_parentage: 'agent locked out: its parent chain loops',
  orphaned_agent: 'agent locked out: its parent is not in the catalog',
  unrooted_agent: 'agent locked out: its chain ends without a root',
  zombie_lockout: 'agent locked out: declared zombie or still active under a retired ancestor',
  class_transition_in_progress: 'agent locked out until its class transition completes',
  class_transition_blocked: 'agent locked out: its class transition failed',
  degraded_fallback: 'runtime host unreadable: catalog served from the desired state, dispatch refused',
}

export interface FederationInput {
  federation_id: string | null
  agents: AgentDoc[]
  /** Parent claims of the second source (the desired state); a different claim is ambiguity. */
  desiredParents: Map<string, string | null>
  /** Set when the catalog comes from the desired state because the host could not be read. */
  fallbackReason: string | null
}

export interface FederatedAgent {
  agent_id: string
  agent_slug: string
  agent_class: AgentDoc['agent_class']
  parent_agent_id: string | null
  parentage_status: ParentageStatus
  root_agent_id: string | null
  depth: number | null
  team_id: string | null
  domain_id: string | null
  lifecycle_state: AgentDoc['lifecycle_state']
  persistent: boolean
  admitted: boolean
  lockout_reasons: Marker[]
}

export function federationContract(input: FederationInput) {
  const byId = new Map(input.agents.map((a) => [a.agent_id, a]))
  const slugCount = new Map<string, number>()
  for (const a of input.agents) slugCount.set(a.agent_slug, (slugCount.get(a.agent_slug) ?? 0) + 1)

  const own = new Map<string, ParentageStatus>()
  for (const a of input.agents) {
    const desired = input.desiredParents.get(a.agent_id)
    const conflicting = desired !== undefined && desired !== a.parent_agent_id
    if (conflicting || (slugCount.get(a.agent_slug) ?? 0) > 1) own.set(a.agent_id, 'ambiguous')
    else if (a.agent_class === 'root') own.set(a.agent_id, a.parent_agent_id === null ? 'root' : 'ambiguous')
    else if (a.parent_agent_id === null) own.set(a.agent_id, 'unrooted')
    else if (!byId.has(a.parent_agent_id)) own.set(a.agent_id, 'orphaned')
    else own.set(a.agent_id, 'attached')
  }

  // Walk each chain upwards: a loop makes every member cyclic; a broken ancestor taints descendants.
  const resolved = new Map<
    string,
    { status: ParentageStatus; root: string | null; depth: number | null; retiredAbove: boolean }
  >()
  for (const a of input.agents) {
    const chain: AgentDoc[] = []
    const seen = new Set<string>()
    let cur: AgentDoc | undefined = a
    let cyclic = false
    while (cur) {
      if (seen.has(cur.agent_id)) {
        cyclic = true
        break
      }
      seen.add(cur.agent_id)
      chain.push(cur)
      if (own.get(cur.agent_id) !== 'attached') break
      cur = cur.parent_agent_id ? byId.get(cur.parent_agent_id) : undefined
    }
    const status0 = own.get(a.agent_id)!
    const retiredAbove = chain.slice(1).some((c) => c.lifecycle_state === 'retired')
    if (cyclic) {
      resolved.set(a.agent_id, { status: 'cyclic', root: null, depth: null, retiredAbove })
      continue
    }
    const top = chain[chain.length - 1]!
    const topStatus = own.get(top.agent_id)!
    if (status0 !== 'attached') {
      resolved.set(a.agent_id, {
        status: status0,
        root: status0 === 'root' ? a.agent_id : null,
        depth: status0 === 'root' ? 0 : null,
        retiredAbove,
      })
    } else if (topStatus === 'root') {
      resolved.set(a.agent_id, {
        status: 'attached',
        root: top.agent_id,
        depth: chain.length - 1,
        retiredAbove,
      })
    } else {
      resolved.set(a.agent_id, {
        status: topStatus === 'attached' ? 'cyclic' : 'unresolved_ancestor',
        root: null,
        depth: null,
        retiredAbove,
      })
    }
  }

  const markerAgents = new Map<Marker, Set<string>>()
  const mark = (m: Marker, id?: string) => {
    const set = markerAgents.get(m) ?? new Set<string>()
    if (id) set.add(id)
    markerAgents.set(m, set)
  }
  const STATUS_MARKER: Partial<Record<ParentageStatus, Marker>> = {
    ambiguous: 'ambiguous_parentage',
    cyclic: 'cyclic_parentage',
    orphaned: 'orphaned_agent',
    unrooted: 'unrooted_agent',
    unresolved_ancestor: 'unrooted_agent',
  }

  const agents: FederatedAgent[] = [...input.agents]
    .sort((x, y) => x.agent_id.localeCompare(y.agent_id))
    .map((a) => {
      const r = resolved.get(a.agent_id)!
      const reasons: Marker[] = []
      const parentMarker = STATUS_MARKER[r.status]
      if (parentMarker) reasons.push(parentMarker)
      const zombie = a.lifecycle_state === 'zombie' || (a.lifecycle_state !== 'retired' && r.retiredAbove)
      if (zombie) reasons.push('zombie_lockout')
      const ct = a.class_transition
      if (ct && (ct.state === 'requested' || ct.state === 'in_progress'))
        reasons.push('class_transition_in_progress')
      if (ct && ct.state === 'failed') reasons.push('class_transition_blocked')
      if (input.fallbackReason) reasons.push('degraded_fallback')
      for (const m of reasons) mark(m, a.agent_id)
      return {
        agent_id: a.agent_id,
        agent_slug: a.agent_slug,
        agent_class: a.agent_class,
        parent_agent_id: a.parent_agent_id,
        parentage_status: r.status,
        root_agent_id: r.root,
        depth: r.depth,
        team_id: a.team_id,
        domain_id: a.domain_id,
        lifecycle_state: a.lifecycle_state,
        persistent: a.persistent,
        admitted: reasons.length === 0 && a.lifecycle_state !== 'retired',
        lockout_reasons: reasons,
      }
    })

  const root_agent_ids = agents.filter((a) => a.parentage_status === 'root').map((a) => a.agent_id)
  if (agents.length > 0 && root_agent_ids.length === 0) mark('no_root')
  if (root_agent_ids.length > 1) mark('multiple_roots')
  if (input.fallbackReason) mark('degraded_fallback')

  const broken = agents.some((a) => a.lockout_reasons.length > 0)
  const federation_state: FederationState =
    agents.length === 0
      ? 'empty'
      : root_agent_ids.length === 0
        ? 'fail_closed'
        : input.fallbackReason
          ? 'degraded'
          : root_agent_ids.length > 1
            ? 'multi_root'
            : broken
              ? 'degraded'
              : 'federated'

  const transitions = input.agents
    .filter((a) => a.class_transition)
    .map((a) => ({ agent_id: a.agent_id, ...a.class_transition! }))
    .sort((x, y) => x.agent_id.localeCompare(y.agent_id))
  const class_transition_state = transitions.some((t) => t.state === 'failed')
    ? ('blocked' as const)
    : transitions.some((t) => t.state === 'requested' || t.state === 'in_progress')
      ? ('transitioning' as const)
      : ('stable' as const)

  const fail_closed_markers = [...markerAgents.entries()]
    .map(([marker, ids]) => ({ marker, agent_ids: [...ids].sort(), effect: MARKER_EFFECT[marker] }))
    .sort((x, y) => x.marker.localeCompare(y.marker))

  return {
    contract_version: FEDERATION_CONTRACT_VERSION,
    federation_id: input.federation_id,
    source: input.fallbackReason ? ('desired_state_fallback' as const) : ('runtime_host' as const),
    federation_state,
    fail_closed: federation_state === 'fail_closed' || federation_state === 'empty',
    root_agent_ids,
    primary_root_agent_id: root_agent_ids.length === 1 ? root_agent_ids[0]! : null,
    class_transition_state,
    class_transitions: transitions,
    fail_closed_markers,
    agents,
  }
}

export type FederationContract = ReturnType<typeof federationContract>

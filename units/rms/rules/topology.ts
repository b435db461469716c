/** Topology: agents as nodes, parent links and delegations as edges, agents grouped by team. */
import type { AgentDoc, DelegationDoc } from '../model/host.ts'

export interface Edge {
  kind: 'parent' | 'delegation'
  from: string
  to: string
  id: string
}

export function topologyOf(agents: AgentDoc[], delegations: DelegationDoc[]) {
  const nodes = [...agents]
    .sort((a, b) => a.agent_id.localeCompare(b.agent_id))
    .map((a) => ({
      agent_id: a.agent_id,
      agent_slug: a.agent_slug,
      agent_class: a.agent_class,
      team_id: a.team_id,
      lifecycle_state: a.lifecycle_state,
    }))
  const edges: Edge[] = [
    ...agents
      .filter((a) => a.parent_agent_id !== null)
      .map((a) => ({
        kind: 'parent' as const,
        from: a.parent_agent_id!,
        to: a.agent_id,
        id: `parent:${a.agent_id}`,
      })),
    ...delegations.map((d) => ({
      kind: 'delegation' as const,
      from: d.from_agent_id,
      to: d.to_agent_id,
      id: `delegation:${d.delegation_id}`,
    })),
  ].sort((a, b) => a.id.localeCompare(b.id))
  const teams: Record<string, string[]> = {}
  for (const a of nodes) {
    const key = a.team_id ?? '(unassigned)'
    teams[key] = [...(teams[key] ?? []), a.agent_id]
  }
  return { nodes, edges, teams }
}

const NODE_FIELDS = ['agent_slug', 'agent_class', 'team_id', 'lifecycle_state'] as const

/** Desired topology against actual: what the host has that the desired state does not, and back. */
export function topologyDiff(desired: ReturnType<typeof topologyOf>, actual: ReturnType<typeof topologyOf>) {
  const dn = new Map(desired.nodes.map((n) => [n.agent_id, n]))
  const an = new Map(actual.nodes.map((n) => [n.agent_id, n]))
  const de = new Map(desired.edges.map((e) => [`${e.id}:${e.from}>${e.to}`, e]))
  const ae = new Map(actual.edges.map((e) => [`${e.id}:${e.from}>${e.to}`, e]))
  const nodes_added = [...an.keys()].filter((k) => !dn.has(k)).sort()
  const nodes_removed = [...dn.keys()].filter((k) => !an.has(k)).sort()
  const edges_added = [...ae].filter(([k]) => !de.has(k)).map(([, e]) => e)
  const edges_removed = [...de].filter(([k]) => !ae.has(k)).map(([, e]) => e)
  const nodes_changed = [...an.values()]
    .filter((n) => dn.has(n.agent_id))
    .map((n) => ({
      agent_id: n.agent_id,
      fields: NODE_FIELDS.filter((f) => dn.get(n.agent_id)![f] !== n[f]) as string[],
    }))
    .filter((c) => c.fields.length > 0)
  const in_sync =
    nodes_added.length +
      nodes_removed.length +
      edges_added.length +
      edges_removed.length +
      nodes_changed.length ===
    0
  return { in_sync, nodes_added, nodes_removed, edges_added, edges_removed, nodes_changed }
}

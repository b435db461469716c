/** The catalog baseline: which node types and type versions the workflows use. Pure. */
import type { NodeTypesCatalog } from '../catalog/index.ts'
import type { N8nWorkflow } from '../service/automation.ts'

export interface BaselineType {
  node_type: string
  nodes: number
  workflows: number
  type_versions: { type_version: number | null; nodes: number; workflows: number }[]
  known: boolean
  deprecated: boolean
  /** The newest type version the catalog's n8n release offers; null when unknown. */
  latest_type_version: number | null
}

export interface Baseline {
  catalog_n8n_version: string
  workflows: number
  nodes: number
  node_types: BaselineType[]
}

export function catalogBaseline(workflows: readonly N8nWorkflow[], catalog: NodeTypesCatalog): Baseline {
  const types = new Map<string, Map<number | null, { nodes: number; workflows: Set<string> }>>()
  let nodes = 0
  for (const w of workflows) {
    for (const n of w.nodes) {
      nodes++
      const versions = types.get(n.type) ?? new Map()
      types.set(n.type, versions)
      const v = versions.get(n.typeVersion ?? null) ?? { nodes: 0, workflows: new Set<string>() }
      versions.set(n.typeVersion ?? null, v)
      v.nodes++
      v.workflows.add(w.id)
    }
  }
  const node_types = [...types.entries()]
    .map(([node_type, versions]): BaselineType => {
      const info = catalog.types[node_type]
      const rows = [...versions.entries()]
        .map(([type_version, v]) => ({ type_version, nodes: v.nodes, workflows: v.workflows.size }))
        .sort((a, b) => (a.type_version ?? -1) - (b.type_version ?? -1))
      return {
        node_type,
        nodes: rows.reduce((s, r) => s + r.nodes, 0),
        workflows: new Set([...versions.values()].flatMap((v) => [...v.workflows])).size,
        type_versions: rows,
        known: info !== undefined,
        deprecated: info?.deprecated ?? false,
        latest_type_version: info ? (info.versions.at(-1) ?? null) : null,
      }
    })
    .sort((a, b) => b.nodes - a.nodes || a.node_type.localeCompare(b.node_type))
  return { catalog_n8n_version: catalog.n8n_version, workflows: workflows.length, nodes, node_types }
}

/**
 * Desired state (SQLite) against the actual host (files): what differs, how much it matters,
 * and which file operations would make the host match.
 */

import type { ResourceKind } from '../model/host.ts'
import type { HostSnapshot } from '../service/host.ts'
import { resourceKey } from './resources.ts'

export type Severity = 'low' | 'medium' | 'high' | 'critical'
export const SEVERITIES: Severity[] = ['low', 'medium', 'high', 'critical']
const RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 }

export type DriftKind = 'missing_on_host' | 'unmanaged_on_host' | 'changed' | 'invalid_on_host'

export interface DesiredResource {
  kind: ResourceKind
  id: string
  doc: Record<string, unknown>
  hash: string
}

export interface DriftEntry {
  kind: ResourceKind
  resource_id: string
  drift: DriftKind
  severity: Severity
  fields: string[]
  desired_hash: string | null
  actual_hash: string | null
  reason: string | null
}

/** Fields whose change alters authority, parentage or safety: drift in them is high severity. */
const GUARDED_FIELDS: Partial<Record<ResourceKind, string[]>> = {
  agent: [
    'agent_class',
    'parent_agent_id',
    'lifecycle_state',
    'persistent',
    'tool_profile',
    'tool_policy',
    'team_id',
  ],
  tool_profile: [
    'tools',
    'sandbox_approval',
    'bounded_change_scope',
    'escalation_mode',
    'stale_projection_action',
  ],
  team: ['delegation_scope', 'max_depth', 'cross_team_handoff', 'circular_handoff', 'projection_posture'],
  voice_target: ['governance'],
  delegation: ['from_agent_id', 'to_agent_id', 'scope', 'depth', 'state'],
  host: ['federation_id', 'runtime_mode', 'persistence_mode'],
}

export const maxSeverity = (items: { severity: Severity }[]): Severity | 'none' =>
  items.reduce<Severity | 'none'>(
    (m, i) => (m === 'none' || RANK[i.severity] > RANK[m] ? i.severity : m),
    'none',
  )

function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort()
}

function missingSeverity(r: DesiredResource): Severity {
  if (r.kind === 'host') return 'critical'
  if (r.kind === 'agent')
    return r.doc.agent_class === 'root' || r.doc.persistent === true ? 'critical' : 'high'
  if (r.kind === 'tool_profile' || r.kind === 'team') return 'high'
  return 'medium'
}

export function diffState(desired: Map<string, DesiredResource>, actual: HostSnapshot): DriftEntry[] {
  const out: DriftEntry[] = []
  const invalid = new Map(actual.invalid.map((i) => [resourceKey(i.kind, i.id), i]))
  for (const [key, want] of desired) {
    const have = actual.resources.get(key)
    const broken = invalid.get(key)
    if (broken) {
      out.push({
        kind: want.kind,
        resource_id: want.id,
        drift: 'invalid_on_host',
        severity: want.kind === 'host' ? 'critical' : 'high',
        fields: [],
        desired_hash: want.hash,
        actual_hash: null,
        reason: broken.reason,
      })
    } else if (!have) {
      out.push({
        kind: want.kind,
        resource_id: want.id,
        drift: 'missing_on_host',
        severity: missingSeverity(want),
        fields: [],
        desired_hash: want.hash,
        actual_hash: null,
        reason: null,
      })
    } else if (have.hash !== want.hash) {
      const fields = changedFields(want.doc, have.doc)
      const guarded = GUARDED_FIELDS[want.kind] ?? []
      const severity: Severity = fields.some((f) => guarded.includes(f))
        ? want.kind === 'host'
          ? 'critical'
          : 'high'
        : 'low'
      out.push({
        kind: want.kind,
        resource_id: want.id,
        drift: 'changed',
        severity,
        fields,
        desired_hash: want.hash,
        actual_hash: have.hash,
        reason: null,
      })
    }
  }
  for (const [key, have] of actual.resources) {
    if (desired.has(key)) continue
    out.push({
      kind: have.kind,
      resource_id: have.id,
      drift: 'unmanaged_on_host',
      severity: have.kind === 'agent' ? 'high' : 'medium',
      fields: [],
      desired_hash: null,
      actual_hash: have.hash,
      reason: null,
    })
  }
  for (const [key, broken] of invalid) {
    if (desired.has(key)) continue
    out.push({
      kind: broken.kind,
      resource_id: broken.id,
      drift: 'invalid_on_host',
      severity: 'medium',
      fields: [],
      desired_hash: null,
      actual_hash: null,
      reason: broken.reason,
    })
  }
  return out.sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] ||
      `${a.kind}/${a.resource_id}`.localeCompare(`${b.kind}/${b.resource_id}`),
  )
}

export function driftSummary(entries: DriftEntry[], hostReadable: boolean) {
  const counts = { low: 0, medium: 0, high: 0, critical: 0 }
  for (const e of entries) counts[e.severity]++
  return {
    state: !hostReadable
      ? ('unknown' as const)
      : entries.length === 0
        ? ('in_sync' as const)
        : ('drifted' as const),
    severity: !hostReadable ? ('critical' as const) : maxSeverity(entries),
    total: entries.length,
    counts,
  }
}

export type PatchOperation = {
  op: 'create' | 'update' | 'delete'
  kind: ResourceKind
  resource_id: string
  file: string
  reason: DriftKind
  severity: Severity
  document: Record<string, unknown> | null
}

/** File operations that make the host match the desired state; unmanaged files only when pruning. */
export function planOperations(
  entries: DriftEntry[],
  desired: Map<string, DesiredResource>,
  fileOf: (kind: ResourceKind, id: string) => string,
  prune: boolean,
): { operations: PatchOperation[]; skipped: DriftEntry[] } {
  const operations: PatchOperation[] = []
  const skipped: DriftEntry[] = []
  for (const e of entries) {
    const want = desired.get(`${e.kind}/${e.resource_id}`)
    const base = {
      kind: e.kind,
      resource_id: e.resource_id,
      file: fileOf(e.kind, e.resource_id),
      reason: e.drift,
      severity: e.severity,
    }
    if (want) {
      operations.push({
        ...base,
        op: e.drift === 'missing_on_host' ? 'create' : 'update',
        document: want.doc,
      })
    } else if (prune && e.kind !== 'host') {
      operations.push({ ...base, op: 'delete', document: null })
    } else {
      skipped.push(e)
    }
  }
  return { operations, skipped }
}

/**
 * The runtime-host service: the host directory (actual) against the desired state (SQLite), the
 * patch plan → apply path that is the only way RMS changes the host, and the catalog views the
 * federation, policy and voice routes read.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { AppError, notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { canonicalHash } from '../../../common/hash.ts'
import { newId, nowIso } from '../../../common/time.ts'
import { boundedSnapshot } from '../../../db/snapshot.ts'
import type { Storage } from '../../../db/storage.ts'
import { EXAMPLE_HOST_FILES } from '../example-host.ts'
import {
  type AgentDoc,
  type DelegationDoc,
  type DomainDoc,
  HOST_RESOURCE_ID,
  type HostDoc,
  KINDS,
  type ResourceKind,
  type TeamDoc,
  type ToolProfileDoc,
  type VoiceTargetDoc,
} from '../model/host.ts'
import {
  type DesiredResource,
  diffState,
  driftSummary,
  type PatchOperation,
  planOperations,
} from '../rules/drift.ts'
import { type FederationContract, federationContract } from '../rules/federation.ts'
import { docHash, resourceFile, resourceKey } from '../rules/resources.ts'
import * as store from '../store.ts'
import { ensureWorkspaces, fileText, type HostSnapshot, ofKind, scanHost, writeHostFiles } from './host.ts'

export type Change =
  | { op: 'upsert'; kind: ResourceKind; resource_id: string; document: Record<string, unknown> }
  | { op: 'remove'; kind: ResourceKind; resource_id: string }

export interface Actor {
  subject: string
  authority_source: string
}

export interface RuntimeOptions {
  storage: Storage
  hostDir: string
  sinkConfigured: boolean
  /** Reads within this window share one scan of the host directory. */
  scanCacheMs: number
}

/** Seed an empty or missing host directory from the example the repository ships (embedded). */
export function seedHostDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true })
  if (readdirSync(dir).length > 0) return false
  for (const [path, doc] of Object.entries(EXAMPLE_HOST_FILES)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), fileText(doc))
  }
  const agents = Object.entries(EXAMPLE_HOST_FILES)
    .filter(([path]) => path.startsWith('agents/'))
    .map(([, doc]) => doc as AgentDoc)
  ensureWorkspaces(dir, agents)
  return true
}

/** Desired-state hash: a plan is bound to the desired state it was computed from. */
const desiredHash = (desired: Map<string, DesiredResource>) =>
  canonicalHash(
    [...desired.entries()].map(([k, r]) => [k, r.hash]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
  )

export function applyChanges(
  desired: Map<string, DesiredResource>,
  changes: Change[],
): Map<string, DesiredResource> {
  const out = new Map(desired)
  for (const c of changes) {
    const key = resourceKey(c.kind, c.resource_id)
    if (c.op === 'remove') out.delete(key)
    else out.set(key, { kind: c.kind, id: c.resource_id, doc: c.document, hash: docHash(c.document) })
  }
  return out
}

export function validateChanges(changes: Change[]): string[] {
  const problems: string[] = []
  for (const [i, c] of changes.entries()) {
    const spec = KINDS[c.kind]
    if (c.kind === 'host' && c.resource_id !== HOST_RESOURCE_ID)
      problems.push(`changes/${i}: the host resource id is "host"`)
    if (c.op === 'remove') {
      if (c.kind === 'host') problems.push(`changes/${i}: host.json cannot be removed`)
      continue
    }
    if (!Value.Check(spec.schema, c.document)) {
      const first = Value.Errors(spec.schema, c.document).First()
      problems.push(`changes/${i}/document${first?.path ?? ''}: ${first?.message ?? 'invalid'}`)
    } else if (c.kind !== 'host' && (c.document as Record<string, unknown>)[spec.idField] !== c.resource_id) {
      problems.push(`changes/${i}: document.${spec.idField} must equal resource_id`)
    }
  }
  const keys = changes.map((c) => resourceKey(c.kind, c.resource_id))
  if (new Set(keys).size !== keys.length) problems.push('changes: a resource appears more than once')
  return problems
}

/** Broken references in a desired state (an agent naming a tool profile that is not there, …). */
export function referenceProblems(desired: Map<string, DesiredResource>): string[] {
  const ids = (kind: ResourceKind) =>
    new Set([...desired.values()].filter((r) => r.kind === kind).map((r) => r.id))
  const agents = ids('agent')
  const teams = ids('team')
  const profiles = ids('tool_profile')
  const voices = ids('voice_target')
  const domains = ids('domain')
  const out: string[] = []
  for (const r of desired.values()) {
    const d = r.doc
    if (r.kind === 'agent') {
      const a = d as AgentDoc
      if (a.parent_agent_id && !agents.has(a.parent_agent_id))
        out.push(`agent/${r.id}: parent ${a.parent_agent_id} is not a desired agent`)
      if (a.tool_profile && !profiles.has(a.tool_profile))
        out.push(`agent/${r.id}: tool profile ${a.tool_profile} is not desired`)
      if (a.voice_target && !voices.has(a.voice_target))
        out.push(`agent/${r.id}: voice target ${a.voice_target} is not desired`)
      if (a.team_id && !teams.has(a.team_id)) out.push(`agent/${r.id}: team ${a.team_id} is not desired`)
      if (a.domain_id && !domains.has(a.domain_id))
        out.push(`agent/${r.id}: domain ${a.domain_id} is not desired`)
    } else if (r.kind === 'delegation') {
      for (const f of ['from_agent_id', 'to_agent_id'] as const) {
        const v = d[f] as string
        if (!agents.has(v)) out.push(`delegation/${r.id}: ${f} ${v} is not a desired agent`)
      }
    } else if (r.kind === 'host') {
      const v = (d as HostDoc).default_voice_target
      if (v && !voices.has(v)) out.push(`host: default voice target ${v} is not desired`)
    } else if (r.kind === 'domain') {
      const v = (d as DomainDoc).team_id
      if (v && !teams.has(v)) out.push(`domain/${r.id}: team ${v} is not desired`)
    }
  }
  return out.sort()
}

function operationView(o: PatchOperation) {
  return {
    op: o.op,
    kind: o.kind,
    resource_id: o.resource_id,
    file: o.file,
    reason: o.reason,
    severity: o.severity,
    document_hash: o.document ? docHash(o.document) : null,
  }
}

export type RuntimeService = ReturnType<typeof createRuntime>

/** What the read routes derive their answers from (treat as immutable: it is shared between requests). */
export interface Catalog {
  snapshot: HostSnapshot
  desired: Map<string, DesiredResource>
  fallbackReason: string | null
  host: HostDoc | null
  agents: AgentDoc[]
  teams: TeamDoc[]
  profiles: ToolProfileDoc[]
  voices: VoiceTargetDoc[]
  domains: DomainDoc[]
  delegations: DelegationDoc[]
}

export function createRuntime(opts: RuntimeOptions) {
  const { storage, hostDir } = opts
  let cached: { at: number; snapshot: HostSnapshot } | undefined

  function snapshot(fresh = false): HostSnapshot {
    const now = Date.now()
    if (!fresh && cached && now - cached.at < opts.scanCacheMs) return cached.snapshot
    const s = scanHost(hostDir)
    cached = { at: now, snapshot: s }
    return s
  }
  const invalidate = () => {
    cached = undefined
    forgetDesired()
  }

  /**
   * First start on an empty database: the host as found becomes the desired state. The emptiness
   * check runs inside the write transaction, so of two replicas starting together one adopts. A
   * database that already holds a desired state (every later start) is answered by one read.
   */
  async function adoptIfEmpty(): Promise<number> {
    if ((await store.desiredCount(storage.db)) > 0) return 0
    const s = snapshot(true)
    if (!s.readable) return 0
    const adopted = await storage.transaction(async (tx) => {
      if ((await store.desiredCount(tx)) > 0) return 0
      await store.insertDesired(tx, [...s.resources.values()], 'rms:adoption')
      await store.audit(
        tx,
        {
          kind: 'desired.adopted',
          actor: 'rms',
          authoritySource: 'system',
          outcome: 'recorded',
          details: { resources: s.resources.size, host_hash: s.host_hash },
        },
        opts.sinkConfigured,
      )
      return s.resources.size
    })
    forgetDesired()
    return adopted
  }

  // The desired state for reads, reloaded from the database at most once per scan window
  // (db/snapshot.ts). This process's own writes drop it once they have committed; another RMS
  // process's writes (same database) show within the scan window, like host changes do.
  let desiredWrites = 0
  const desired = boundedSnapshot(() => store.loadDesired(storage.db), {
    maxAgeMs: opts.scanCacheMs,
    version: () => desiredWrites,
  })
  const forgetDesired = () => {
    desiredWrites++
  }
  const desiredState = () => desired.current() ?? desired.get()

  let catalogMemo:
    | { snapshot: HostSnapshot; desired: Map<string, DesiredResource>; value: Catalog }
    | undefined
  /** The agent catalog: from the host, or from the desired state when the host cannot be read. */
  async function catalog(): Promise<Catalog> {
    const desired = await desiredState()
    const s = snapshot()
    if (catalogMemo?.snapshot === s && catalogMemo.desired === desired) return catalogMemo.value
    const source = s.readable
      ? s
      : { resources: new Map([...desired].map(([k, r]) => [k, { ...r, file: '' }])) }
    const host = ofKind<HostDoc>(source, 'host')[0] ?? null
    const value = {
      snapshot: s,
      desired,
      fallbackReason: s.readable ? null : `runtime host unreadable: ${s.error}`,
      host,
      agents: ofKind<AgentDoc>(source, 'agent'),
      teams: ofKind<TeamDoc>(source, 'team'),
      profiles: ofKind<ToolProfileDoc>(source, 'tool_profile'),
      voices: ofKind<VoiceTargetDoc>(source, 'voice_target'),
      domains: ofKind<DomainDoc>(source, 'domain'),
      delegations: ofKind<DelegationDoc>(source, 'delegation'),
    }
    catalogMemo = { snapshot: s, desired, value }
    return value
  }

  let federationMemo: { catalog: Catalog; value: FederationContract } | undefined
  function federation(c: Catalog): FederationContract {
    if (federationMemo?.catalog === c) return federationMemo.value
    const desiredParents = new Map<string, string | null>()
    for (const r of c.desired.values()) {
      if (r.kind === 'agent') desiredParents.set(r.id, (r.doc as AgentDoc).parent_agent_id)
    }
    const value = federationContract({
      federation_id: c.host?.federation_id ?? null,
      agents: c.agents,
      desiredParents: c.fallbackReason ? new Map() : desiredParents,
      fallbackReason: c.fallbackReason,
    })
    federationMemo = { catalog: c, value }
    return value
  }

  async function drift() {
    const desired = await desiredState()
    const s = snapshot()
    const entries = s.readable ? diffState(desired, s) : []
    return { snapshot: s, desired, entries, summary: driftSummary(entries, s.readable) }
  }

  function requireReadable(s: HostSnapshot) {
    if (!s.readable) {
      throw unavailable('runtime_host_unavailable', 'The runtime host directory cannot be read.', {
        error: s.error,
      })
    }
  }

  async function plan(changes: Change[], prune: boolean, actor: Actor) {
    const problems = validateChanges(changes)
    if (problems.length > 0) throw unprocessable('invalid_changes', 'The changes do not validate.', problems)
    const desired = await store.loadDesired(storage.db)
    const s = snapshot(true)
    requireReadable(s)
    const effective = applyChanges(desired, changes)
    const before = new Set(referenceProblems(desired))
    const introduced = referenceProblems(effective).filter((p) => !before.has(p))
    if (introduced.length > 0) {
      throw unprocessable(
        'invalid_desired_state',
        'The changes would leave broken references in the desired state.',
        introduced,
      )
    }
    const entries = diffState(effective, s)
    const { operations, skipped } = planOperations(entries, effective, resourceFile, prune)
    // The plan is bound to the host and desired state it was computed from: apply re-checks both
    // inside its own transaction, so a plan made from a stale read is refused there.
    const baseHash = canonicalHash({ host: s.host_hash, desired: desiredHash(desired) })
    const views = operations.map(operationView)
    const planHash = canonicalHash({ base: baseHash, changes, operations: views })
    const planId = newId()
    const createdAt = nowIso()
    await storage.transaction(async (tx) => {
      await store.insertPlan(tx, {
        planId,
        createdAt,
        createdBy: actor.subject,
        baseHostHash: baseHash,
        planHash,
        changes,
        operations: views,
        pruneUnmanaged: prune,
        status: 'planned',
      })
      await store.audit(
        tx,
        {
          kind: 'rollout.planned',
          actor: actor.subject,
          authoritySource: actor.authority_source,
          outcome: 'recorded',
          details: {
            plan_id: planId,
            plan_hash: planHash,
            operations: views.length,
            changes: changes.length,
          },
        },
        opts.sinkConfigured,
      )
    })
    return {
      plan_id: planId,
      plan_hash: planHash,
      status: 'planned' as const,
      created_at: createdAt,
      created_by: actor.subject,
      base_host_hash: s.host_hash,
      prune_unmanaged: prune,
      changes: changes.length,
      operations: views,
      skipped: skipped.map((e) => ({
        kind: e.kind,
        resource_id: e.resource_id,
        drift: e.drift,
        severity: e.severity,
      })),
      noop: views.length === 0 && changes.length === 0,
    }
  }

  /**
   * Apply a plan: one write transaction holds the whole check (plan still planned, host and desired
   * state unchanged since the plan), the host write and the desired-state update, so of two
   * concurrent applies (this process or another on the same database) exactly one goes through;
   * the other finds the plan applied. A failed host write is recorded (rollout failed, plan
   * failed) in that transaction and then refused.
   */
  async function apply(planId: string, planHash: string | undefined, actor: Actor) {
    const outcome = await storage.transaction(async (tx) => {
      const row = await store.findPlan(tx, planId)
      if (!row) throw notFound('plan_not_found', 'No patch plan has this id.')
      if (row.status !== 'planned') {
        throw new AppError(409, 'plan_not_applicable', `The plan is already ${row.status}.`, {
          rollout_id: row.rolloutId,
        })
      }
      if (planHash !== undefined && planHash !== row.planHash) {
        throw new AppError(409, 'plan_hash_mismatch', 'The plan hash does not match the stored plan.')
      }
      const desired = await store.loadDesired(tx)
      const s = snapshot(true)
      requireReadable(s)
      const baseNow = canonicalHash({ host: s.host_hash, desired: desiredHash(desired) })
      if (baseNow !== row.baseHostHash) {
        throw new AppError(
          409,
          'plan_stale',
          'The runtime host or the desired state changed since this plan was made; plan again.',
        )
      }
      const changes = row.changes as Change[]
      const effective = applyChanges(desired, changes)
      const { operations } = planOperations(
        diffState(effective, s),
        effective,
        resourceFile,
        row.pruneUnmanaged,
      )
      const startedAt = nowIso()
      const rolloutId = newId()
      const views = operations.map(operationView)
      const rollout = {
        rolloutId,
        planId,
        startedAt,
        actor: actor.subject,
        operations: views,
        hostHashBefore: s.host_hash,
      }
      try {
        writeHostFiles(
          hostDir,
          operations.map((o) => ({ kind: o.kind, resource_id: o.resource_id, document: o.document })),
        )
        ensureWorkspaces(
          hostDir,
          [...effective.values()].filter((r) => r.kind === 'agent').map((r) => r.doc as AgentDoc),
        )
      } catch (err) {
        cached = undefined
        const message = (err as Error).message
        await store.insertRollout(tx, { ...rollout, finishedAt: nowIso(), status: 'failed', error: message })
        await store.updatePlanStatus(tx, planId, 'failed', rolloutId)
        await store.audit(
          tx,
          {
            kind: 'rollout.failed',
            actor: actor.subject,
            authoritySource: actor.authority_source,
            outcome: 'failed',
            details: { plan_id: planId, rollout_id: rolloutId, error: message },
          },
          opts.sinkConfigured,
        )
        return { failed: true as const, rolloutId }
      }
      cached = undefined
      const after = snapshot(true)
      for (const c of changes) {
        if (c.op === 'remove') await store.removeDesired(tx, c.kind, c.resource_id)
        else await store.upsertDesired(tx, c.kind, c.resource_id, c.document, actor.subject)
      }
      await store.insertRollout(tx, {
        ...rollout,
        finishedAt: nowIso(),
        status: 'applied',
        hostHashAfter: after.host_hash,
      })
      await store.updatePlanStatus(tx, planId, 'applied', rolloutId)
      await store.audit(
        tx,
        {
          kind: 'rollout.applied',
          actor: actor.subject,
          authoritySource: actor.authority_source,
          outcome: 'applied',
          details: {
            plan_id: planId,
            rollout_id: rolloutId,
            operations: views.map((v) => `${v.op} ${v.file}`),
            host_hash_before: s.host_hash,
            host_hash_after: after.host_hash,
          },
        },
        opts.sinkConfigured,
      )
      return { failed: false as const, rollout: (await store.findRollout(tx, rolloutId))! }
    })
    invalidate()
    if (outcome.failed) {
      throw unavailable(
        'runtime_host_write_failed',
        'Writing the runtime host failed; no file was replaced.',
        { rollout_id: outcome.rolloutId },
      )
    }
    return { rollout: rolloutView(outcome.rollout), drift: (await drift()).summary }
  }

  /** The changes a domain profile would make to the desired state. */
  async function setupChanges(domainId: string, profileId: string) {
    const c = await catalog()
    const domain = c.domains.find((d) => d.domain_id === domainId)
    if (!domain) throw notFound('domain_not_found', 'No domain has this id.')
    const profile = domain.profiles.find((p) => p.profile_id === profileId)
    if (!profile) throw notFound('profile_not_found', 'The domain has no profile with this id.')
    const changes: Change[] = []
    const agents: { agent_id: string; action: 'create' | 'update' | 'unchanged' }[] = []
    for (const tpl of profile.agents) {
      const doc: AgentDoc = {
        ...tpl,
        team_id: domain.team_id,
        domain_id: domain.domain_id,
        lifecycle_state: 'active',
      }
      const existing = c.desired.get(resourceKey('agent', tpl.agent_id))
      const action = !existing ? 'create' : existing.hash === docHash(doc) ? 'unchanged' : 'update'
      agents.push({ agent_id: tpl.agent_id, action })
      if (action !== 'unchanged')
        changes.push({ op: 'upsert', kind: 'agent', resource_id: tpl.agent_id, document: doc })
    }
    return { domain, profile, changes, agents }
  }

  return {
    hostDir,
    snapshot,
    invalidate,
    adoptIfEmpty,
    catalog,
    federation,
    drift,
    plan,
    apply,
    setupChanges,
    referenceProblems: async () => referenceProblems(await store.loadDesired(storage.db)),
  }
}

export function rolloutView(r: store.RolloutRow) {
  return {
    rollout_id: r.rolloutId,
    plan_id: r.planId,
    status: r.status,
    actor: r.actor,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    operations: r.operations as ReturnType<typeof operationView>[],
    host_hash_before: r.hostHashBefore,
    host_hash_after: r.hostHashAfter,
    error: r.error,
  }
}

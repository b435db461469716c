import { Counter, Gauge, type Registry } from '../../common/metrics.ts'
import { SERVICE_MODES } from './rules/modes.ts'
import { PROPOSAL_STATES, RUN_STATES } from './rules/states.ts'
import type { AlsCounters } from './service/deps.ts'
import type { StatusSnapshot } from './service/status.ts'

export interface AlsMetrics {
  counters: AlsCounters
  /** Set the gauges from one status snapshot, right before a scrape. */
  observe(snapshot: StatusSnapshot): void
  /** Add or remove `svc_metrics_degraded` so it is present only while degraded. */
  setDegraded(reasons: string[]): void
}

export function createAlsMetrics(registry: Registry): AlsMetrics {
  const registers = [registry]
  const counters: AlsCounters = {
    intake: new Counter({
      name: 'svc_als_intake_total',
      help: 'Signals intake requests, by result (recorded, duplicate, refused).',
      labelNames: ['result'] as const,
      registers,
    }),
    replays: new Counter({
      name: 'svc_als_replays_total',
      help: 'Replay evaluations stored, by verdict.',
      labelNames: ['verdict'] as const,
      registers,
    }),
    proposals: new Counter({
      name: 'svc_als_proposals_total',
      help: 'Proposals created, by source (evidence, direct).',
      labelNames: ['source'] as const,
      registers,
    }),
    approvalChecks: new Counter({
      name: 'svc_als_approval_checks_total',
      help: 'Approve-check evaluations, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    activations: new Counter({
      name: 'svc_als_activations_total',
      help: 'Activate answers, by result (activated, replayed).',
      labelNames: ['result'] as const,
      registers,
    }),
    rollbacks: new Counter({
      name: 'svc_als_rollbacks_total',
      help: 'Rollback answers, by result (rolled_back, replayed).',
      labelNames: ['result'] as const,
      registers,
    }),
  }
  const mode = new Gauge({
    name: 'svc_service_mode',
    help: 'Effective service mode: 1 for the mode in effect, 0 for the others.',
    labelNames: ['mode'] as const,
    registers,
  })
  const persistence = new Gauge({
    name: 'svc_persistence_ready',
    help: '1 when the SQLite store answers, else 0.',
    registers,
  })
  const runs = new Gauge({
    name: 'svc_als_runs',
    help: 'Stored runs, by state.',
    labelNames: ['state'] as const,
    registers,
  })
  const proposals = new Gauge({
    name: 'svc_als_proposals',
    help: 'Stored proposals, by state.',
    labelNames: ['state'] as const,
    registers,
  })
  const budget = new Gauge({
    name: 'svc_als_replay_budget',
    help: 'Replay budget of the rolling hour: limit, used and remaining.',
    labelNames: ['kind'] as const,
    registers,
  })
  const queue = new Gauge({
    name: 'svc_als_queue_depth',
    help: 'Work waiting, by queue.',
    labelNames: ['queue'] as const,
    registers,
  })
  const backpressure = new Gauge({
    name: 'svc_als_backpressure',
    help: '1 while backpressure is on.',
    registers,
  })
  const familiesFresh = new Gauge({
    name: 'svc_als_registry_families_fresh',
    help: '1 while the PRS family truth is fresh.',
    registers,
  })

  const degraded = new Gauge({
    name: 'svc_metrics_degraded',
    help: 'Present (1) only while ALS is degraded, labelled by reason.',
    labelNames: ['reason'] as const,
    registers: [],
  })
  let degradedRegistered = false

  return {
    counters,
    observe(snap) {
      const { runsByState, proposalsByState: byState } = snap
      for (const m of SERVICE_MODES) mode.set({ mode: m }, m === snap.mode ? 1 : 0)
      persistence.set(snap.persistenceReady ? 1 : 0)
      familiesFresh.set(snap.families.state === 'fresh' ? 1 : 0)
      const q = snap.queue
      // Unknown while persistence is down: those series are left out rather than reported as zeros.
      for (const g of [runs, budget, proposals, queue]) g.reset()
      if (runsByState) for (const s of RUN_STATES) runs.set({ state: s }, runsByState[s] ?? 0)
      if (q.replay_budget_remaining !== null && q.replays_last_hour !== null) {
        budget.set({ kind: 'limit' }, q.replay_budget)
        budget.set({ kind: 'used' }, q.replays_last_hour)
        budget.set({ kind: 'remaining' }, q.replay_budget_remaining)
      }
      if (byState) for (const s of PROPOSAL_STATES) proposals.set({ state: s }, byState[s] ?? 0)
      const depths = {
        runs_awaiting_proposal: q.runs_awaiting_proposal,
        proposals_awaiting_approval: q.proposals_awaiting_approval,
        proposals_awaiting_activation: q.proposals_awaiting_activation,
      }
      for (const [name, value] of Object.entries(depths))
        if (value !== null) queue.set({ queue: name }, value)
      backpressure.set(snap.backpressure ? 1 : 0)
    },
    setDegraded(reasons) {
      degraded.reset()
      for (const reason of reasons) degraded.set({ reason }, 1)
      if (reasons.length > 0 && !degradedRegistered) registry.registerMetric(degraded)
      if (reasons.length === 0 && degradedRegistered) registry.removeSingleMetric('svc_metrics_degraded')
      degradedRegistered = reasons.length > 0
    },
  }
}

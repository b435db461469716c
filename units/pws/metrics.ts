import type { UnitContract } from '../../common/contract.ts'
import { Counter, Gauge, type Registry } from '../../common/metrics.ts'
import type { Storage } from '../../db/storage.ts'
import { latestWebhooks, projectCounts } from './store.ts'

/** Counters the services increment; gauges are read from the database at scrape time. */
export interface PwsCounters {
  writebackConflicts: Counter<'target' | 'reason'>
  syncEvents: Counter<'provider' | 'source' | 'result'>
  supportHandoffs: Counter<'result'>
  sandboxWrites: Counter<'scenario' | 'result'>
  planningSyncs: Counter<'direction' | 'result'>
}

export function createPwsMetrics(registry: Registry, db: Storage, contract: UnitContract): PwsCounters {
  const registers = [registry]
  new Gauge({
    name: 'svc_pws_contract_info',
    help: 'The shipped contract this process serves (value always 1).',
    labelNames: ['contract_version', 'compatibility_mode'] as const,
    registers,
  }).set({ contract_version: contract.version, compatibility_mode: contract.compatibility_mode }, 1)
  new Gauge({
    name: 'svc_pws_projects',
    help: 'Projects stored.',
    registers,
    async collect() {
      this.set((await projectCounts(db)).projects)
    },
  })
  new Gauge({
    name: 'svc_pws_tasks',
    help: 'Tasks stored, across projects.',
    registers,
    async collect() {
      this.set((await projectCounts(db)).tasks)
    },
  })
  new Gauge({
    name: 'svc_pws_last_webhook_age_seconds',
    help: 'Seconds since the last verified inbound webhook, per provider.',
    labelNames: ['provider'] as const,
    registers,
    async collect() {
      this.reset()
      for (const w of await latestWebhooks(db)) {
        if (w.at) this.set({ provider: w.provider }, Math.max(0, (Date.now() - Date.parse(w.at)) / 1000))
      }
    },
  })
  return {
    writebackConflicts: new Counter({
      name: 'svc_pws_writeback_conflicts_total',
      help: 'Writebacks refused with 409 for a missing or stale expected_version.',
      labelNames: ['target', 'reason'] as const,
      registers,
    }),
    syncEvents: new Counter({
      name: 'svc_pws_sync_events_total',
      help: 'Provider sync events, by provider, source (webhook, poll) and result.',
      labelNames: ['provider', 'source', 'result'] as const,
      registers,
    }),
    supportHandoffs: new Counter({
      name: 'svc_pws_support_handoffs_total',
      help: 'Support handoffs from EIS, by result (created, updated, replayed).',
      labelNames: ['result'] as const,
      registers,
    }),
    sandboxWrites: new Counter({
      name: 'svc_pws_sandbox_writes_total',
      help: 'Adapter sandbox writes, by scenario and result (applied, replayed, refused).',
      labelNames: ['scenario', 'result'] as const,
      registers,
    }),
    planningSyncs: new Counter({
      name: 'svc_pws_planning_syncs_total',
      help: 'Planning page syncs with the repository, by direction and result.',
      labelNames: ['direction', 'result'] as const,
      registers,
    }),
  }
}

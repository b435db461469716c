import { Counter, Gauge, Histogram, type Registry } from '../../common/metrics.ts'
import type { NdsStore } from './store.ts'

export interface NdsMetrics {
  ingested: Counter<'source' | 'outcome'>
  searchSeconds: Histogram<'kind'>
}

export function createNdsMetrics(registry: Registry, store: NdsStore): NdsMetrics {
  new Gauge({
    name: 'svc_nds_articles',
    help: 'Articles stored (current versions).',
    registers: [registry],
    async collect() {
      this.set(await store.articleCount())
    },
  })
  new Gauge({
    name: 'svc_nds_vectors',
    help: 'Article vectors in the in-memory index.',
    registers: [registry],
    async collect() {
      this.set(await store.vectorCount())
    },
  })
  new Gauge({
    name: 'svc_nds_ingest_jobs',
    help: 'Ingest jobs by state.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      for (const [state, n] of Object.entries(await store.jobStateCounts())) this.set({ state }, n)
    },
  })
  return {
    ingested: new Counter({
      name: 'svc_nds_ingest_items_total',
      help: 'Articles seen by ingest, by source and outcome (created, updated, unchanged, rejected).',
      labelNames: ['source', 'outcome'],
      registers: [registry],
    }),
    searchSeconds: new Histogram({
      name: 'svc_nds_search_seconds',
      help: 'Search latency inside the service, by kind (filter, semantic, hybrid).',
      labelNames: ['kind'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
  }
}

import { resolve } from 'node:path'
import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { parseUrlMap } from '../../common/config.ts'
import type { UnitContract } from '../../common/contract.ts'
import { Counter, Gauge } from '../../common/metrics.ts'
import { migrations } from '../../db/migrations/prs/index.ts'
import { defineUnit } from '../../runtime/unit.ts'
import { unitContracts } from '../contracts.ts'
import { meta } from './meta.ts'
import { createObserver } from './observer.ts'
import { combinationRoutes } from './routes/combinations.ts'
import { contractRoutes } from './routes/contracts.ts'
import { docsRoutes } from './routes/docs.ts'
import { monitoringRoutes } from './routes/monitoring.ts'
import { platformRoutes } from './routes/platform.ts'
import { readinessRoutes } from './routes/readiness.ts'
import { toolRoutes } from './routes/tools.ts'
import type { PrsDeps } from './service/deps.ts'
import { createViews } from './service/views.ts'
import { registerContracts } from './store.ts'

const ms = (min: number, max: number, dflt: number, what: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description: `${what}: milliseconds ${min}-${max}` })

const env = {
  SVC_UNIT_URLS: T.Optional(
    T.String({ minLength: 1, description: 'name=url pairs, comma separated (units PRS observes)' }),
  ),
  PRS_OBSERVE_INTERVAL_MS: ms(1000, 3_600_000, 30_000, 'observation interval'),
  PRS_OBSERVE_TIMEOUT_MS: ms(100, 30_000, 2000, 'timeout of one observation request'),
  PRS_OBSERVATIONS_KEEP: T.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description: 'observations kept per unit surface: 1-10000',
  }),
  PRS_VERIFY_TIMEOUT_MS: ms(100, 30_000, 3000, 'timeout of one admission readiness read-back'),
  PRS_REPO_DIR: T.String({
    minLength: 1,
    default: '.',
    description: 'the owner repository (docs, migrations)',
  }),
}

/** PRS over a given contract list: the registry entry uses the repository's; tests pass fixtures. */
export const makePrs = (contracts: readonly UnitContract[]) =>
  defineUnit({
    kind: 'http',
    ...meta,
    description:
      'Contract registry, matrix, docs standard, drift, readiness views and admission, derived from the units’ contracts.',
    env,
    migrations,
    libsql: true,
    validate(config) {
      const problems: string[] = []
      const http = new Set(contracts.filter((c) => c.identity.kind === 'http').map((c) => c.unit))
      const raw = config.SVC_UNIT_URLS ?? ''
      for (const part of raw.split(',').filter((p) => p.trim() !== '')) {
        const eq = part.indexOf('=')
        const name = eq > 0 ? part.slice(0, eq).trim() : ''
        const url = eq > 0 ? part.slice(eq + 1).trim() : ''
        if (!name || !url)
          problems.push(`SVC_UNIT_URLS: expected name=url, got ${JSON.stringify(part.trim())}`)
        else if (!http.has(name))
          problems.push(`SVC_UNIT_URLS: ${name} is not an HTTP unit of the suite (${[...http].join(', ')})`)
        else if (!/^https?:\/\/[^\s]+$/.test(url))
          problems.push(`SVC_UNIT_URLS: ${name} needs an http(s) URL`)
      }
      return problems
    },
    build(ctx) {
      const c = ctx.config
      const urls = parseUrlMap(c.SVC_UNIT_URLS)
      const views = createViews({
        storage: ctx.storage,
        contracts,
        urls,
        repoDir: resolve(c.PRS_REPO_DIR),
        suiteVersion: ctx.version,
      })
      const registry = ctx.metrics.registry
      const rounds = new Counter({
        name: 'svc_prs_observation_rounds_total',
        help: 'Observation rounds run, by whether any observed state changed.',
        labelNames: ['changed'] as const,
        registers: [registry],
      })
      const observer = createObserver({
        storage: ctx.storage,
        log: ctx.log,
        contracts,
        urls,
        intervalMs: c.PRS_OBSERVE_INTERVAL_MS,
        timeoutMs: c.PRS_OBSERVE_TIMEOUT_MS,
        keep: c.PRS_OBSERVATIONS_KEEP,
        async onRound({ stored, changed }) {
          rounds.inc({ changed: String(changed) })
          await views.refresh(stored > 0)
        },
      })
      const deps: PrsDeps = {
        views,
        storage: ctx.storage,
        observer,
        version: ctx.version,
        startedAt: ctx.startedAt,
        observe: {
          intervalMs: c.PRS_OBSERVE_INTERVAL_MS,
          timeoutMs: c.PRS_OBSERVE_TIMEOUT_MS,
          keep: c.PRS_OBSERVATIONS_KEEP,
        },
        verifyTimeoutMs: c.PRS_VERIFY_TIMEOUT_MS,
        counters: {
          compatibility: new Counter({
            name: 'svc_prs_compatibility_checks_total',
            help: 'Compatibility checks answered, by result.',
            labelNames: ['result'] as const,
            registers: [registry],
          }),
          admission: new Counter({
            name: 'svc_prs_admission_dry_runs_total',
            help: 'Admission dry-runs answered, by verdict.',
            labelNames: ['verdict'] as const,
            registers: [registry],
          }),
        },
      }
      new Gauge({
        name: 'svc_prs_units',
        help: 'Units of the registry by observed state.',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          this.reset()
          for (const s of views.services()) this.inc({ state: s.state })
        },
      })
      new Gauge({
        name: 'svc_prs_drift_items',
        help: 'Current drift findings by severity.',
        labelNames: ['severity'] as const,
        registers: [registry],
        collect() {
          const d = views.drift()
          this.set({ severity: 'blocking' }, d.blocking_count)
          this.set({ severity: 'warning' }, d.warning_count)
        },
      })
      new Gauge({
        name: 'svc_prs_view_cache',
        help: 'Derived-view cache: hits, misses and the current generation.',
        labelNames: ['kind'] as const,
        registers: [registry],
        collect() {
          const s = views.stats()
          this.set({ kind: 'hits' }, s.hits)
          this.set({ kind: 'misses' }, s.misses)
          this.set({ kind: 'generation' }, s.generation)
        },
      })
      new Gauge({
        name: 'svc_prs_registry_families',
        help: 'Families in the matrix by role.',
        labelNames: ['role'] as const,
        registers: [registry],
        collect() {
          const m = views.matrix()
          this.set({ role: 'produced' }, m.producer_families.length)
          this.set({ role: 'consumed' }, m.consumer_families.length)
          this.set({ role: 'unresolved' }, m.unresolved.length)
        },
      })

      const routes = new Elysia({ name: 'prs:routes' })
        .use(monitoringRoutes(deps, registry))
        .use(contractRoutes(deps))
        .use(docsRoutes(deps))
        .use(platformRoutes(deps))
        .use(readinessRoutes(deps))
        .use(toolRoutes(deps))
        .use(combinationRoutes(deps))
      // Start-up work on the storage: the repository's contracts registered, stored observations read.
      const starting = registerContracts(ctx.storage, contracts, ctx.startedAt).then(() => views.load())
      return { routes, background: [observer], starting }
    },
  })

export const prs = makePrs(unitContracts)

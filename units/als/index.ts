import { Type as T } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { urlString } from '../../common/config.ts'
import { errorFields } from '../../common/logger.ts'
import { migrations } from '../../db/migrations/als/index.ts'
import { defineUnit, type HttpUnit } from '../../runtime/unit.ts'
import { createFamilyCache } from './families.ts'
import { shippedManifest } from './manifest.ts'
import { meta } from './meta.ts'
import { createAlsMetrics } from './metrics.ts'
import { promotionRoutes } from './routes/promotions.ts'
import { replayRoutes } from './routes/replay.ts'
import { signalRoutes } from './routes/signals.ts'
import { statusRoutes } from './routes/status.ts'
import { SERVICE_MODES } from './rules/modes.ts'
import type { AlsDeps } from './service/deps.ts'
import { Persistence } from './store.ts'

const integer = (min: number, max: number, dflt: number, description: string) =>
  T.Integer({ minimum: min, maximum: max, default: dflt, description })

const env = {
  ALS_SERVICE_MODE: T.Union(
    SERVICE_MODES.map((m) => T.Literal(m)),
    { default: 'observe_only', description: 'warmup, observe_only or promotion_enabled' },
  ),
  ALS_WEIGHT_TRAINING_ENABLED: T.Boolean({ default: true, description: 'true or false' }),
  ALS_REPLAY_BUDGET: integer(0, 1_000_000, 120, 'replays per rolling hour, 0-1000000'),
  ALS_SAMPLE_RATE: T.Number({ minimum: 0, maximum: 1, default: 1, description: 'a fraction 0-1' }),
  ALS_SIGNAL_MIN_PRIORITY: integer(0, 100, 40, 'a priority score 0-100'),
  ALS_EVIDENCE_MAX_AGE_S: integer(1, 31_536_000, 604_800, 'seconds'),
  ALS_PROMOTION_VELOCITY_MAX: integer(1, 100_000, 5, 'activations per velocity window'),
  ALS_PROMOTION_VELOCITY_WINDOW_S: integer(1, 604_800, 3600, 'seconds'),
  ALS_OSCILLATION_WINDOW_S: integer(1, 31_536_000, 86_400, 'seconds'),
  ALS_OSCILLATION_MIN_REVERSALS: integer(1, 100, 2, 'reversals, 1-100'),
  ALS_QUEUE_HIGH_WATER: integer(1, 10_000_000, 1000, 'proposals awaiting approval'),
  SVC_REGISTRY_URL: T.Optional(urlString('the PRS base URL')),
  ALS_REGISTRY_MAX_AGE_S: integer(1, 86_400, 300, 'seconds'),
  ALS_REGISTRY_REFRESH_S: integer(1, 3600, 30, 'seconds'),
  SVC_RMS_URL: T.Optional(urlString('the RMS base URL')),
  SVC_RMS_TOKEN: T.Optional(T.String({ minLength: 1, description: 'the bearer token ALS presents to RMS' })),
  ALS_PEER_TIMEOUT_MS: integer(50, 30_000, 1500, 'milliseconds 50-30000'),
}

export const als: HttpUnit = defineUnit({
  kind: 'http',
  ...meta,
  description:
    'Signals intake, replay evaluation against threshold contracts, and governed promotion proposals (propose, approve-check against the RMS approval lane, activate, rollback).',
  env,
  migrations,
  libsql: true,
  validate(config) {
    const problems: string[] = []
    if (config.SVC_RMS_TOKEN && !config.SVC_RMS_URL) {
      problems.push('SVC_RMS_URL: required when SVC_RMS_TOKEN is set, expected an http(s) URL')
    }
    return problems
  },
  build(ctx) {
    const c = ctx.config
    const metrics = createAlsMetrics(ctx.metrics.registry)
    const families = createFamilyCache(
      {
        registryUrl: c.SVC_REGISTRY_URL,
        timeoutMs: c.ALS_PEER_TIMEOUT_MS,
        maxAgeMs: c.ALS_REGISTRY_MAX_AGE_S * 1000,
        refreshMs: c.ALS_REGISTRY_REFRESH_S * 1000,
      },
      ctx.log,
    )
    const deps: AlsDeps = {
      persistence: new Persistence(ctx.storage, (err) =>
        ctx.log.error({ err: errorFields(err) }, 'persistence failure'),
      ),
      settings: {
        serviceMode: c.ALS_SERVICE_MODE,
        weightTrainingEnabled: c.ALS_WEIGHT_TRAINING_ENABLED,
        replayBudget: c.ALS_REPLAY_BUDGET,
        sampleRate: c.ALS_SAMPLE_RATE,
        signalMinPriority: c.ALS_SIGNAL_MIN_PRIORITY,
        evidenceMaxAgeMs: c.ALS_EVIDENCE_MAX_AGE_S * 1000,
        velocityMax: c.ALS_PROMOTION_VELOCITY_MAX,
        velocityWindowMs: c.ALS_PROMOTION_VELOCITY_WINDOW_S * 1000,
        oscillationWindowMs: c.ALS_OSCILLATION_WINDOW_S * 1000,
        oscillationMinReversals: c.ALS_OSCILLATION_MIN_REVERSALS,
        queueHighWater: c.ALS_QUEUE_HIGH_WATER,
      },
      families,
      lane: { rmsUrl: c.SVC_RMS_URL, token: c.SVC_RMS_TOKEN, timeoutMs: c.ALS_PEER_TIMEOUT_MS },
      counters: metrics.counters,
      log: ctx.log,
      version: ctx.version,
      now: () => Date.now(),
    }
    const routes = new Elysia({ name: 'als:routes' })
      .use(statusRoutes({ deps, manifest: shippedManifest(), registry: ctx.metrics.registry, metrics }))
      .use(signalRoutes(deps))
      .use(replayRoutes(deps))
      .use(promotionRoutes(deps))
    return { routes, background: [families] }
  },
})

/** WTA's configuration, shared by the API runtime (`svc unit wta`) and the command line (`svc wta`). */
import { type Static, Type as T } from '@sinclair/typebox'
import { baseEnv, urlString } from '../../common/config.ts'
import { API_TOKEN_ENV } from './access.ts'

/** The spec's observer limits (Limits: WTA observers, WTA restart recovery). */
export const OBSERVER_LIMITS = {
  flowControlPollSeconds: 45,
  floorSeconds: 30,
  idlePollSeconds: 120,
  logWindowLines: 300,
  maxBackoffSeconds: 300,
  jitterSeconds: 3,
} as const

export const DEFAULT_UPSTREAM_URL = 'https://registry.npmjs.org/n8n'

const seconds = (dflt: number, what: string) =>
  T.Integer({
    minimum: OBSERVER_LIMITS.floorSeconds,
    maximum: 86_400,
    default: dflt,
    description: `${what}: seconds, at least ${OBSERVER_LIMITS.floorSeconds} (the hard floor)`,
  })

export const wtaEnv = {
  ...API_TOKEN_ENV,
  WTA_AUTOMATION_URL: T.Optional(
    urlString('the workflow-automation tool’s root URL, e.g. http://127.0.0.1:5678'),
  ),
  WTA_AUTOMATION_API_KEY: T.Optional(
    T.String({ minLength: 1, description: 'an n8n public-API key (X-N8N-API-KEY)' }),
  ),
  WTA_AUTOMATION_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'milliseconds 100-60000',
  }),
  WTA_AUTOMATION_VERSION: T.Optional(
    T.String({
      pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
      description: 'the running n8n version, when the tool does not say it (x.y.z)',
    }),
  ),
  WTA_UPSTREAM_URL: urlString('npm registry metadata of n8n (or a URL answering the same shape)'),
  WTA_UPSTREAM_FILE: T.Optional(
    T.String({ minLength: 1, description: 'a JSON file with the upstream release instead of the URL' }),
  ),
  WTA_UPSTREAM_TIMEOUT_MS: T.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: 'milliseconds 100-120000',
  }),
  WTA_FLOW_CONTROL_POLL_SECONDS: seconds(OBSERVER_LIMITS.flowControlPollSeconds, 'the observer poll'),
  WTA_IDLE_POLL_SECONDS: seconds(OBSERVER_LIMITS.idlePollSeconds, 'the idle poll'),
  WTA_OBSERVERS_ENABLED: T.Boolean({
    default: true,
    description: 'true or false: run the observers in the API runtime',
  }),
  WTA_HOTSPOT_WINDOW_HOURS: T.Integer({ minimum: 1, maximum: 720, default: 24, description: 'hours 1-720' }),
  WTA_STALE_AFTER_SECONDS: T.Integer({
    minimum: 60,
    maximum: 604_800,
    default: 900,
    description: 'seconds 60-604800',
  }),
}
wtaEnv.WTA_UPSTREAM_URL.default = DEFAULT_UPSTREAM_URL

/** The command line also reads where the data lives (the API runtime has these from the base). */
export const wtaCliEnv = {
  ...wtaEnv,
  SVC_DATA_DIR: baseEnv.SVC_DATA_DIR,
  DATABASE_URL: baseEnv.DATABASE_URL,
  DATABASE_AUTH_TOKEN: baseEnv.DATABASE_AUTH_TOKEN,
  SVC_ENV: baseEnv.SVC_ENV,
}

const WtaConfigSchema = T.Object(wtaCliEnv)
export type WtaConfig = Static<typeof WtaConfigSchema>

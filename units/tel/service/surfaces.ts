/** Every surface TEL reads, observed once per command (in parallel, each bounded). */
import { type Observation, observe } from '../../../common/cli.ts'
import type { SurfaceKey } from '../model.ts'
import type { Surfaces } from '../rules/verify.ts'

export interface SurfaceConfig {
  SVC_REGISTRY_URL?: string
  SVC_RUNTIME_HOST_URL?: string
  TEL_TELEPHONY_INFO_URL?: string
  TEL_TELEPHONY_AUTH?: string
  TEL_TIMEOUT_MS: number
}

const PRS_ROUTES = [
  '/api/v1/contracts/matrix',
  '/api/v1/contracts/docs-standard',
  '/api/v1/voice/contracts/events',
  '/api/v1/combinations/profiles',
  '/api/v1/combinations/optional-slices',
] as const

/** `user:password` is HTTP Basic (what Asterisk ARI takes); anything else a bearer token. */
export function authorization(auth: string): string {
  return auth.includes(':') ? `Basic ${Buffer.from(auth).toString('base64')}` : `Bearer ${auth}`
}

const join = (base: string | undefined, path: string) =>
  base ? `${base.replace(/\/+$/, '')}${path}` : undefined

/** Statuses that are answers, not failures, on the liveness and info routes. */
const ANSWERS = [401, 403, 404, 500, 502, 503, 504]

export async function observeSurfaces(config: SurfaceConfig): Promise<Surfaces> {
  const timeoutMs = config.TEL_TIMEOUT_MS
  const info = config.TEL_TELEPHONY_INFO_URL
  const entries: [SurfaceKey, Promise<Observation>][] = [
    ...PRS_ROUTES.map(
      (path) =>
        [`prs:${path}` as SurfaceKey, observe(join(config.SVC_REGISTRY_URL, path), { timeoutMs })] as [
          SurfaceKey,
          Promise<Observation>,
        ],
    ),
    [
      'runtime_host:/healthz',
      observe(join(config.SVC_RUNTIME_HOST_URL, '/healthz'), { timeoutMs, acceptStatus: ANSWERS }),
    ],
    ['telephony:info(no credentials)', observe(info, { timeoutMs, acceptStatus: ANSWERS })],
    [
      'telephony:info',
      observe(config.TEL_TELEPHONY_AUTH ? info : undefined, {
        timeoutMs,
        acceptStatus: ANSWERS,
        headers: config.TEL_TELEPHONY_AUTH ? { authorization: authorization(config.TEL_TELEPHONY_AUTH) } : {},
      }),
    ],
  ]
  const values = await Promise.all(entries.map(([, p]) => p))
  return Object.fromEntries(entries.map(([k], i) => [k, values[i]])) as Surfaces
}

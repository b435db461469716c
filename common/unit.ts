import type { Database } from 'bun:sqlite'
import type { Static, TObject, TProperties } from '@sinclair/typebox'
import type { AnyElysia } from 'elysia'
import type { Migration } from '../db/migrate.ts'
import type { Db } from '../db/sqlite.ts'
import type { BaseConfig } from './config.ts'
import type { Logger } from './logger.ts'
import type { HttpMetrics } from './metrics.ts'

export type UnitConfig<P extends TProperties> = BaseConfig & Static<TObject<P>>

/** What a unit's code is handed: its typed configuration and its own resources. */
export interface UnitContext<C> {
  name: string
  config: C
  db: Db
  sqlite: Database
  log: Logger
  metrics: HttpMetrics
  /** The running version of the suite (package.json). */
  version: string
  startedAt: string
}

/** Work a unit does off the request path (outbox delivery, polling, control loops). */
export interface BackgroundTask {
  name: string
  start(): void
  stop(): Promise<void> | void
}

export interface UnitInstance {
  /** The unit's routes; the runtime mounts them behind the shared wire plugin. */
  routes: AnyElysia
  background?: BackgroundTask[]
  /**
   * OpenAPI security schemes of the credential plugins the routes use (`credentials`,
   * `signaturePlugin`, `sessionPlugin` each expose `securitySchemes`), merged over the unit's own.
   */
  securitySchemes?: Record<string, Record<string, unknown>>
}

/** One entry of the unit registry: everything needed to run an HTTP unit. */
export interface HttpUnit<P extends TProperties = TProperties> {
  kind: 'http'
  name: string
  title: string
  description: string
  port: number
  liveness: string
  /** The unit's own environment variables, beside the shared ones. */
  env: P
  migrations: readonly Migration[]
  /** `METHOD /path` routes that also take HTML form bodies. */
  formRoutes?: readonly string[]
  /** Routes polled by probes or scrapers, logged at debug; defaults to liveness, /ready, /metrics. */
  probeRoutes?: readonly string[]
  /** Where the OpenAPI document is served; defaults to `/openapi.json`. */
  openapiPath?: string
  /**
   * `components.securitySchemes` of the OpenAPI document; absent for open units. Routes name the
   * schemes they require in `detail.security`, where their access is declared (RMS: its auth macro).
   */
  securitySchemes?: Record<string, Record<string, unknown>>
  /** Extra start-up checks across variables; each returned line is one bad variable. */
  validate?(config: UnitConfig<P>): string[]
  build(ctx: UnitContext<UnitConfig<P>>): UnitInstance
}

export const defineUnit = <P extends TProperties>(unit: HttpUnit<P>): HttpUnit<P> => unit

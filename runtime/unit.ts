import type { Database } from 'bun:sqlite'
import type { Static, TObject, TProperties } from '@sinclair/typebox'
import type { AnyElysia } from 'elysia'
import type { BackgroundTask } from '../common/background.ts'
import type { BaseConfig } from '../common/config.ts'
import type { DocsPage } from '../common/docs-pages.ts'
import type { Logger } from '../common/logger.ts'
import type { HttpMetrics } from '../common/metrics.ts'
import type { Migration } from '../db/migrate.ts'
import type { Db } from '../db/sqlite.ts'
import type { Storage } from '../db/storage.ts'

export type UnitConfig<P extends TProperties> = BaseConfig & Static<TObject<P>>

/** What a unit's code is handed: its typed configuration and its own resources. */
export interface UnitContext<C> {
  name: string
  config: C
  /** The unit's storage (either driver): reads on `storage.db`, writes in `storage.transaction`. */
  storage: Storage
  /** The embedded driver's writer connection, for units not yet on `storage`; throws on libSQL. */
  db: Db
  /** The embedded driver's writer connection, for units not yet on `storage`; throws on libSQL. */
  sqlite: Database
  log: Logger
  metrics: HttpMetrics
  /** The running version of the suite (package.json). */
  version: string
  startedAt: string
}

export type { BackgroundTask }

export interface UnitInstance {
  /** The unit's routes; the runtime mounts them behind the shared wire plugin. */
  routes: AnyElysia
  background?: BackgroundTask[]
  /**
   * Start-up work on the storage that `build` could not await (registrations, a first read).
   * Requests wait for it; the runner listens only once it has settled, and stops if it failed.
   */
  starting?: Promise<void>
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
  /**
   * The unit's data access is all on `ctx.storage` (never `ctx.db`/`ctx.sqlite`), so it may run on
   * a libSQL server (`DATABASE_URL=libsql://…`); without it the unit refuses such a URL at start.
   */
  libsql?: boolean
  /** `METHOD /path` routes that also take HTML form bodies. */
  formRoutes?: readonly string[]
  /** Routes polled by probes or scrapers, logged at debug; defaults to liveness, /ready, /metrics. */
  probeRoutes?: readonly string[]
  /** Where the OpenAPI document is served; defaults to `/openapi.json`. */
  openapiPath?: string
  /** The interactive API pages beside the document; defaults to Swagger UI at `/docs`. */
  docsPages?: readonly DocsPage[]
  /**
   * `components.securitySchemes` of the OpenAPI document; absent for open units. Routes name the
   * schemes they require in `detail.security`, where their access is declared (RMS: its auth macro).
   */
  securitySchemes?: Record<string, Record<string, unknown>>
  /** Replaces the 413 envelope for this unit (the mailbox adapter answers text `payload too large`). */
  payloadTooLarge?: () => Response
  /** Extra start-up checks across variables; each returned line is one bad variable. */
  validate?(config: UnitConfig<P>): string[]
  build(ctx: UnitContext<UnitConfig<P>>): UnitInstance
}

export const defineUnit = <P extends TProperties>(unit: HttpUnit<P>): HttpUnit<P> => unit

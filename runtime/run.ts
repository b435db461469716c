import { lookup } from 'node:dns/promises'
import { mkdirSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join } from 'node:path'
import { Type as T, type TObject, type TProperties } from '@sinclair/typebox'
import { type AnyElysia, Elysia } from 'elysia'
import { type BaseConfig, baseEnv, ConfigError, loadConfig } from '../common/config.ts'
import { createLogger, type Logger } from '../common/logger.ts'
import { createHttpMetrics } from '../common/metrics.ts'
import { serveOpenApi } from '../common/openapi.ts'
import { rawBodyRouteKeys } from '../common/signature.ts'
import { nowIso } from '../common/time.ts'
import { SUITE_VERSION } from '../common/version.ts'
import { wire } from '../common/wire.ts'
import type { OpenDb } from '../db/sqlite.ts'
import {
  ForeignDatabaseError,
  openEmbeddedStorage,
  openLibsqlStorage,
  redactUrl,
  type Storage,
  type StorageTarget,
  storageTarget,
} from '../db/storage.ts'
import type { BackgroundTask, HttpUnit, UnitConfig, UnitContext } from './unit.ts'

export type Env = Record<string, string | undefined>

export interface BootedUnit<C = unknown> {
  app: AnyElysia
  ctx: UnitContext<C>
  background: BackgroundTask[]
  /** The unit's storage, on the driver its configuration chose. */
  storage: Storage
  /** The embedded driver's writer connection (the pre-storage handles); throws on libSQL. */
  database: OpenDb
  /** The unit's start-up work (`UnitInstance.starting`); resolved when there is none. */
  started: Promise<void>
  /** Stop background work and close the database. */
  close(): Promise<void>
}

export function readUnitConfig<P extends TProperties>(unit: HttpUnit<P>, env: Env): UnitConfig<P> {
  // The merged schema's static type is too deep for the compiler; the parts are typed.
  const schema = T.Object({ ...baseEnv, ...unit.env }) as unknown as TObject
  const config = loadConfig(schema, env) as unknown as UnitConfig<P>
  const problems = unit.validate?.(config) ?? []
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/** What opening a unit's storage needs of it (a command-line unit passes these three). */
type StorageOwner = Pick<HttpUnit<TProperties>, 'name' | 'migrations' | 'libsql'>
/** The configuration that says where a unit's database is. */
type StorageConfig = Pick<BaseConfig, 'SVC_DATA_DIR' | 'DATABASE_URL' | 'DATABASE_AUTH_TOKEN'>

/** Which driver and where, from DATABASE_URL (a file or a server) or SVC_DATA_DIR. */
export const unitStorageTarget = (unit: StorageOwner, config: StorageConfig): StorageTarget =>
  storageTarget(unit.name, config.SVC_DATA_DIR, config.DATABASE_URL)

function openProblem(config: StorageConfig, where: string, err: unknown): ConfigError {
  const variable = config.DATABASE_URL ? 'DATABASE_URL' : 'SVC_DATA_DIR'
  const reason = (err as { code?: string }).code ?? (err as Error).message
  return new ConfigError([`${variable}: cannot create or open the database at ${where} (${reason})`])
}

/** The unit's embedded storage (opened and migrated synchronously), or a configuration error. */
function openEmbeddedUnitStorage(config: StorageConfig, path: string, unit: StorageOwner): Storage {
  try {
    return openEmbeddedStorage(path, unit.migrations)
  } catch (err) {
    throw openProblem(config, path, err)
  }
}

/** The unit's storage on either driver, migrated; a configuration error when it cannot be reached. */
export async function openUnitStorage(unit: StorageOwner, config: StorageConfig): Promise<Storage> {
  const target = unitStorageTarget(unit, config)
  if (target.driver === 'embedded') return openEmbeddedUnitStorage(config, target.path, unit)
  if (!unit.libsql) {
    throw new ConfigError([
      `DATABASE_URL: unit ${unit.name} runs on the embedded SQLite driver only (its store has not moved to ctx.storage)`,
    ])
  }
  try {
    return await openLibsqlStorage(target.url, unit.migrations, {
      authToken: config.DATABASE_AUTH_TOKEN,
      owner: unit.name,
    })
  } catch (err) {
    if (err instanceof ForeignDatabaseError) {
      throw new ConfigError([
        `DATABASE_URL: ${redactUrl(target.url)} holds the database of unit ${err.owner}; give ${unit.name} its own database`,
      ])
    }
    throw openProblem(config, redactUrl(target.url), err)
  }
}

/** The pre-storage handles (`ctx.db`, `ctx.sqlite`): the embedded writer connection. */
function legacyHandles(unit: string, storage: Storage): OpenDb {
  const e = storage.embedded
  if (!e) {
    const missing = (): never => {
      throw new Error(
        `unit ${unit}: ctx.db and ctx.sqlite exist on the embedded driver only; use ctx.storage`,
      )
    }
    return {
      get sqlite() {
        return missing()
      },
      get db() {
        return missing()
      },
      path: storage.location,
      close: () => void storage.close(),
    }
  }
  return { sqlite: e.writer, db: e.writerDb, path: storage.location, close: () => void storage.close() }
}

/**
 * Build a unit in process on the embedded driver (synchronous: tests and tools). Nothing
 * listens. A libSQL DATABASE_URL needs `bootUnitAsync`.
 */
export function bootUnit<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env,
  options: { log?: Logger } = {},
): BootedUnit<UnitConfig<P>> {
  const config = readUnitConfig(unit, env)
  const target = unitStorageTarget(unit, config)
  if (target.driver !== 'embedded') {
    throw new ConfigError([
      'DATABASE_URL: a libSQL server is opened by the asynchronous start (bootUnitAsync)',
    ])
  }
  return assemble(unit, config, openEmbeddedUnitStorage(config, target.path, unit), options.log, true)
}

/** Build a unit in process on the driver its configuration names. Nothing listens. */
export async function bootUnitAsync<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env,
  options: { log?: Logger } = {},
): Promise<BootedUnit<UnitConfig<P>>> {
  const config = readUnitConfig(unit, env)
  const booted = assemble(unit, config, await openUnitStorage(unit, config), options.log, false)
  try {
    await booted.started
  } catch (err) {
    await booted.close()
    throw err
  }
  return booted
}

function assemble<P extends TProperties>(
  unit: HttpUnit<P>,
  config: UnitConfig<P>,
  storage: Storage,
  givenLog: Logger | undefined,
  /**
   * Hold requests until the start-up work is done. Only the synchronous boot needs it (it hands
   * the app out at once); an asynchronous boot hands it out after. The hook is asynchronous, and
   * an asynchronous request hook makes every route's handler await (docs/benchmarks.md).
   */
  waitForStart: boolean,
): BootedUnit<UnitConfig<P>> {
  const log = givenLog ?? createLogger(unit.name, config.LOG_LEVEL)
  const database = legacyHandles(unit.name, storage)
  const metrics = createHttpMetrics(unit.name)
  const ctx: UnitContext<UnitConfig<P>> = {
    name: unit.name,
    config,
    storage,
    get db() {
      return database.db
    },
    get sqlite() {
      return database.sqlite
    },
    log,
    metrics,
    version: SUITE_VERSION,
    startedAt: nowIso(),
  }
  const instance = unit.build(ctx)
  const started = instance.starting ?? Promise.resolve()
  let settled = instance.starting === undefined
  started.then(
    () => {
      settled = true
    },
    () => undefined,
  )
  const base = new Elysia({ name: `unit:${unit.name}` })
  // Requests that arrive while the unit's start-up work runs wait for it (in-process tests).
  if (waitForStart && !settled)
    base.onRequest(async () => {
      if (!settled) await started
    })
  const app = base
    .use(
      wire({
        unit: unit.name,
        log,
        metrics,
        maxBodyBytes: config.SVC_MAX_BODY_BYTES,
        formRoutes: unit.formRoutes,
        payloadTooLarge: unit.payloadTooLarge,
        probeRoutes: unit.probeRoutes ?? [unit.liveness, '/ready', '/metrics'],
        rawBodyRoutes: rawBodyRouteKeys(instance.routes),
      }),
    )
    .use(instance.routes)
  serveOpenApi(app, unit.openapiPath ?? '/openapi.json', {
    title: `${unit.name.toUpperCase()}: ${unit.title}`,
    version: SUITE_VERSION,
    description: unit.description,
    formRoutes: unit.formRoutes ?? [],
    securitySchemes:
      unit.securitySchemes || instance.securitySchemes
        ? { ...unit.securitySchemes, ...instance.securitySchemes }
        : undefined,
    docsPages: unit.docsPages,
  })
  const background = instance.background ?? []
  let closed = false
  return {
    app,
    ctx,
    background,
    storage,
    database,
    started,
    async close() {
      if (closed) return
      closed = true
      for (const task of background) await task.stop()
      await storage.close()
    },
  }
}

/** Where `svc probe` finds a running unit's port and liveness route. */
export const probeFile = (dataDir: string, unit: string) => join(dataDir, `.svc-${unit}.listen.json`)

function writeProbeFile(
  dataDir: string,
  probe: { unit: string; port: number | undefined; liveness: string },
) {
  try {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(probeFile(dataDir, probe.unit), JSON.stringify(probe))
  } catch {
    // the probe file is a convenience for container health checks, never a reason to fail
  }
}

/**
 * Bun's own body limit, far above any unit's: Bun answers a bare 413 (no envelope, no request id,
 * not logged) above it. The wire plugin enforces the unit's limit on the bytes it receives.
 */
const SERVER_BODY_CEILING = Number.MAX_SAFE_INTEGER

/** Stop at start-up: one line per problem on stderr, exit 2 (CONTRACTS.md §1). */
function refuseToStart(unit: string, problems: string[]): never {
  for (const line of problems) process.stderr.write(`svc ${unit}: bad configuration: ${line}\n`)
  process.exit(2)
}

/** A HOST that is neither an address nor a name that resolves cannot be listened on. */
async function hostProblem(host: string): Promise<string | undefined> {
  if (isIP(host) !== 0) return undefined
  try {
    await lookup(host)
    return undefined
  } catch {
    return `HOST: expected a bind address or a resolvable host name, got ${JSON.stringify(host)}`
  }
}

/** The port a unit was told to listen on is taken (another process, or another unit). */
export class ListenError extends Error {
  constructor(
    readonly unit: string,
    readonly address: string,
  ) {
    super(`cannot listen on ${address}: the port is in use`)
    this.name = 'ListenError'
  }
}

/** A unit booted, listening and running its background work. */
export interface ListeningUnit<C = unknown> {
  name: string
  port: number | undefined
  booted: BootedUnit<C>
  /** Stop listening (in-flight requests finish), stop background work, close the database. */
  stop(signal?: string): Promise<void>
}

/**
 * Boot a unit, listen and start its background work: what `svc unit <name>` does before it waits
 * for a signal, and what the one-process suite does for each unit. Bad configuration is a
 * `ConfigError`, a taken port a `ListenError`; either leaves nothing open.
 */
export async function startUnit<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env,
): Promise<ListeningUnit<UnitConfig<P>>> {
  const booted = await bootUnitAsync(unit, env)
  const { app, ctx } = booted
  const config = ctx.config
  const hostIssue = await hostProblem(config.HOST)
  if (hostIssue) {
    await booted.close()
    throw new ConfigError([hostIssue])
  }
  const wanted = config.PORT ?? unit.port
  try {
    // reusePort off: a second process on a taken port must fail, not share it and split writes.
    app.listen({
      port: wanted,
      hostname: config.HOST,
      reusePort: false,
      maxRequestBodySize: SERVER_BODY_CEILING,
    })
  } catch {
    await booted.close()
    throw new ListenError(unit.name, `${config.HOST}:${wanted}`)
  }
  const port = app.server?.port
  writeProbeFile(config.SVC_DATA_DIR, { unit: unit.name, port, liveness: unit.liveness })
  for (const task of booted.background) task.start()
  ctx.log.info(
    {
      port,
      host: config.HOST,
      env: config.SVC_ENV,
      database: booted.storage.location,
      driver: booted.storage.driver,
    },
    'listening',
  )
  let stopped: Promise<void> | undefined
  return {
    name: unit.name,
    port,
    booted,
    stop(signal) {
      stopped ??= (async () => {
        ctx.log.info({ signal }, 'draining')
        await app.stop(false)
        await booted.close()
        ctx.log.info('stopped')
        ctx.log.flush()
      })()
      return stopped
    },
  }
}

/** `svc unit <name>`: boot, listen, run background work, drain and exit 0 on SIGTERM/SIGINT. */
export async function runUnit<P extends TProperties>(unit: HttpUnit<P>, env: Env): Promise<void> {
  let running: ListeningUnit<UnitConfig<P>>
  try {
    running = await startUnit(unit, env)
  } catch (err) {
    if (err instanceof ConfigError) refuseToStart(unit.name, err.problems)
    if (err instanceof ListenError) {
      process.stderr.write(`svc ${unit.name}: ${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
  const shutdown = async (signal: string) => {
    await running.stop(signal)
    setTimeout(() => process.exit(0), 50)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

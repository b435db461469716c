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
import { databasePath, type OpenDb, openDatabase } from '../db/sqlite.ts'
import type { BackgroundTask, HttpUnit, UnitConfig, UnitContext } from './unit.ts'

export type Env = Record<string, string | undefined>

export interface BootedUnit<C = unknown> {
  app: AnyElysia
  ctx: UnitContext<C>
  background: BackgroundTask[]
  database: OpenDb
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

/** The unit's database, or a configuration error naming the variable that chose its place. */
export function openUnitDatabase(unit: HttpUnit<TProperties>, config: BaseConfig): OpenDb {
  const path = databasePath(unit.name, config.SVC_DATA_DIR, config.DATABASE_URL)
  try {
    return openDatabase(path, unit.migrations)
  } catch (err) {
    const variable = config.DATABASE_URL ? 'DATABASE_URL' : 'SVC_DATA_DIR'
    const reason = (err as { code?: string }).code ?? (err as Error).message
    throw new ConfigError([`${variable}: cannot create or open the database at ${path} (${reason})`])
  }
}

/** Build a unit in process: configuration, database (migrated), routes. Nothing listens. */
export function bootUnit<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env,
  options: { log?: Logger } = {},
): BootedUnit<UnitConfig<P>> {
  const config = readUnitConfig(unit, env)
  const log = options.log ?? createLogger(unit.name, config.LOG_LEVEL)
  const database = openUnitDatabase(unit, config)
  const metrics = createHttpMetrics(unit.name)
  const ctx: UnitContext<UnitConfig<P>> = {
    name: unit.name,
    config,
    db: database.db,
    sqlite: database.sqlite,
    log,
    metrics,
    version: SUITE_VERSION,
    startedAt: nowIso(),
  }
  const instance = unit.build(ctx)
  const app = new Elysia({ name: `unit:${unit.name}` })
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
    database,
    async close() {
      if (closed) return
      closed = true
      for (const task of background) await task.stop()
      database.close()
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

/** `svc unit <name>`: boot, listen, run background work, drain and exit 0 on SIGTERM/SIGINT. */
export async function runUnit<P extends TProperties>(unit: HttpUnit<P>, env: Env): Promise<void> {
  let booted: BootedUnit<UnitConfig<P>>
  try {
    booted = bootUnit(unit, env)
  } catch (err) {
    if (err instanceof ConfigError) refuseToStart(unit.name, err.problems)
    throw err
  }
  const { app, ctx } = booted
  const config = ctx.config
  const hostIssue = await hostProblem(config.HOST)
  if (hostIssue) {
    await booted.close()
    refuseToStart(unit.name, [hostIssue])
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
    process.stderr.write(`svc ${unit.name}: cannot listen on ${config.HOST}:${wanted}: the port is in use\n`)
    process.exit(2)
  }
  const port = app.server?.port
  writeProbeFile(config.SVC_DATA_DIR, { unit: unit.name, port, liveness: unit.liveness })
  for (const task of booted.background) task.start()
  ctx.log.info({ port, host: config.HOST, env: config.SVC_ENV, database: booted.database.path }, 'listening')

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    ctx.log.info({ signal }, 'draining')
    await app.stop(false)
    await booted.close()
    ctx.log.info('stopped')
    ctx.log.flush()
    setTimeout(() => process.exit(0), 50)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type as T, type TObject, type TProperties } from '@sinclair/typebox'
import { type AnyElysia, Elysia } from 'elysia'
import { databasePath, type OpenDb, openDatabase } from '../db/sqlite.ts'
import { baseEnv, ConfigError, loadConfig } from './config.ts'
import { createLogger, type Logger } from './logger.ts'
import { createHttpMetrics } from './metrics.ts'
import { serveOpenApi } from './openapi.ts'
import { rawBodyRouteKeys } from './signature.ts'
import { nowIso } from './time.ts'
import type { BackgroundTask, HttpUnit, UnitConfig, UnitContext } from './unit.ts'
import { SUITE_VERSION } from './version.ts'
import { wire } from './wire.ts'

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

/** Build a unit in process: configuration, database (migrated), routes. Nothing listens. */
export function bootUnit<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env,
  options: { log?: Logger } = {},
): BootedUnit<UnitConfig<P>> {
  const config = readUnitConfig(unit, env)
  const log = options.log ?? createLogger(unit.name, config.LOG_LEVEL)
  const database = openDatabase(
    databasePath(unit.name, config.SVC_DATA_DIR, config.DATABASE_URL),
    unit.migrations,
  )
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

/** Headroom over the unit's own limit, so the envelope answer (413) comes from the app, not Bun. */
const SERVER_BODY_HEADROOM = 2

/** `svc unit <name>`: boot, listen, run background work, drain and exit 0 on SIGTERM/SIGINT. */
export async function runUnit<P extends TProperties>(unit: HttpUnit<P>, env: Env): Promise<void> {
  let booted: BootedUnit<UnitConfig<P>>
  try {
    booted = bootUnit(unit, env)
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const line of err.problems) process.stderr.write(`svc ${unit.name}: bad configuration: ${line}\n`)
      process.exit(2)
    }
    throw err
  }
  const { app, ctx } = booted
  const config = ctx.config
  app.listen({
    port: config.PORT ?? unit.port,
    hostname: config.HOST,
    maxRequestBodySize: config.SVC_MAX_BODY_BYTES * SERVER_BODY_HEADROOM,
  })
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

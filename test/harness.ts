/**
 * Test helpers shared by every unit: boot a unit in process on a fresh data directory, talk to
 * it with `app.handle`, stand up fake peers on 127.0.0.1, and run the real `svc` process.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TProperties } from '@sinclair/typebox'
import { type AnyElysia, Elysia } from 'elysia'
import { createLogger, type Logger } from '../common/logger.ts'
import { createHttpMetrics } from '../common/metrics.ts'
import { openApiDocument } from '../common/openapi.ts'
import { pollUntilUp } from '../common/peer.ts'
import { rawBodyRouteKeys } from '../common/signature.ts'
import { wire } from '../common/wire.ts'
import { type BootedUnit, bootUnit, bootUnitAsync, type Env } from '../runtime/run.ts'
import type { HttpUnit, UnitConfig } from '../runtime/unit.ts'
import { type Sqld, startSqld } from './sqld.ts'

const ROOT = join(import.meta.dir, '..')

/** Tests read JSON loosely and assert on its shape; production code never sees this type. */
// biome-ignore lint/suspicious/noExplicitAny: assertion target in tests only
export type Json = any

/** A response whose `json()` is loosely typed, for assertions. */
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<Json> }

export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/**
 * A tiny app for testing a shared block: `routes` behind the wire plugin, as the unit runner
 * mounts a unit's routes (raw-body routes found). `rawBody: false` leaves them out, as a runner
 * that forgot them would.
 */
export function wired(routes: AnyElysia, options: { rawBody?: boolean } = {}) {
  return new Elysia()
    .use(
      wire({
        unit: 't',
        log: createLogger('t', 'silent'),
        metrics: createHttpMetrics('t'),
        maxBodyBytes: 4096,
        rawBodyRoutes: options.rawBody === false ? [] : rawBodyRouteKeys(routes),
      }),
    )
    .use(routes)
}

/** The OpenAPI document of a tiny app, with the security schemes its plugins expose. */
export const documentOf = (app: AnyElysia, securitySchemes: Record<string, Record<string, unknown>>) =>
  openApiDocument(app, { title: 't', version: '1', description: 'd', formRoutes: [], securitySchemes }, [])

export interface TestUnit<C> extends BootedUnit<C> {
  dataDir: string
  /** `app.handle` with a full URL. */
  request(path: string, init?: RequestInit): Promise<TestResponse>
  /** JSON request (body serialized, content type set). */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>
  /** Close, then boot again on the same data directory (persistence tests). */
  restart(extraEnv?: Env): Promise<TestUnit<C>>
  /** Close and delete the data directory. */
  dispose(): Promise<void>
}

export function bootForTest<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env = {},
  dataDir = tempDir(`svc-${unit.name}-`),
  /** A logger to read the unit's log lines; silent by default. */
  log?: Logger,
): TestUnit<UnitConfig<P>> {
  const fullEnv: Env = { SVC_ENV: 'test', LOG_LEVEL: 'silent', SVC_DATA_DIR: dataDir, ...env }
  return asTestUnit(bootUnit(unit, fullEnv, { log }), dataDir, {
    restart: async (extraEnv) => bootForTest(unit, { ...env, ...extraEnv }, dataDir, log),
  })
}

/**
 * The driver unit tests run on: `SVC_TEST_DRIVER=libsql` boots every `bootForTestAsync` unit on a
 * fresh `sqld` of its own (CI runs a set of unit suites that way); the embedded file otherwise.
 */
export const testDriver = (): 'embedded' | 'libsql' =>
  process.env.SVC_TEST_DRIVER === 'libsql' ? 'libsql' : 'embedded'

/**
 * `bootForTest` on the driver `testDriver()` names. On libSQL the unit gets a fresh sqld (unless
 * `env` names a DATABASE_URL); `restart` boots again on the same server, `dispose` stops it.
 */
export async function bootForTestAsync<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env = {},
  dataDir = tempDir(`svc-${unit.name}-`),
  log?: Logger,
  server?: Sqld,
): Promise<TestUnit<UnitConfig<P>>> {
  let sqld = server
  if (sqld === undefined && testDriver() === 'libsql' && env.DATABASE_URL === undefined) {
    sqld = await startSqld()
  }
  const fullEnv: Env = {
    SVC_ENV: 'test',
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: dataDir,
    ...(sqld ? { DATABASE_URL: sqld.url } : {}),
    ...env,
  }
  const booted = await bootUnitAsync(unit, fullEnv, { log }).catch(async (err) => {
    if (sqld && !server) await sqld.stop()
    throw err
  })
  return asTestUnit(booted, dataDir, {
    restart: (extraEnv) => bootForTestAsync(unit, { ...env, ...extraEnv }, dataDir, log, sqld),
    stop: sqld ? () => sqld.stop() : undefined,
  })
}

function asTestUnit<C>(
  booted: BootedUnit<C>,
  dataDir: string,
  how: { restart(extraEnv: Env): Promise<TestUnit<C>>; stop?: () => Promise<void> },
): TestUnit<C> {
  const request = (path: string, init?: RequestInit) =>
    booted.app.handle(new Request(`http://localhost${path}`, init))
  return {
    ...booted,
    dataDir,
    request,
    send(method, path, body, headers = {}) {
      return request(path, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    },
    async restart(extraEnv = {}) {
      await booted.close()
      return how.restart(extraEnv)
    },
    async dispose() {
      await booted.close()
      await how.stop?.()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface RecordedRequest {
  method: string
  path: string
  headers: Headers
  body: string
}

export interface FakePeer {
  url: string
  requests: RecordedRequest[]
  /** Replace the handler (for example to go from failing to healthy). */
  respond(handler: (req: RecordedRequest) => Response | Promise<Response>): void
  stop(): void
}

/** A stand-in for another unit or an outside service, on 127.0.0.1 with a random port. */
export function fakePeer(handler: (req: RecordedRequest) => Response | Promise<Response>): FakePeer {
  let current = handler
  const requests: RecordedRequest[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const recorded = {
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
        body: await req.text(),
      }
      requests.push(recorded)
      return current(recorded)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    respond(next) {
      current = next
    },
    stop: () => void server.stop(true),
  }
}

export const json = (body: unknown, status = 200) => Response.json(body, { status })

/** A port that was free a moment ago. */
export function freePort(): number {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = server.port
  server.stop(true)
  if (port === undefined) throw new Error('no free port')
  return port
}

export interface RunningUnit {
  url: string
  proc: ReturnType<typeof Bun.spawn>
  /** SIGTERM, then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>
  output(): Promise<string>
}

/**
 * The real process, as an operator runs it: `bun run unit <name>` from the repository root
 * (or another command, such as the compiled executable). Resolves once the liveness route answers.
 */
export async function runUnitProcess(
  name: string,
  liveness: string,
  env: Env,
  command: string[] = [process.execPath, 'run', 'unit', name],
): Promise<RunningUnit> {
  const port = freePort()
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: {
      ...process.env,
      SVC_ENV: 'test',
      LOG_LEVEL: 'info',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const url = `http://127.0.0.1:${port}`
  try {
    await pollUntilUp(url + liveness, {
      deadlineMs: 15_000,
      everyMs: 50,
      accept: (status) => status < 300,
      failed: () => (proc.exitCode === null ? undefined : `exit ${proc.exitCode}`),
    })
  } catch (err) {
    proc.kill()
    const stderr = await new Response(proc.stderr).text()
    throw new Error(`unit ${name} did not come up (${(err as Error).message}): ${stderr}`)
  }
  return {
    url,
    proc,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal)
      return proc.exited
    },
    output: async () => (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text()),
  }
}

/** A unit booted in process and listening on 127.0.0.1 (a free port), for peers that call it over HTTP. */
export function listenForTest<P extends TProperties>(
  unit: HttpUnit<P>,
  env: Env = {},
): TestUnit<UnitConfig<P>> & { url: string } {
  const booted = bootForTest(unit, env)
  booted.app.listen({ port: 0, hostname: '127.0.0.1' })
  const port = booted.app.server?.port
  return {
    ...booted,
    url: `http://127.0.0.1:${port}`,
    async dispose() {
      await booted.app.stop(true)
      await booted.dispose()
    },
  }
}

/** Output a command-line unit wrote, captured (`CliIo` of common/cli.ts). */
export function captureIo(): {
  out: string
  err: string
  stdout(text: string): void
  stderr(text: string): void
} {
  const io = {
    out: '',
    err: '',
    stdout(text: string) {
      io.out += text
    },
    stderr(text: string) {
      io.err += text
    },
  }
  return io
}

/**
 * What each unit's hot read routes (bench/tax.ts) cost per request is decided when Elysia compiles
 * them, from the source text of the handler and of every hook on the route: a hook that names
 * `headers`, `query` or `cookie` makes every request prepare them, and a function whose body
 * looks asynchronous (`return f(`, `=> f(`, `await`) makes every request await. Measured over
 * HTTP, each cost about 1 µs of a 10–15 µs request (docs/benchmarks.md, framework tax). These
 * tests read the compiled handlers (Elysia's router history; Elysia is pinned) and fail when a
 * change brings such a cost back to a hot route.
 */
import { describe, expect, test } from 'bun:test'
import { createBunRouteHandler } from 'elysia/adapter/bun/compose'
import { TAX_ROUTES } from '../bench/tax.ts'
import { buildCommand } from '../bin/build.ts'
import { isCachedView } from '../common/json-view.ts'
import { httpUnits } from '../units/registry.ts'
import { bootForTestAsync } from './harness.ts'

/**
 * Units whose request hooks may await, and why: none. (The mailbox's publish guardrail, which must
 * wait for a chunked body, is that route's own parse hook, units/mailbox/guardrail.ts.)
 */
const AWAITING_REQUEST_HOOKS = new Set<string>()

interface HistoryRoute {
  method: string
  path: string
  handler: unknown
  hooks: Record<string, unknown>
  compile(): (...args: unknown[]) => unknown
}

const isAsyncFn = (f: unknown) => typeof f === 'function' && f.constructor.name === 'AsyncFunction'
/** The hooks that run for a GET (parse hooks run only for requests with a body). */
const hookFns = (hooks: Record<string, unknown>) =>
  Object.entries(hooks)
    .filter(([kind]) => kind !== 'parse')
    .map(([, value]) => value)
    .filter(Array.isArray)
    .flat()
    .map((h) => (h as { fn?: unknown })?.fn ?? h)

describe('hot read routes compile to what they need and nothing more', () => {
  for (const [name, routes] of Object.entries(TAX_ROUTES)) {
    test(name, async () => {
      const entry = httpUnits[name as keyof typeof httpUnits]
      const unit = await bootForTestAsync(await entry.load(), routes.env)
      try {
        unit.app.compile()
        const history = unit.app.router.history as unknown as HistoryRoute[]
        for (const path of routes.paths) {
          const route = history.find((r) => r.method === 'GET' && r.path === path)
          expect(route, path).toBeDefined()
          if (route === undefined) continue
          const handle = route.compile()
          const source = handle.toString()
          const perRequest = createBunRouteHandler(unit.app, route as never) as (...a: unknown[]) => unknown
          // No request hook makes every request await.
          expect(isAsyncFn(perRequest), `${path}: request hooks`).toBe(AWAITING_REQUEST_HOOKS.has(name))
          // Nothing is prepared that the route does not declare.
          if (route.hooks.query === undefined) expect(source, path).not.toContain('parseQueryFromURL')
          expect(source, path).not.toContain('c.headers=')
          expect(source, path).not.toContain('parseCookie')
          // A synchronous cached view behind synchronous hooks runs synchronously.
          const sync =
            isCachedView(route.handler, undefined) &&
            !isAsyncFn(route.handler) &&
            !hookFns(route.hooks).some(isAsyncFn)
          if (sync) expect(isAsyncFn(handle), `${path}: compiled as asynchronous`).toBe(false)
        }
      } finally {
        await unit.dispose()
      }
    })
  }
})

test('the executable keeps whitespace in the code Elysia reads (the same hooks compile the same way there)', () => {
  const flags = buildCommand('/tmp/x')
  expect(flags).not.toContain('--minify')
  expect(flags).not.toContain('--minify-whitespace')
  expect(flags).toContain('--minify-syntax')
})

test("the executable is split into chunks, so a process running one unit loads only that unit's code", () => {
  const flags = buildCommand('/tmp/x')
  // Measured: 3-4 MB less resident per unit at idle than one undivided bundle (docs/benchmarks.md).
  expect(flags).toContain('--splitting')
  expect(flags).toContain('--format=esm')
  expect(flags).toContain('--bytecode')
})

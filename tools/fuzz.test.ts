/**
 * The fuzzer itself: it must find each kind of violation in a unit planted with bugs, pass a
 * clean one, reproduce a failure from its seed, and then hold for every registered unit (the CI
 * budget: FUZZ_RUNS runs per operation and mode, default 12, seed FUZZ_SEED).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import fc from 'fast-check'
import { badRequest, ErrorEnvelope, unavailable } from '../common/errors.ts'
import { defineUnit } from '../runtime/unit.ts'
import { bootForTest } from '../test/harness.ts'
import { httpUnits } from '../units/registry.ts'
import { type FuzzReport, type FuzzTarget, fuzzTarget, operationResolver, REPO_ROOT } from './lib/fuzzer.ts'
import type { Operation } from './lib/openapi.ts'
import { operations } from './lib/openapi.ts'
import { checkResponse } from './lib/properties.ts'
import {
  describeRequest,
  type FuzzRequest,
  mutatedRequest,
  PROTOTYPE_KEYS,
  shadowingObject,
  toRequest,
  validRequest,
} from './lib/requests.ts'
import { arbitrary, type Schema, validate } from './lib/schema.ts'
import { openUnitTarget } from './lib/units.ts'

const Item = t.Object({
  name: t.String({ minLength: 1, maxLength: 40 }),
  count: t.Optional(t.Integer({ minimum: 0, maximum: 100 })),
  tags: t.Optional(t.Array(t.String({ maxLength: 10 }), { maxItems: 3 })),
  kind: t.Union([t.Literal('a'), t.Literal('b')]),
  at: t.Optional(t.String({ format: 'date-time' })),
})

let poisoned = false

/** A unit with one healthy route and one planted bug per property. */
const fake = defineUnit({
  kind: 'http',
  name: 'fake',
  title: 'fuzzer self-test',
  description: 'healthy and broken routes',
  port: 0,
  liveness: '/health',
  env: {},
  migrations: [],
  build: () => ({
    routes: new Elysia({ name: 'fake:routes' })
      .get(
        '/health',
        ({ set }) => {
          if (poisoned) set.status = 503
          return { ok: !poisoned }
        },
        { response: { 200: t.Object({ ok: t.Boolean() }), 503: t.Object({ ok: t.Boolean() }) } },
      )
      .post('/items', ({ body }) => ({ ...body, id: 'x1' }), {
        body: Item,
        response: { 200: t.Object({ ...Item.properties, id: t.String() }), 400: ErrorEnvelope },
      })
      .get('/items/:id', ({ params }) => ({ id: params.id }), {
        params: t.Object({ id: t.String() }),
        query: t.Object({ limit: t.Optional(t.Numeric({ minimum: 1, maximum: 50 })) }),
        response: { 200: t.Object({ id: t.String() }) },
      })
      // Planted bugs, one per property.
      .post(
        '/crash',
        ({ body }) => {
          if (body.n < 0) throw new TypeError('negative')
          return { n: body.n }
        },
        { body: t.Object({ n: t.Integer() }), response: { 200: t.Object({ n: t.Integer() }) } },
      )
      .get(
        '/leak/:id',
        ({ params }) => {
          if (!/^\d+$/.test(params.id)) throw badRequest('bad_id', String(new Error('no such id').stack))
          return { id: params.id }
        },
        {
          params: t.Object({ id: t.String() }),
          response: { 200: t.Object({ id: t.String() }), 400: ErrorEnvelope },
        },
      )
      .get(
        '/plain',
        ({ query }) => (query.q ? { q: query.q } : new Response('bad request', { status: 400 })),
        {
          query: t.Object({ q: t.Optional(t.String()) }),
          response: { 200: t.Object({ q: t.String() }) },
        },
      )
      .get('/drift', () => Response.json({ ok: 'yes' }), { response: { 200: t.Object({ ok: t.Boolean() }) } })
      // Fails closed on a missing dependency: a declared 503, also when reached as `/closed/.`.
      .post(
        '/closed',
        () => {
          throw unavailable('dependency_not_configured', 'The dependency is not configured.')
        },
        { response: { 503: ErrorEnvelope } },
      )
      .post(
        '/poison',
        () => {
          poisoned = true
          return { ok: true }
        },
        { response: { 200: t.Object({ ok: t.Boolean() }) } },
      ),
  }),
})

function fakeTarget(): FuzzTarget {
  poisoned = false
  const booted = bootForTest(fake)
  return {
    unit: 'fake',
    liveness: '/health',
    openapiPath: '/openapi.json',
    maxBodyBytes: booted.ctx.config.SVC_MAX_BODY_BYTES,
    credentials: { headers: {}, body: {} },
    internalPaths: [REPO_ROOT, booted.dataDir],
    handle: (req) => booted.app.handle(req),
    close: () => booted.dispose(),
  }
}

async function fuzzFake(only: string[], runs = 30, seed = 42): Promise<FuzzReport> {
  const target = fakeTarget()
  try {
    return await fuzzTarget(target, { runs, seed, only })
  } finally {
    await target.close()
  }
}

const problemsOf = (r: FuzzReport) => r.failures.flatMap((f) => f.problems)

describe('schema subset', () => {
  const doc = { components: { schemas: { Item } } } as never
  test('every generated value validates against its schema', () => {
    const schemas: Schema[] = [
      Item as unknown as Schema,
      { $ref: '#/components/schemas/Item' },
      { type: 'array', items: { type: 'integer', minimum: 3, maximum: 9 }, minItems: 1, uniqueItems: true },
      { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] },
      { type: 'string', pattern: '^[a-z]{2,5}-\\d+$' },
      { type: 'string', format: 'email', maxLength: 60 },
      {
        type: 'object',
        required: ['a'],
        properties: { a: { const: 1 } },
        additionalProperties: { type: 'boolean' },
      },
    ]
    for (const schema of schemas) {
      fc.assert(
        fc.property(arbitrary(doc, schema), (v) => validate(doc, schema, v).length === 0),
        { numRuns: 200, seed: 1 },
      )
    }
  })
  test('the validator names what is wrong', () => {
    const schema = Item as unknown as Schema
    expect(validate(doc, schema, { name: 'x', kind: 'a' })).toEqual([])
    expect(validate(doc, schema, { kind: 'c' }).sort()).toEqual([
      '/kind: matches no branch of anyOf',
      '/name: required property missing',
    ])
    expect(validate(doc, schema, { name: '', kind: 'a', count: 1.5 })).toEqual([
      '/name: shorter than 1',
      '/count: matches no branch of anyOf',
    ])
    expect(validate(doc, schema, { name: 'x', kind: 'a', at: 'yesterday' })).toEqual([
      '/at: not a valid date-time',
    ])
  })
})

describe('requests', () => {
  test('valid requests pass the route schema; mutated ones are refused with 4xx, never 5xx', async () => {
    const target = fakeTarget()
    try {
      const doc = (await (await target.handle(new Request('http://localhost/openapi.json'))).json()) as never
      const op = operations(doc).find((o) => o.key === 'POST /items')!
      const ctx = {
        doc,
        op,
        credentials: { headers: {}, body: {} },
        maxBodyBytes: target.maxBodyBytes,
        pathMethods: ['POST'],
      }
      for (const req of fc.sample(validRequest(ctx), { numRuns: 40, seed: 3 })) {
        const res = await target.handle(toRequest(req))
        if (res.status !== 200)
          throw new Error(`${describeRequest(req)}\n→ ${res.status} ${await res.text()}`)
      }
      const statuses = new Set<number>()
      for (const req of fc.sample(mutatedRequest(ctx), { numRuns: 150, seed: 3 })) {
        statuses.add((await target.handle(toRequest(req))).status)
      }
      expect([...statuses].every((s) => s < 500)).toBe(true)
      for (const s of [400, 404, 413, 415]) expect(statuses).toContain(s)
    } finally {
      await target.close()
    }
  })
})

describe('the fuzzer finds planted bugs', () => {
  test('a 500', async () => {
    const r = await fuzzFake(['POST /crash'])
    expect(problemsOf(r).some((p) => p.startsWith('500 answer'))).toBe(true)
    // Shrunk to the smallest failing input and printed with what reproduces it.
    const f = r.failures[0]!
    expect(f.request).toContain('{"n":-1}')
    expect(f.reproduce).toContain('--seed 42')
  })
  test('a stack trace in a body', async () => {
    const r = await fuzzFake(['GET /leak/{id}'])
    expect(
      problemsOf(r).some((p) => p.startsWith('stack frame in body') || p.startsWith('internal path')),
    ).toBe(true)
  })
  test('a 4xx without the envelope', async () => {
    const r = await fuzzFake(['GET /plain'])
    expect(problemsOf(r).some((p) => p.startsWith('400 without the JSON error envelope'))).toBe(true)
  })
  test('a 2xx body that does not match the declared schema', async () => {
    const r = await fuzzFake(['GET /drift'])
    expect(problemsOf(r)).toContain('200 body /ok: expected boolean, got string')
  })
  test('a liveness route that stops answering', async () => {
    const r = await fuzzFake(['POST /poison'])
    expect(problemsOf(r).some((p) => p.startsWith('liveness /health answered 503'))).toBe(true)
  })
  test('a declared 503 is not a failure', async () => {
    const r = await fuzzFake(['POST /closed'], 60)
    expect(r.failures).toEqual([])
  })
  test('a path that normalizes to a route (/x/. is /x/) is checked against that route, as Elysia serves it', async () => {
    const op = (method: string, path: string) => ({ method, path }) as Operation
    const ops = [op('POST', '/closed'), op('GET', '/items/{id}')]
    const routeOf = operationResolver(ops)
    const pathOf = (raw: string) => new URL(`http://localhost${raw}`).pathname
    expect(routeOf(pathOf('/closed/.'), 'POST')).toBe(ops[0])
    expect(routeOf(pathOf('/items/7/.'), 'GET')).toBe(ops[1])
    expect(routeOf(pathOf('/closed/x'), 'POST')).toBeUndefined()
    expect(routeOf(pathOf('/closed'), 'GET')).toBeUndefined()
  })
  test('healthy routes pass', async () => {
    const r = await fuzzFake(['POST /items', 'GET /items/{id}', 'GET /health'], 60)
    expect(r.failures).toEqual([])
    expect(r.requests).toBeGreaterThan(200)
  })
  test('the same seed finds the same counterexample again', async () => {
    const a = await fuzzFake(['GET /leak/{id}'], 30, 7)
    const b = await fuzzFake(['GET /leak/{id}'], 30, 7)
    expect(b.failures[0]?.request).toBe(a.failures[0]?.request)
    expect(b.failures[0]?.path).toBe(a.failures[0]?.path)
    const target = fakeTarget()
    try {
      const f = a.failures[0]!
      const replayed = await fuzzTarget(target, {
        runs: 30,
        seed: 7,
        only: [f.operation],
        mode: f.mode,
        replay: f.path,
      })
      expect(replayed.failures[0]?.request).toBe(f.request)
    } finally {
      await target.close()
    }
  })
})

describe('reproduction from a full run', () => {
  test('--rebuild replays a counterexample found after other operations ran', async () => {
    const first = fakeTarget()
    let full: FuzzReport
    try {
      full = await fuzzTarget(first, { runs: 20, seed: 11 })
    } finally {
      await first.close()
    }
    const leak = full.failures.find((f) => f.operation === 'GET /leak/{id}')!
    expect(leak.reproduce).toContain('--rebuild')
    const second = fakeTarget()
    try {
      const replayed = await fuzzTarget(second, {
        runs: 20,
        seed: 11,
        only: [leak.operation],
        mode: leak.mode,
        replay: leak.path,
        rebuild: true,
      })
      // (the quietly rerun POST /poison also takes liveness down again, as in the full run)
      expect(replayed.failures.filter((f) => f.path === leak.path).map((f) => f.request)).toEqual([
        leak.request,
      ])
    } finally {
      await second.close()
    }
  })
})

describe('properties', () => {
  const req: FuzzRequest = { kind: 'oversize body', method: 'POST', path: '/publish', query: [], headers: {} }
  const res = (status: number, body: string, type: string) =>
    new Response(body, { status, headers: { 'content-type': type } })
  test("mailbox's 413 text is allowed by the short list, and nowhere else", () => {
    const mailbox = { unit: 'mailbox', doc: {}, op: undefined, internalPaths: [] }
    const check = (unit: string, text: string) =>
      checkResponse(
        {
          ...mailbox,
          unit,
          op: { key: 'POST /publish', method: 'POST', path: '/publish', parameters: [], responses: {} },
        },
        req,
        413,
        res(413, text, 'text/plain'),
        text,
      )
    expect(check('mailbox', 'payload too large')).toEqual([])
    expect(check('mailbox', 'too big')).toHaveLength(1)
    expect(check('web', 'payload too large')).toHaveLength(1)
  })
  test('an echoed input is not a leak; the same text from the server is', () => {
    const ctx = { unit: 'x', doc: {}, op: undefined, internalPaths: [] }
    const body = JSON.stringify({ error: { code: 'bad', message: 'node_modules is not allowed' } })
    const echoed = {
      ...req,
      kind: 'odd unicode',
      body: { encoding: 'json' as const, contentType: 'application/json', value: { a: 'node_modules' } },
    }
    expect(checkResponse(ctx, echoed, 400, res(400, body, 'application/json'), body)).toEqual([])
    expect(checkResponse(ctx, req, 400, res(400, body, 'application/json'), body)).toEqual([
      'internal path in body: "node_modules"',
    ])
  })
})

describe('every registered unit holds under fuzz', () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 12)
  const seed = Number(process.env.FUZZ_SEED ?? 20261122)
  const targets: FuzzTarget[] = []
  afterAll(async () => {
    for (const t of targets) await t.close()
  })
  for (const name of Object.keys(httpUnits)) {
    test(name, async () => {
      const target = await openUnitTarget(name)
      targets.push(target)
      const report = await fuzzTarget(target, { runs, seed })
      const failures = report.failures.map(
        (f) => `${f.operation} (${f.mode}): ${f.problems.join('; ')}\n${f.request}\n${f.reproduce}`,
      )
      expect(failures).toEqual([])
      expect(report.operations).toBeGreaterThan(0)
    }, 60_000)
  }
})

describe('prototype-shadowing objects (issue 10, defect 1)', () => {
  test('the generator makes objects whose own keys shadow Object.prototype, which no template can print', () => {
    const samples = fc.sample(shadowingObject(), { numRuns: 200, seed: 7 })
    const keys = new Set(samples.flatMap((o) => Object.keys(o)))
    for (const k of PROTOTYPE_KEYS) expect(keys.has(k)).toBe(true)
    expect(samples.some((o) => Object.hasOwn(o, '__proto__'))).toBe(true)
    const unprintable = samples.filter((o) => Object.hasOwn(o, 'toString'))
    expect(unprintable.length).toBeGreaterThan(0)
    for (const o of unprintable) expect(() => `${o}`).toThrow()
  })

  test('body mutations put them into fields, and the units refuse them with a 4xx', async () => {
    const target = fakeTarget()
    try {
      const doc = (await (await target.handle(new Request('http://localhost/openapi.json'))).json()) as never
      const op = operations(doc).find((o) => o.key === 'POST /items')!
      const ctx = {
        doc,
        op,
        credentials: { headers: {}, body: {} },
        maxBodyBytes: target.maxBodyBytes,
        pathMethods: ['POST'],
      }
      const shadowed = fc
        .sample(mutatedRequest(ctx), { numRuns: 600, seed: 3 })
        .filter((r) => r.kind.startsWith('own keys'))
      expect(shadowed.length).toBeGreaterThan(0)
      for (const req of shadowed) expect((await target.handle(toRequest(req))).status).toBe(400)
    } finally {
      await target.close()
    }
  })
})

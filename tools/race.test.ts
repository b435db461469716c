/**
 * The race helpers (test/race.ts) against a tiny Elysia app with correct and broken endpoints:
 * they must pass the correct ones and catch every broken one.
 */
import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { RaceViolation, raceIdempotent, raceVersioned } from '../test/race.ts'

const N = 12

function app() {
  const effects: string[] = []
  const byKey = new Map<string, { id: string }>()
  let version = 1
  let value = ''
  const tick = () => Bun.sleep(1)
  const conflict = (set: { status?: number | string }) => {
    set.status = 409
    return { error: { code: 'version_conflict', message: 'The expected_version is stale.' } }
  }
  const server = new Elysia()
    // Correct: look-up and insert happen with no await between them.
    .post(
      '/good',
      ({ body }) => {
        const seen = byKey.get(body.key)
        if (seen) return { ...seen, replay: true }
        const answer = { id: `e${effects.length}` }
        byKey.set(body.key, answer)
        effects.push(body.key)
        return { ...answer, replay: false }
      },
      { body: t.Object({ key: t.String() }) },
    )
    // Broken: an await between the look-up and the insert lets every racer in.
    .post(
      '/check-then-act',
      async ({ body }) => {
        const seen = byKey.get(body.key)
        await tick()
        if (seen) return seen
        const answer = { id: `e${effects.length}` }
        byKey.set(body.key, answer)
        effects.push(body.key)
        return answer
      },
      { body: t.Object({ key: t.String() }) },
    )
    // Broken: one effect, but replays answer with a different id.
    .post(
      '/unstable-answer',
      ({ body }) => {
        if (!byKey.has(body.key)) {
          byKey.set(body.key, { id: 'first' })
          effects.push(body.key)
        }
        return { id: `answer-${Math.random()}` }
      },
      { body: t.Object({ key: t.String() }) },
    )
    .put(
      '/doc',
      ({ body, set }) => {
        if (body.expected_version !== version) return conflict(set)
        version++
        value = body.value
        return { version, value }
      },
      { body: t.Object({ expected_version: t.Integer(), value: t.String() }) },
    )
    .put(
      '/doc-lost-update',
      async ({ body, set }) => {
        const current = version
        await tick()
        if (body.expected_version !== current) return conflict(set)
        version = current + 1
        value = body.value
        return { version, value }
      },
      { body: t.Object({ expected_version: t.Integer(), value: t.String() }) },
    )
    .put(
      '/doc-wrong-status',
      ({ body, set }) => {
        if (body.expected_version !== version) {
          set.status = 400
          return { error: { code: 'stale', message: 'stale' } }
        }
        version++
        return { version }
      },
      { body: t.Object({ expected_version: t.Integer(), value: t.String() }) },
    )
    .put(
      '/doc-bare-conflict',
      ({ body, set }) => {
        if (body.expected_version !== version) {
          set.status = 409
          return 'conflict'
        }
        version++
        return { version }
      },
      { body: t.Object({ expected_version: t.Integer(), value: t.String() }) },
    )
  const send = (method: string, path: string, body: unknown) =>
    server.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    )
  return { send, effects: () => effects.length, version: () => version, value: () => value }
}

describe('raceIdempotent', () => {
  test('passes an endpoint with one effect and identical answers (replay flag normalized away)', async () => {
    const a = app()
    const result = await raceIdempotent(N, () => a.send('POST', '/good', { key: 'k1' }), {
      effects: a.effects,
      normalize: ({ status, body }) => ({ status, id: (body as { id: string }).id }),
    })
    expect(result.effects).toBe(1)
    expect(result.answers).toHaveLength(N)
  })
  test('the replay flag differs between answers, so without normalizing it is a violation', async () => {
    const a = app()
    const race = raceIdempotent(N, () => a.send('POST', '/good', { key: 'k1' }), { effects: a.effects })
    await expect(race).rejects.toThrow('expected identical answers, saw 2 different ones')
  })
  test('catches duplicate effects from check-then-act', async () => {
    const a = app()
    const race = raceIdempotent(N, () => a.send('POST', '/check-then-act', { key: 'k1' }), {
      effects: a.effects,
    })
    await expect(race).rejects.toThrow(`expected exactly one effect, saw ${N}`)
  })
  test('catches answers that differ although the effect happened once', async () => {
    const a = app()
    const race = raceIdempotent(N, () => a.send('POST', '/unstable-answer', { key: 'k1' }), {
      effects: a.effects,
    })
    await expect(race).rejects.toBeInstanceOf(RaceViolation)
    await expect(race).rejects.toThrow('expected identical answers')
  })
  test('catches failing answers', async () => {
    const a = app()
    const race = raceIdempotent(N, () => a.send('POST', '/good', { nope: 1 }), { effects: a.effects })
    await expect(race).rejects.toThrow('expected exactly one effect, saw 0')
  })
})

describe('raceVersioned', () => {
  test('passes a compare-and-set endpoint: one success, N-1 conflicts', async () => {
    const a = app()
    const { winner, answers } = await raceVersioned(N, (i) =>
      a.send('PUT', '/doc', { expected_version: 1, value: `writer ${i}` }),
    )
    expect(a.version()).toBe(2)
    expect(a.value()).toBe(`writer ${winner}`)
    expect(answers.filter((x) => x.status === 409)).toHaveLength(N - 1)
  })
  test('catches lost updates (several writers succeed)', async () => {
    const a = app()
    const race = raceVersioned(N, (i) =>
      a.send('PUT', '/doc-lost-update', { expected_version: 1, value: `w${i}` }),
    )
    await expect(race).rejects.toThrow(`expected exactly one success, saw ${N}`)
  })
  test('catches conflicts answered with another status', async () => {
    const a = app()
    const race = raceVersioned(N, () =>
      a.send('PUT', '/doc-wrong-status', { expected_version: 1, value: 'x' }),
    )
    await expect(race).rejects.toThrow(`expected ${N - 1} 409 conflicts, saw 0`)
  })
  test('catches conflicts without the error envelope', async () => {
    const a = app()
    const race = raceVersioned(N, () =>
      a.send('PUT', '/doc-bare-conflict', { expected_version: 1, value: 'x' }),
    )
    await expect(race).rejects.toThrow(`${N - 1} conflicts without the error envelope`)
  })
  test('needs at least two racers', async () => {
    const a = app()
    await expect(
      raceVersioned(1, () => a.send('PUT', '/doc', { expected_version: 1, value: 'x' })),
    ).rejects.toThrow('n >= 2')
  })
})

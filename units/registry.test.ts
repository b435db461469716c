import { expect, test } from 'bun:test'
import { httpUnits, loadHttpUnits, registeredUnit } from './registry.ts'

test('each entry loads the unit it names, with the metadata the entry carries', async () => {
  const loaded = await loadHttpUnits()
  for (const [name, entry] of Object.entries(httpUnits)) {
    const unit = loaded[name]
    expect(unit?.name).toBe(name)
    expect({ title: unit?.title, port: unit?.port, liveness: unit?.liveness }).toEqual({
      title: entry.title,
      port: entry.port,
      liveness: entry.liveness,
    })
  }
})

test('ports are distinct, and lookups refuse names that are not units', () => {
  const ports = Object.values(httpUnits).map((u) => u.port)
  expect(new Set(ports).size).toBe(ports.length)
  for (const name of ['toString', '__proto__', 'constructor', '', 'WEB']) {
    expect(registeredUnit(name)).toBeUndefined()
  }
  expect(registeredUnit('web')?.port).toBe(18080)
})

import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FILE_PATHS, FILE_SCHEMAS, fileProblems, shippedFiles } from './files.ts'
import { localChecks } from './rules/verify.ts'

const ROOT = join(import.meta.dir, '../..')
const COMMANDS = ['verify', 'manifest', 'snapshot', 'drift', 'metadata']

describe('TEL repository files', () => {
  test('stack.json, manifest.json and features.json are valid against their JSON Schemas', () => {
    expect(fileProblems(shippedFiles)).toEqual([])
    expect(localChecks(shippedFiles, COMMANDS).filter((c) => c.status !== 'passed')).toEqual([])
  })

  test('the committed schema files are the schemas the code validates with (UPDATE_SCHEMAS=1 rewrites them)', () => {
    for (const key of ['stack', 'manifest', 'features'] as const) {
      const path = join(ROOT, `units/tel/schemas/${key}.schema.json`)
      const schema = `${JSON.stringify(FILE_SCHEMAS[key], null, 2)}\n`
      if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(path, schema)
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(JSON.parse(schema))
      const file = JSON.parse(readFileSync(join(ROOT, FILE_PATHS[key]), 'utf8'))
      expect(file.$schema).toBe(`./schemas/${key}.schema.json`)
    }
  })

  test('the stack contract holds 19088 and 19089 static-required; moving one fails', () => {
    const ports = Object.fromEntries(shippedFiles.stack.ports.map((p) => [p.port, p.policy]))
    expect(ports).toEqual({ 19088: 'static-required', 19089: 'static-required' })
    const moved = structuredClone(shippedFiles)
    moved.stack.ports[1]!.port = 19090
    moved.stack.ports[0]!.policy = 'configurable'
    const checks = Object.fromEntries(localChecks(moved, COMMANDS).map((c) => [c.name, c]))
    expect(checks['telephony_adapter_slice.static_ports']?.status).toBe('failed')
    expect(checks['telephony_adapter_slice.static_ports']?.reason).toContain(
      'gui is 19090, the spec fixes 19089',
    )
    expect(checks['stack_source_of_truth.contract_ports']?.status).toBe('failed')
  })

  test('a file off its schema is refused with the path named; a manifest that drops a command fails', () => {
    const broken = structuredClone(shippedFiles) as unknown as { stack: Record<string, unknown> }
    delete broken.stack.router
    expect(fileProblems(broken as never)).toContainEqual(expect.stringContaining('units/tel/stack.json'))
    const checks = localChecks(shippedFiles, [...COMMANDS, 'extra'])
    expect(checks.find((c) => c.name === 'stack_source_of_truth.manifest')?.status).toBe('failed')
  })
})

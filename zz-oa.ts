import { bootForTest } from './test/harness.ts'
import { credentialsFor } from './tools/fuzz-credentials.ts'
import { loadHttpUnits } from './units/registry.ts'
for (const [name, unit] of Object.entries(await loadHttpUnits())) {
  const c = credentialsFor(name); const u = bootForTest(unit, c.env)
  const doc = await (await u.request(unit.openapiPath ?? '/openapi.json')).json() as { paths: Record<string, Record<string, { operationId?: string; summary?: string; responses?: Record<string, unknown>; security?: unknown }>>; components: { securitySchemes?: unknown } }
  let ops = 0, noId = 0, noSummary = 0, no4xx = 0
  const ids = new Set<string>()
  for (const [p, item] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(item)) { ops++; if (!op.operationId) noId++; else ids.add(op.operationId); if (!op.summary) noSummary++; if (!Object.keys(op.responses ?? {}).some((k) => k.startsWith('4'))) no4xx++ }
  console.log(name, { ops, noId, dupIds: ops - noId - ids.size, noSummary, no4xx, securitySchemes: !!doc.components.securitySchemes })
  await u.dispose(); c.stop()
}
process.exit(0)

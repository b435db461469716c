/**
 * `npx bun units/wta/catalog/generate-node-types.ts <n8n install dir>`: write node-types.json,
 * the node types an n8n release ships, from the `nodes.json` descriptions in its packages
 * (n8n-nodes-base and @n8n/n8n-nodes-langchain). Hidden node types are the ones n8n keeps for
 * old workflows but no longer offers: WTA reports them as deprecated.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

interface Description {
  name: string
  version: number | number[]
  hidden?: boolean
  group?: string[]
  credentials?: { name: string; required?: boolean; displayOptions?: unknown }[]
}

const PACKAGES = [
  { dir: 'n8n-nodes-base', prefix: 'n8n-nodes-base' },
  { dir: '@n8n/n8n-nodes-langchain', prefix: '@n8n/n8n-nodes-langchain' },
]

const root = process.argv[2]
if (!root) {
  process.stderr.write('usage: bun units/wta/catalog/generate-node-types.ts <n8n install dir>\n')
  process.exit(2)
}
const modules = join(root, 'node_modules')
const n8nVersion = (
  JSON.parse(readFileSync(join(modules, 'n8n', 'package.json'), 'utf8')) as { version: string }
).version
const types: Record<
  string,
  { versions: number[]; deprecated: boolean; trigger: boolean; credentials: string[] }
> = {}
for (const pkg of PACKAGES) {
  const nodes = JSON.parse(
    readFileSync(join(modules, pkg.dir, 'dist', 'types', 'nodes.json'), 'utf8'),
  ) as Description[]
  for (const n of nodes) {
    const key = `${pkg.prefix}.${n.name}`
    const entry = types[key] ?? { versions: [], deprecated: true, trigger: false, credentials: [] }
    types[key] = entry
    const versions = Array.isArray(n.version) ? n.version : [n.version]
    entry.versions = [...new Set([...entry.versions, ...versions])].sort((a, b) => a - b)
    // A type is deprecated only when every description of it is hidden.
    entry.deprecated &&= n.hidden === true
    entry.trigger ||= (n.group ?? []).includes('trigger')
    for (const c of n.credentials ?? []) {
      if (c.required && c.displayOptions === undefined && !entry.credentials.includes(c.name))
        entry.credentials.push(c.name)
    }
  }
}
const sorted = Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b)))
const out = join(import.meta.dir, 'node-types.json')
writeFileSync(out, `${JSON.stringify({ n8n_version: n8nVersion, types: sorted }, null, 1)}\n`)
console.log(`${out}: ${Object.keys(sorted).length} node types from n8n ${n8nVersion}`)

import { readFileSync } from 'node:fs'
import pkg from '../package.json' with { type: 'json' }

export const SUITE_VERSION: string = pkg.version

declare const SVC_BUILD_COMMIT: string | undefined

let commit: string | undefined

/** The commit this build came from: baked in by `bun run build`, else read from .git, else unknown. */
export function buildCommit(): string {
  commit ??= readCommit()
  return commit
}

function readCommit(): string {
  if (typeof SVC_BUILD_COMMIT === 'string' && SVC_BUILD_COMMIT) return SVC_BUILD_COMMIT
  if (process.env.SVC_BUILD_COMMIT) return process.env.SVC_BUILD_COMMIT
  try {
    const head = readFileSync('.git/HEAD', 'utf8').trim()
    if (!head.startsWith('ref: ')) return head
    return readFileSync(`.git/${head.slice(5)}`, 'utf8').trim()
  } catch {
    return 'unknown'
  }
}

/** n8n release versions (`major.minor.patch`, optional `v` and pre-release), compared numerically. */
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/

export const VERSION_PATTERN = '^v?[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$'

export function parseVersion(v: string): [number, number, number, string] | undefined {
  const m = VERSION.exec(v.trim())
  if (!m) return undefined
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? '']
}

/** Negative when a < b, 0 when equal, positive when a > b; a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a)
  const y = parseVersion(b)
  if (!x || !y) throw new Error(`not a version: ${x ? b : a}`)
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number)
  if (x[3] === y[3]) return 0
  if (x[3] === '') return 1
  if (y[3] === '') return -1
  return x[3] < y[3] ? -1 : 1
}

/** Whether `v` lies in the half-open range (from, to]: a change made after `from`, up to `to`. */
export const inUpgradeRange = (v: string, from: string, to: string) =>
  compareVersions(v, from) > 0 && compareVersions(v, to) <= 0

/** How far `to` is ahead of `from`: majors, and minors within the same major. */
export function versionsBehind(from: string, to: string): { majors: number; minors: number } {
  const x = parseVersion(from)
  const y = parseVersion(to)
  if (!x || !y) return { majors: 0, minors: 0 }
  const majors = Math.max(0, y[0] - x[0])
  return { majors, minors: majors > 0 ? y[1] : Math.max(0, y[1] - x[1]) }
}

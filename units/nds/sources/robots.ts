/**
 * robots.txt (RFC 9309): the group for our user agent (else `*`), Allow/Disallow rules with `*`
 * and `$`, longest match wins, Allow wins a tie. A missing robots.txt (4xx) allows everything;
 * an unreachable one (5xx, network) disallows everything, as the RFC asks.
 */

export const ROBOTS_AGENT = 'svc-nds'

interface Rule {
  allow: boolean
  pattern: string
  regex: RegExp
}

export interface Robots {
  allowed(path: string): boolean
}

export const allowAll: Robots = { allowed: () => true }
export const disallowAll: Robots = { allowed: () => false }

function toRegex(pattern: string): RegExp {
  const anchored = pattern.endsWith('$')
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${body}${anchored ? '$' : ''}`)
}

export function parseRobots(text: string, agent = ROBOTS_AGENT): Robots {
  const groups: { agents: string[]; rules: Rule[] }[] = []
  let current: { agents: string[]; rules: Rule[] } | undefined
  let lastWasAgent = false
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*/, '').trim()
    const colon = line.indexOf(':')
    if (colon === -1) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] }
        groups.push(current)
      }
      current.agents.push(value.toLowerCase())
      lastWasAgent = true
    } else if ((key === 'allow' || key === 'disallow') && current) {
      lastWasAgent = false
      if (value === '') continue
      current.rules.push({ allow: key === 'allow', pattern: value, regex: toRegex(value) })
    } else {
      lastWasAgent = false
    }
  }
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && agent.toLowerCase().startsWith(a)))
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'))
  const rules = chosen.flatMap((g) => g.rules)
  return {
    allowed(path) {
      let best: Rule | undefined
      for (const rule of rules) {
        if (!rule.regex.test(path)) continue
        if (
          !best ||
          rule.pattern.length > best.pattern.length ||
          (rule.pattern.length === best.pattern.length && rule.allow)
        )
          best = rule
      }
      return best ? best.allow : true
    },
  }
}

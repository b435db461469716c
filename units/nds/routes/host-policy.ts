/**
 * The proxy settings runtime_config publishes, enforced: with NDS_TRUSTED_HOSTS set, a request
 * for another Host is refused (400 untrusted_host); with NDS_FORCE_HTTPS_REDIRECT, a request the
 * proxy marks plain http (X-Forwarded-Proto: http) is redirected to https (308). Liveness,
 * readiness and metrics stay reachable for probes that use an address, not the public name.
 * An API key in the query string (`access_token`, `api_key`) is refused on every route: query
 * strings end up in proxy logs.
 */
import { Elysia } from 'elysia'
import { badRequest } from '../../../common/errors.ts'
import type { NdsSettings } from '../service/deps.ts'

const PROBES = new Set(['/v1/health/live', '/v1/health/ready', '/metrics'])
const KEY_PARAMS = ['access_token', 'api_key']

export function hostAllowed(host: string, trusted: string[]): boolean {
  const name = host.replace(/:\d+$/, '').toLowerCase()
  return trusted.some((t) => {
    const pattern = t.toLowerCase()
    return pattern.startsWith('*.')
      ? name.endsWith(pattern.slice(1))
      : name === pattern || host.toLowerCase() === pattern
  })
}

/** Whether the URL's query string names a credential parameter (read without parsing the rest). */
function keyInQuery(url: string): boolean {
  const qi = url.indexOf('?')
  if (qi === -1) return false
  const params = new URLSearchParams(url.slice(qi + 1))
  return KEY_PARAMS.some((k) => params.has(k))
}

/**
 * Hooks on every route of NDS, probes included, so they take only `request`: Elysia reads a
 * hook's parameters (and the words in its body) to decide what each request prepares, and a hook
 * naming `query` parsed every request's query string up front (docs/benchmarks.md).
 */
export const hostPolicy = (s: NdsSettings) =>
  new Elysia({ name: 'nds:host-policy' })
    .onBeforeHandle({ as: 'global' }, ({ request }) => {
      if (keyInQuery(request.url)) {
        throw badRequest(
          'credentials_in_query',
          'Send the API key in the Authorization header, never in the URL.',
        )
      }
    })
    .onRequest(({ request }) => {
      if (s.trustedHosts.length === 0 && !s.forceHttpsRedirect) return undefined
      const url = new URL(request.url)
      if (PROBES.has(url.pathname)) return undefined
      const host = request.headers.get('host') ?? url.host
      if (s.trustedHosts.length > 0 && !hostAllowed(host, s.trustedHosts)) {
        throw badRequest('untrusted_host', 'This host name is not served here.')
      }
      if (s.forceHttpsRedirect && request.headers.get('x-forwarded-proto')?.toLowerCase() === 'http') {
        // `new Response`, not `Response.redirect(…)`: Elysia counts a hook whose source has
        // `return f(` as asynchronous and then awaits it on every request.
        const location = `https://${host}${url.pathname}${url.search}`
        return new Response(null, { status: 308, headers: { location } })
      }
      return undefined
    })

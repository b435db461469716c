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

export const hostPolicy = (s: NdsSettings) =>
  new Elysia({ name: 'nds:host-policy' })
    .onBeforeHandle({ as: 'global' }, ({ query }) => {
      if (KEY_PARAMS.some((k) => query?.[k] !== undefined)) {
        throw badRequest(
          'credentials_in_query',
          'Send the API key in the Authorization header, never in the URL.',
        )
      }
    })
    .onRequest(({ request }) => {
      if (s.trustedHosts.length === 0 && !s.forceHttpsRedirect) return
      const url = new URL(request.url)
      if (PROBES.has(url.pathname)) return
      const host = request.headers.get('host') ?? url.host
      if (s.trustedHosts.length > 0 && !hostAllowed(host, s.trustedHosts)) {
        throw badRequest('untrusted_host', 'This host name is not served here.')
      }
      if (s.forceHttpsRedirect && request.headers.get('x-forwarded-proto')?.toLowerCase() === 'http') {
        return Response.redirect(`https://${host}${url.pathname}${url.search}`, 308)
      }
    })

/**
 * The proxy settings runtime_config publishes, enforced: with NDS_TRUSTED_HOSTS set, a request
 * for another Host is refused (400 untrusted_host); with NDS_FORCE_HTTPS_REDIRECT, a request the
 * proxy marks plain http (X-Forwarded-Proto: http) is redirected to https (308). Liveness,
 * readiness and metrics stay reachable for probes that use an address, not the public name.
 */
import { Elysia } from 'elysia'
import { badRequest } from '../../../common/errors.ts'
import type { NdsSettings } from '../service/deps.ts'

const PROBES = new Set(['/v1/health/live', '/v1/health/ready', '/metrics'])

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
  new Elysia({ name: 'nds:host-policy' }).onRequest(({ request }) => {
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

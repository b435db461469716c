import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { SESSION_COOKIE, type SessionOptions, type sessionPlugin } from '../../../common/session.ts'
import { AppLogin, OidcStatus, OwnerFacts, SessionContract } from '../model/auth.ts'
import { appLogin, type DiscoveryState, oidcStatus, ownerFacts, sessionContract } from '../service/auth.ts'
import type { PwsDeps } from '../service/deps.ts'

export interface AuthRouteDeps {
  deps: PwsDeps
  sessions: ReturnType<typeof sessionPlugin>
  sessionOptions: SessionOptions
  discovery(): DiscoveryState
}

/** The login contract's read routes (open: they describe, they never reveal a secret) and owner facts. */
export const authRoutes = ({ deps, sessions, sessionOptions, discovery }: AuthRouteDeps) =>
  new Elysia({ name: 'pws:auth' })
    .use(sessions)
    .get('/api/v1/auth/oidc/status', () => oidcStatus(deps, discovery()), {
      response: { 200: OidcStatus },
      detail: { summary: 'OIDC configuration and admitted-surface posture (200 also when unconfigured)' },
    })
    .get(
      '/api/v1/auth/oidc/session-contract',
      ({ cookie }) => sessionContract(deps, sessionOptions, cookie[SESSION_COOKIE]?.value),
      {
        response: { 200: SessionContract },
        detail: {
          summary:
            "Session freshness, audience, scopes, roles, admin posture; the caller's own session state",
        },
      },
    )
    .get('/api/v1/settings/app-login', () => appLogin(deps), {
      response: { 200: AppLogin },
      detail: { summary: 'Identity summary and the operator-console app-login contract' },
    })
    .get('/api/v1/owner-facts', () => ownerFacts(deps), {
      session: 'viewer',
      response: { 200: OwnerFacts, ...errorResponses(401, 403) },
      detail: { summary: 'Owner facts: read-only, authenticated (401 missing or stale session)' },
    })

import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import {
  clearSessionCookie,
  SESSION_COOKIE,
  type SessionOptions,
  type sessionPlugin,
  setSessionCookie,
} from '../../../common/session.ts'
import { AppLogin, LoginQuery, LogoutResult, OidcStatus, OwnerFacts, SessionContract } from '../model/auth.ts'
import { appLogin, type DiscoveryState, oidcStatus, ownerFacts, sessionContract } from '../service/auth.ts'
import type { PwsDeps } from '../service/deps.ts'
import type { OidcLogin } from '../service/oidc.ts'

export interface AuthRouteDeps {
  deps: PwsDeps
  sessions: ReturnType<typeof sessionPlugin>
  sessionOptions: SessionOptions
  login: OidcLogin | undefined
}

/** The login contract's read routes (open: they describe, they never reveal a secret) and owner facts. */
const discovery = (login: OidcLogin | undefined): DiscoveryState =>
  login ? login.discovery() : { state: 'not_configured', message: null }

export const authRoutes = ({ deps, sessions, sessionOptions, login }: AuthRouteDeps) =>
  new Elysia({ name: 'pws:auth' })
    .use(sessions)
    .get('/api/v1/auth/oidc/status', () => oidcStatus(deps, discovery(login)), {
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
    .post(
      '/api/v1/auth/oidc/logout',
      ({ cookie }) => {
        clearSessionCookie(cookie, sessionOptions)
        return { logged_out: true, end_session_url: login?.endSessionUrl() ?? null }
      },
      {
        response: { 200: LogoutResult },
        detail: { summary: 'Log out: pm_session is cleared; end_session_url ends the provider session too' },
      },
    )

/** Login and callback exist only when OIDC is configured (the status routes say whether it is). */
export const loginRoutes = (deps: PwsDeps, sessionOptions: SessionOptions, oidc: OidcLogin) =>
  new Elysia({ name: 'pws:oidc-login' })
    .get(
      '/api/v1/auth/oidc/login',
      async ({ request, query, redirect }) => {
        return redirect(await oidc.start(deps, request.url, query.return_to), 302)
      },
      {
        query: LoginQuery,
        response: errorResponses(400, 503),
        detail: {
          summary: 'Start the app login: 302 to the identity provider (authorization code with PKCE)',
        },
      },
    )
    .get(
      '/api/v1/auth/oidc/callback',
      async ({ request, cookie, redirect }) => {
        const done = await oidc.finish(deps, sessionOptions, request.url)
        setSessionCookie(cookie, sessionOptions, done.token)
        return redirect(done.returnTo, 302)
      },
      {
        response: errorResponses(400, 401, 503),
        detail: {
          summary:
            'The identity provider returns here: code grant, userinfo, pm_session issued, 302 to return_to',
        },
      },
    )

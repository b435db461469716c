/**
 * OIDC app login through openid-client: discovery from PWS_OIDC_ISSUER, authorization code with
 * PKCE (S256), state and nonce kept server-side per login, userinfo for the role claim, then a
 * `pm_session` from the shared session block.
 */
import * as client from 'openid-client'
import { badRequest, unauthorized, unavailable } from '../../../common/errors.ts'
import { issueSession, ROLES, type Role, type SessionOptions } from '../../../common/session.ts'
import { insertOidcLogin, takeOidcLogin } from '../store.ts'
import type { DiscoveryState } from './auth.ts'
import { OIDC_SCOPES } from './auth.ts'
import { iso, type PwsDeps } from './deps.ts'

/** A login must come back within this long. */
export const LOGIN_TTL_MS = 10 * 60_000
export const CALLBACK_PATH = '/api/v1/auth/oidc/callback'
const DEFAULT_RETURN = '/api/v1/auth/oidc/session-contract'

export interface OidcClientOptions {
  issuer: string
  clientId: string
  clientSecret: string
  roleClaim: string
  /** Public origin PWS is reached at (behind a proxy); else the request's own origin. */
  publicBaseUrl: string | undefined
  /** Plain http issuers are allowed outside production (local providers, tests). */
  allowHttp: boolean
  timeoutMs: number
}

export interface OidcLogin {
  discovery(): DiscoveryState
  start(deps: PwsDeps, requestUrl: string, returnTo: string | undefined): Promise<string>
  finish(
    deps: PwsDeps,
    session: SessionOptions,
    requestUrl: string,
  ): Promise<{ token: string; returnTo: string; role: Role }>
  endSessionUrl(): string | null
}

/** Only a path on this service may be a return target (no open redirect). */
function safeReturn(returnTo: string | undefined): string {
  if (!returnTo) return DEFAULT_RETURN
  if (!returnTo.startsWith('/') || returnTo.startsWith('//') || returnTo.includes('\\')) {
    throw badRequest('invalid_return_to', 'return_to must be a path on this service.')
  }
  return returnTo
}

/** The claim's value, when it names one of the roles; otherwise the lowest role. */
export function roleFrom(value: unknown): Role {
  return typeof value === 'string' && ROLES.includes(value as Role) ? (value as Role) : 'viewer'
}

export function createOidcLogin(o: OidcClientOptions): OidcLogin {
  let config: client.Configuration | undefined
  let state: DiscoveryState = { state: 'not_checked', message: null }
  let pending: Promise<client.Configuration> | undefined

  const discover = (): Promise<client.Configuration> => {
    if (config) return Promise.resolve(config)
    pending ??= client
      .discovery(new URL(o.issuer), o.clientId, o.clientSecret, undefined, {
        execute: o.allowHttp ? [client.allowInsecureRequests] : [],
        timeout: Math.ceil(o.timeoutMs / 1000),
      })
      .then((c) => {
        config = c
        state = { state: 'ok', message: null }
        return c
      })
      .catch((err: unknown) => {
        state = { state: 'failed', message: (err as Error).message }
        throw unavailable(
          'oidc_discovery_failed',
          'The identity provider could not be discovered; try again later.',
        )
      })
      .finally(() => {
        pending = undefined
      })
    return pending
  }

  const callbackUrl = (requestUrl: string) =>
    new URL(CALLBACK_PATH, o.publicBaseUrl ?? new URL(requestUrl).origin)

  return {
    discovery: () => state,
    async start(deps, requestUrl, returnTo) {
      const target = safeReturn(returnTo)
      const c = await discover()
      const verifier = client.randomPKCECodeVerifier()
      const loginState = client.randomState()
      const nonce = client.randomNonce()
      const redirectUri = callbackUrl(requestUrl).href
      const now = deps.now()
      await insertOidcLogin(
        deps.storage,
        {
          state: loginState,
          codeVerifier: verifier,
          nonce,
          returnTo: target,
          redirectUri,
          createdAt: iso(now),
        },
        iso(now - LOGIN_TTL_MS),
      )
      return client.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri,
        scope: OIDC_SCOPES.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: loginState,
        nonce,
      }).href
    },
    async finish(deps, session, requestUrl) {
      const url = new URL(requestUrl)
      const loginState = url.searchParams.get('state')
      if (!loginState) throw badRequest('state_missing', 'The callback has no state.')
      const login = await takeOidcLogin(deps.storage, loginState)
      if (!login || Date.parse(login.createdAt) < deps.now() - LOGIN_TTL_MS) {
        throw unauthorized('login_unknown', 'This login is unknown or expired; start again.')
      }
      const c = await discover()
      const current = new URL(login.redirectUri)
      current.search = url.search
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(c, current, {
          pkceCodeVerifier: login.codeVerifier,
          expectedState: login.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        })
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'OIDC code grant refused')
        throw unauthorized('login_failed', 'The identity provider did not confirm this login.')
      }
      const claims = tokens.claims()
      if (!claims) throw unauthorized('login_failed', 'The identity provider sent no ID token.')
      const info = await client.fetchUserInfo(c, tokens.access_token, claims.sub)
      const role = roleFrom(claims[o.roleClaim] ?? info[o.roleClaim])
      const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : undefined
      const token = await issueSession(session, { sub: claims.sub, role, authTime }, deps.now())
      return { token, returnTo: login.returnTo, role }
    },
    endSessionUrl() {
      if (!config?.serverMetadata().end_session_endpoint) return null
      return client.buildEndSessionUrl(config, { client_id: o.clientId }).href
    },
  }
}

/** What the auth routes publish about login and sessions, and the owner facts. */
import { ROLES, readSession, type SessionOptions } from '../../../common/session.ts'
import { SANDBOX_SCENARIOS } from '../rules/sandbox.ts'
import type { PwsDeps } from './deps.ts'
import { admittedSurface, roleAdminPosture, VERIFY_PATHS } from './status.ts'

export const OIDC_SCOPES = ['openid', 'profile', 'email']
export const LOGIN_PATHS = {
  login: '/api/v1/auth/oidc/login',
  callback: '/api/v1/auth/oidc/callback',
  logout: '/api/v1/auth/oidc/logout',
}

export interface DiscoveryState {
  state: 'not_configured' | 'not_checked' | 'ok' | 'failed'
  message: string | null
}

export function oidcStatus(deps: PwsDeps, discovery: DiscoveryState) {
  const oidc = deps.settings.oidc
  const surface = admittedSurface(deps)
  return {
    configured: oidc !== undefined,
    issuer: oidc?.issuer ?? null,
    client_id: oidc?.clientId ?? null,
    role_claim: oidc?.roleClaim ?? 'pws_role',
    scopes: OIDC_SCOPES,
    discovery,
    paths: LOGIN_PATHS,
    admitted_surface: {
      surface_key: surface.surface_key,
      auth_mode: surface.auth_mode,
      consumer_posture: surface.consumer_posture,
    },
    truth_owners: surface.truth_owners,
  }
}

/** The caller's own session, as the session macro would judge it (without refusing). */
async function currentSession(opts: SessionOptions, token: unknown) {
  if (typeof token !== 'string' || token === '') return { state: 'missing' as const, role: null, sub: null }
  if (!opts.secret) return { state: 'invalid' as const, role: null, sub: null }
  const check = await readSession({ ...opts, secret: opts.secret }, token)
  if (check.ok) return { state: 'valid' as const, role: check.session.role, sub: check.session.sub }
  return {
    state: check.code === 'session_stale' ? ('stale' as const) : ('invalid' as const),
    role: null,
    sub: null,
  }
}

export async function sessionContract(deps: PwsDeps, opts: SessionOptions, token: unknown) {
  const oidc = deps.settings.oidc
  return {
    session_cookie: 'pm_session' as const,
    algorithm: 'HS256' as const,
    max_age_s: deps.settings.sessionMaxAgeS,
    freshness: {
      stale_when: ['exp has passed', `auth_time older than ${deps.settings.sessionMaxAgeS} s`],
      stale_status: 401,
      insufficient_role_status: 403,
    },
    audience: oidc?.clientId ?? 'pws',
    scopes: OIDC_SCOPES,
    roles: [...ROLES],
    role_claim: oidc?.roleClaim ?? 'pws_role',
    admin_posture: roleAdminPosture(deps),
    verify_paths: VERIFY_PATHS,
    current_session: await currentSession(opts, token),
  }
}

export function appLogin(deps: PwsDeps) {
  const oidc = deps.settings.oidc
  const surface = admittedSurface(deps)
  return {
    identity: {
      configured: oidc !== undefined,
      issuer: oidc?.issuer ?? null,
      client_id: oidc?.clientId ?? null,
    },
    app_login: {
      surface_key: surface.surface_key,
      auth_mode: surface.auth_mode,
      consumer_posture: surface.consumer_posture,
      login_path: LOGIN_PATHS.login,
      callback_path: LOGIN_PATHS.callback,
      logout_path: LOGIN_PATHS.logout,
      available: oidc !== undefined && deps.settings.sessionsAvailable,
    },
  }
}

export function ownerFacts(deps: PwsDeps) {
  return {
    schema_version: '1',
    surface_key: 'pws_owner_facts',
    read_only: true,
    auth_required: true,
    stale_auth_fails_closed: true,
    source_truth_owner: 'pws',
    manifest: {
      schema_version: '2',
      manifest_key: deps.contract.unit,
      path: deps.contract.manifest_path ?? '/platform-manifest.json',
    },
    adapters: SANDBOX_SCENARIOS.map((scenario) => ({
      module_kind: 'adapter_sandbox',
      adapter_key: `sandbox_${scenario}`,
      primary_surface: '/api/v1/projects/{project_id}/adapter-sandbox/writes',
      supported_modes: ['dry_run', 'admitted'],
    })),
    discovery: { api_surface: '/api/v1', docs_ref: deps.contract.docs.entrypoint },
  }
}

/** What the auth routes publish about login and sessions, and the owner facts. */
import { ROLES, type SessionVerifier } from '../access.ts'
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

export async function sessionContract(deps: PwsDeps, verifier: SessionVerifier, token: string | undefined) {
  const verdict = await verifier.verify(token)
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
    current_session: verdict.ok
      ? { state: 'valid' as const, role: verdict.session.role, sub: verdict.session.sub }
      : {
          state: verdict.reason === 'missing' ? ('missing' as const) : verdict.reason,
          role: null,
          sub: null,
        },
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

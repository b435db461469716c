/** OIDC status, session contract, app-login summary and owner facts. */
import { t } from 'elysia'
import { lit, Nullable } from './common.ts'

const Open = (props: Parameters<typeof t.Object>[0], description: string) =>
  t.Object(props, { additionalProperties: true, description })

export const OidcStatus = Open(
  {
    configured: t.Boolean(),
    issuer: Nullable(t.String()),
    client_id: Nullable(t.String()),
    role_claim: t.String(),
    scopes: t.Array(t.String()),
    discovery: t.Object({
      state: lit('not_configured', 'not_checked', 'ok', 'failed'),
      message: Nullable(t.String()),
    }),
    admitted_surface: t.Object({
      surface_key: t.String(),
      auth_mode: t.String(),
      consumer_posture: t.String(),
    }),
  },
  'Runtime-readable OIDC configuration and admitted-surface posture',
)

export const SessionContract = Open(
  {
    session_cookie: t.Literal('pm_session'),
    algorithm: t.Literal('HS256'),
    max_age_s: t.Integer(),
    audience: t.String(),
    scopes: t.Array(t.String()),
    roles: t.Array(t.String()),
    role_claim: t.String(),
    admin_posture: t.String(),
    verify_paths: t.Array(t.String()),
    current_session: t.Object({
      state: lit('missing', 'valid', 'stale', 'invalid'),
      role: Nullable(t.String()),
      sub: Nullable(t.String()),
    }),
  },
  'Session freshness, audience, scopes, role, admin posture and verify-path contract',
)

export const AppLogin = Open(
  {
    identity: t.Object({
      configured: t.Boolean(),
      issuer: Nullable(t.String()),
      client_id: Nullable(t.String()),
    }),
    app_login: Open(
      {
        surface_key: t.String(),
        auth_mode: t.String(),
        consumer_posture: t.String(),
        login_path: t.String(),
      },
      'The admitted operator-console app-login contract',
    ),
  },
  'Identity summary and the admitted operator-console app-login contract',
)

export const OwnerFacts = t.Object({
  schema_version: t.String(),
  surface_key: t.String(),
  read_only: t.Boolean(),
  auth_required: t.Boolean(),
  stale_auth_fails_closed: t.Boolean(),
  source_truth_owner: t.String(),
  manifest: t.Object({ schema_version: t.String(), manifest_key: t.String(), path: t.String() }),
  adapters: t.Array(
    t.Object({
      module_kind: t.String(),
      adapter_key: t.String(),
      primary_surface: t.String(),
      supported_modes: t.Array(t.String()),
    }),
  ),
  discovery: t.Object({ api_surface: t.String(), docs_ref: t.String() }),
})

export const LoginQuery = t.Object({
  return_to: t.Optional(
    t.String({ maxLength: 500, description: 'a path on this service to land on after login' }),
  ),
})
export const LogoutResult = t.Object({ logged_out: t.Literal(true), end_session_url: Nullable(t.String()) })

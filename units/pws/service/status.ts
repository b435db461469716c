/** What the open entry surfaces report: built from configuration, the contract and stored state. */
import { ROLES, SESSION_COOKIE } from '../../../common/session.ts'
import { PROVIDERS } from '../rules/delivery.ts'
import { GIT_POLL_FALLBACK_MINUTES } from '../rules/summary.ts'
import { latestWebhooks, projectCounts } from '../store.ts'
import { iso, type PwsDeps } from './deps.ts'

/** The admitted operator-console surface (spec: admitted-surface contract). */
export function admittedSurface(deps: PwsDeps) {
  const s = deps.contract.identity_surfaces[0]
  return {
    surface_key: s?.surface_key ?? 'operator_console',
    auth_mode: s?.auth_mode ?? 'oidc_claim_projection',
    consumer_posture: s?.consumer_posture ?? 'native_oidc_session_consumer',
    truth_owners: s?.truth_owners ?? {
      session: 'pws',
      upstream_readiness: 'identity_provider',
      projection: 'prs',
    },
  }
}

/** The routes a client calls to verify its session and the login contract. */
export const VERIFY_PATHS = [
  '/api/v1/auth/oidc/status',
  '/api/v1/auth/oidc/session-contract',
  '/api/v1/owner-facts',
]

export function roleAdminPosture(deps: PwsDeps): string {
  return deps.settings.oidc ? 'admin_by_role_claim' : 'no_identity_provider'
}

export async function readiness(deps: PwsDeps) {
  const s = deps.settings
  const database = await deps.guard.ready()
  const warnings: string[] = []
  if (!s.oidc) warnings.push('PWS_OIDC_ISSUER is not set: app login is unavailable')
  if (!s.sessionsAvailable)
    warnings.push('PWS_SESSION_SECRET is not set: operator routes refuse every request')
  if (!s.planningRepo) warnings.push('PWS_PLANNING_REPO is not set: planning pages are not synced')
  if (!s.supportHandoffToken)
    warnings.push('PWS_SUPPORT_HANDOFF_TOKEN is not set: EIS support handoffs are refused')
  const providers = PROVIDERS.filter((p) => s.providers[p] !== undefined)
  return {
    status: !database
      ? ('not_ready' as const)
      : warnings.length > 0
        ? ('degraded' as const)
        : ('ready' as const),
    service: 'pws' as const,
    checks: {
      database,
      oidc: s.oidc ? ('configured' as const) : ('unconfigured' as const),
      sessions: s.sessionsAvailable ? ('available' as const) : ('unavailable' as const),
      planning_repo: s.planningRepo ? ('configured' as const) : ('unconfigured' as const),
      providers: [...providers],
      support_handoff: s.supportHandoffToken ? ('configured' as const) : ('unconfigured' as const),
    },
    warnings,
    checked_at: iso(deps.now()),
  }
}

export async function workspaceFacts(deps: PwsDeps) {
  const counts = await projectCounts(deps.storage)
  const webhooks = await latestWebhooks(deps.storage)
  return {
    unit: 'pws' as const,
    workspace_model: 'single_primary_repo',
    sync_mode: 'webhook_first',
    git_poll_fallback_minutes: GIT_POLL_FALLBACK_MINUTES,
    workspace: { projects: counts.projects, projects_with_primary_repo: counts.bound, tasks: counts.tasks },
    planning_binding: {
      repository_configured: deps.settings.planningRepo !== undefined,
      binding: deps.settings.planningRepo ? 'git_repository' : 'unbound',
      page_format: 'markdown',
    },
    webhook_posture: Object.fromEntries(
      PROVIDERS.map((p) => {
        const settings = deps.settings.providers[p]
        return [
          p,
          {
            configured: settings !== undefined,
            signature_verified: (settings?.webhookSecrets.length ?? 0) > 0,
            signature_header: p === 'gitlab' ? 'X-Gitlab-Token' : 'X-Hub-Signature-256',
            last_webhook_at: webhooks.find((w) => w.provider === p)?.at ?? null,
          },
        ]
      }),
    ),
    observed_at: iso(deps.now()),
  }
}

export function membershipFacts(deps: PwsDeps) {
  const surface = admittedSurface(deps)
  const oidc = deps.settings.oidc
  const posture = roleAdminPosture(deps)
  return {
    unit: 'pws' as const,
    auth_mode: surface.auth_mode,
    admitted_surface: surface.surface_key,
    consumer_posture: surface.consumer_posture,
    role_admin_posture: posture,
    verify_paths: VERIFY_PATHS,
    operator_console: {
      surface_key: surface.surface_key,
      auth_mode: surface.auth_mode,
      admitted_surface: surface.surface_key,
      role_admin_posture: posture,
      verify_paths: VERIFY_PATHS,
    },
    oidc_client: {
      configured: oidc !== undefined,
      issuer: oidc?.issuer ?? null,
      client_id: oidc?.clientId ?? null,
    },
    role_mapping: {
      claim: oidc?.roleClaim ?? null,
      roles: [...ROLES],
      default_role: 'viewer',
      admin_scope: 'adapter sandbox writes',
    },
    membership_visibility: {
      session_cookie: SESSION_COOKIE,
      members_listed: false,
      truth_owners: surface.truth_owners,
    },
    observed_at: iso(deps.now()),
  }
}

/** The open runtime entry surfaces. */
import { t } from 'elysia'
import { lit, Nullable, Ts } from './common.ts'

const Open = (props: Parameters<typeof t.Object>[0], description: string) =>
  t.Object(props, { additionalProperties: true, description })

export const Health = t.Object({
  status: t.Literal('ok'),
  service: t.Literal('pws'),
  version: t.String(),
  checked_at: Ts,
})

export const Ready = t.Object({
  status: lit('ready', 'degraded', 'not_ready'),
  service: t.Literal('pws'),
  checks: t.Object({
    database: t.Boolean(),
    oidc: lit('configured', 'unconfigured'),
    sessions: lit('available', 'unavailable'),
    planning_repo: lit('configured', 'unconfigured'),
    providers: t.Array(t.String()),
    support_handoff: lit('configured', 'unconfigured'),
  }),
  warnings: t.Array(t.String()),
  checked_at: Ts,
})

export const Version = t.Object({
  service: t.Literal('pws'),
  version: t.String(),
  commit: t.String(),
  api_version: t.Literal('v1'),
  contract_version: t.String(),
  identity: t.Object({ tool_key: t.String(), title: t.String(), capability_class: t.String() }),
  started_at: Ts,
})

export const ContractView = Open(
  { unit: t.String(), contract_version: t.String(), read_only: t.Literal(true) },
  'Read-only view of the shipped contract',
)
export const Presence = Open(
  { unit: t.String(), present: t.Boolean(), observed_at: Ts },
  'Discovery presence',
)
export const Compatibility = Open(
  { unit: t.String(), compatibility_mode: t.String(), api_prefix: t.String() },
  'Compatibility and policy hints',
)
export const WorkspaceFacts = Open(
  {
    unit: t.Literal('pws'),
    workspace_model: t.String(),
    sync_mode: t.String(),
    git_poll_fallback_minutes: t.Integer(),
    observed_at: Ts,
  },
  'Workspace, planning-project binding, sync-mode and webhook posture facts',
)
export const MembershipFacts = Open(
  {
    unit: t.Literal('pws'),
    auth_mode: t.String(),
    admitted_surface: t.String(),
    consumer_posture: t.String(),
    role_admin_posture: t.String(),
    verify_paths: t.Array(t.String()),
    oidc_client: t.Object({
      configured: t.Boolean(),
      issuer: Nullable(t.String()),
      client_id: Nullable(t.String()),
    }),
    observed_at: Ts,
  },
  'OIDC client, role-mapping and membership-visibility facts, with the operator-console surface',
)

export const PlatformManifest = t.Object(
  {
    manifest_version: t.String(),
    unit: t.String(),
    contract_version: t.String(),
    producer_families: t.Array(t.String()),
    consumer_families: t.Array(t.String()),
    runtime_contract: t.Object({}, { additionalProperties: true }),
  },
  {
    additionalProperties: true,
    description: 'The shipped manifest (service metadata, not governance truth)',
  },
)
